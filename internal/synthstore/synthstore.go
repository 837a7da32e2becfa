// Package synthstore writes synthetic run directories of any size, through
// the store's own API (runstore.OpenStore, PutTrials, Commit), with items
// shaped like a paper table's: per trial one runner of direct, cot, sc,
// steinersql, react-dsl, alphasql or iesr on one of four backbones; search
// items carry a tree of nodes with prompt-like text, candidates, counters,
// usage by role and a call log of tens of calls; a few items fail or are
// left by an infrastructure error. It exists to measure what reading a
// store costs as it grows (scripts/bench-store.sh); the stores it writes
// are marked simulated and name a benchmark "synthetic" that no loader
// knows.
package synthstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// Options size a synthetic run.
type Options struct {
	// Items is the number of items (trials x questions, the last trial
	// possibly partial).
	Items int
	// Questions is the number of questions of the benchmark, hence of
	// items per trial (default 1000).
	Questions int
	// TraceKB is the approximate size, in KB of JSON, of a search item's
	// result (default 48; a simulated Spider dev run's Alpha-SQL and IESR
	// items hold 60 to 180 KB).
	TraceKB int
	// Seed seeds every random choice (default 1).
	Seed uint64
}

// Stats count what Generate wrote.
type Stats struct {
	Trials, Items, Calls int
	// ResultBytes is the JSON size of the results written (before the
	// store compresses them).
	ResultBytes int64
}

type kind struct {
	runner string
	params runners.Params
	calls  int // model calls per item
	search bool
}

var kinds = []kind{
	{runner: "direct", calls: 1},
	{runner: "cot", calls: 1},
	{runner: "sc", params: runners.Params{"k": 8}, calls: 1},
	{runner: "steinersql", calls: 5},
	{runner: "react-dsl", calls: 6},
	{runner: "alphasql", params: runners.Params{"n_rollout": 24}, calls: 40, search: true},
	{runner: "iesr", params: runners.Params{"n_rollout": 32}, calls: 60, search: true},
}

var backbones = []string{"sim-a", "sim-b", "sim-c", "sim-d"}

// Generate writes a synthetic run of opt.Items items into run directory
// dir (created; an existing store there is added to).
func Generate(dir string, opt Options) (Stats, error) {
	var st Stats
	if opt.Items <= 0 {
		return st, fmt.Errorf("synthstore: items is %d, want at least 1", opt.Items)
	}
	if opt.Questions <= 0 {
		opt.Questions = 1000
	}
	if opt.TraceKB <= 0 {
		opt.TraceKB = 48
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	s, err := runstore.OpenStore(dir)
	if err != nil {
		return st, err
	}
	defer s.Close()
	nTrials := (opt.Items + opt.Questions - 1) / opt.Questions
	models := map[string]spec.ModelSpec{}
	for _, b := range backbones {
		models[b] = spec.ModelSpec{Backend: "sim"}
	}
	trials := make([]*spec.Trial, nTrials)
	meta := map[string]string{"name": fmt.Sprintf("synthetic-%d", opt.Items)}
	for i := range trials {
		k := kinds[i%len(kinds)]
		bb := backbones[(i/len(kinds))%len(backbones)]
		t := &spec.Trial{ID: fmt.Sprintf("t%05d", i), Runner: k.runner, Params: k.params,
			Label:     fmt.Sprintf("%s reason=%s", k.runner, bb),
			Roles:     map[string]string{runners.RoleReason: bb},
			Models:    models,
			Benchmark: spec.BenchmarkSpec{Name: "synthetic"}, Seed: int64(i / (len(kinds) * len(backbones))), Order: i, Entry: i % len(kinds)}
		if t.Seed > 0 {
			t.Label += fmt.Sprintf(" seed=%d", t.Seed)
		}
		trials[i] = t
		n := min(opt.Questions, opt.Items-i*opt.Questions)
		meta["items:"+t.ID] = fmt.Sprint(n)
	}
	if err := s.PutTrials(trials); err != nil {
		return st, err
	}
	if err := s.SetMeta(meta); err != nil {
		return st, err
	}
	st.Trials = nTrials
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, t := range trials {
		k := kinds[i%len(kinds)]
		n := min(opt.Questions, opt.Items-i*opt.Questions)
		for q := 0; q < n; q++ {
			rng := rand.New(rand.NewPCG(opt.Seed, uint64(i)<<32|uint64(q)))
			it := item(rng, t, k, q, opt.TraceKB, start)
			if it.Result != nil {
				st.ResultBytes += int64(approxSize(it.Result))
			}
			if err := s.Commit(it); err != nil {
				return st, err
			}
			st.Items++
			st.Calls += len(it.Calls)
		}
	}
	return st, nil
}

// item is question q of trial t.
func item(rng *rand.Rand, t *spec.Trial, k kind, q, traceKB int, start time.Time) *runstore.Item {
	qid := fmt.Sprintf("synthetic_%05d", q)
	db := fmt.Sprintf("db_%02d", q%20)
	it := &runstore.Item{TrialID: t.ID, QuestionID: qid, Index: q, Status: runstore.StatusDone, Attempts: 1,
		Started: start.Add(time.Duration(q) * time.Second), WallMS: 50 + rng.Float64()*5000}
	switch r := rng.Float64(); {
	case r < 0.002:
		it.Status, it.ErrorClass, it.Error = runstore.StatusError, "endpoint_down", "connection refused after 5 retries"
		return it
	case r < 0.006:
		it.Status, it.ErrorClass, it.Error = runstore.StatusFailed, "model_rejected", "HTTP 400: prompt too long"
	}
	// One schema per database, as the prompts of its questions repeat it.
	schema := schemaText(rand.New(rand.NewPCG(7, uint64(q%20))), db)
	sql := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %d", pick(rng, columns), pick(rng, tables), pick(rng, columns), rng.IntN(100))
	res := &runners.Result{SQL: sql, Trace: runners.Trace{Counters: map[string]float64{}}, Usage: map[string]runners.RoleUsage{},
		Wall: time.Duration(it.WallMS * float64(time.Millisecond))}
	calls := k.calls + rng.IntN(k.calls/4+1)
	roles := []string{runners.RoleReason}
	if k.search {
		roles = []string{runners.RoleReason, runners.RoleUnderstand, runners.RoleDiscriminator}
	}
	for c := 0; c < calls; c++ {
		role := roles[c%len(roles)]
		pt, ct := 600+rng.IntN(1500), 20+rng.IntN(300)
		key := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d", t.ID, qid, c)))
		cached := rng.IntN(10) == 0
		lat := 20 + rng.Float64()*400
		it.Calls = append(it.Calls, runstore.Call{Role: role, N: 1, Cached: cached, PromptTokens: pt, CompletionTokens: ct,
			LatencyMS: lat, CacheKey: hex.EncodeToString(key[:])})
		u := res.Usage[role]
		u.Calls++
		u.Samples++
		if cached {
			u.CachedCalls++
		}
		u.PromptTokens += pt
		u.CompletionTokens += ct
		u.Latency += time.Duration(lat * float64(time.Millisecond))
		res.Usage[role] = u
	}
	res.Trace.Counters["model_requests"] = float64(calls)
	res.Trace.Add(runners.Step{Action: "generate", Role: runners.RoleReason,
		Input:  "Given the database schema:\n" + schema + "\nWrite one SQLite query that answers: " + question(rng),
		Output: "```sql\n" + sql + "\n```", Info: map[string]any{"finish_reason": "stop"}})
	if k.search {
		res.Trace.Counters["rollouts"] = float64(k.params["n_rollout"].(int))
		res.Trace.Counters["terminals"] = float64(10 + rng.IntN(20))
		var nodes []map[string]any
		size := 0
		for id := 0; size < traceKB*1024; id++ {
			text := pick(rng, phrases) + " " + question(rng)
			if rng.IntN(3) == 0 {
				text = "The question needs table(s) " + pick(rng, tables) + ".\n```json\n{\"tables\":{\"" + pick(rng, tables) + "\":[\"*\"]}}\n```"
			}
			n := map[string]any{"id": id, "parent": max(0, id-1-rng.IntN(8)), "depth": 1 + rng.IntN(7), "action": fmt.Sprintf("A%d", 1+rng.IntN(7)),
				"text": text, "key": strings.ToLower(text), "info": map[string]any{"finish_reason": "stop"},
				"visits": rng.IntN(5), "value": rng.Float64() * 3, "expanded": rng.IntN(2) == 0, "requests": rng.IntN(5), "samples": 1}
			nodes = append(nodes, n)
			size += 2*len(text) + 180
			if id%12 == 0 {
				res.Trace.Add(runners.Step{Action: "expand", Role: runners.RoleReason, Input: "Database schema:\n" + schema + "\nQuestion: " + question(rng),
					Output: text})
				size += len(schema) + 200
			}
		}
		res.Trace.Data = map[string]any{"tree": map[string]any{"nodes": nodes}}
		for c := 0; c < 2+rng.IntN(4); c++ {
			res.Candidates = append(res.Candidates, runners.Candidate{SQL: sql, Score: rng.Float64(), Group: fmt.Sprintf("%016x", rng.Uint64())})
		}
	}
	it.Result = res
	correct := rng.Float64() < 0.45+0.05*float64(k.calls%5)
	st := metrics.StatusOK
	var flags []string
	switch r := rng.Float64(); {
	case r < 0.03:
		st, correct = metrics.StatusMissingDB, false
	case r < 0.08:
		st, correct = metrics.StatusPredError, false
	case r < 0.12:
		flags = []string{metrics.FlagLimitTie}
	}
	if it.Status == runstore.StatusFailed {
		correct = false
	}
	it.Verdict = &runstore.Verdict{Index: q, QuestionID: qid, DBID: db, Difficulty: pick(rng, []string{"easy", "medium", "hard", "extra"}),
		Status: st, Correct: correct, PredMS: rng.Float64() * 20, GoldMS: rng.Float64() * 20, GoldFlags: flags}
	return it
}

func approxSize(r *runners.Result) int {
	n := len(r.SQL) + 200
	for _, s := range r.Trace.Steps {
		n += len(s.Input) + len(s.Output) + 60
	}
	if tree, ok := r.Trace.Data["tree"].(map[string]any); ok {
		for _, nd := range tree["nodes"].([]map[string]any) {
			n += 2*len(nd["text"].(string)) + 180
		}
	}
	return n
}

var (
	tables  = []string{"singer", "concert", "stadium", "singer_in_concert", "employee", "department", "course", "student", "teacher", "airline", "airport", "flight", "car_makers", "model_list", "cars_data", "countries", "pets", "has_pet", "orchestra", "performance"}
	columns = []string{"name", "age", "country", "song_name", "capacity", "year", "theme", "salary", "dept_id", "title", "credits", "grade", "city", "abbreviation", "horsepower", "weight", "pet_type", "conductor_id", "record_company", "attendance"}
	words   = []string{"how", "many", "what", "is", "the", "average", "maximum", "of", "all", "show", "names", "and", "for", "each", "with", "more", "than", "list", "that", "have", "in", "order", "by", "descending", "number"}
	phrases = []string{"Conditions:\n- no explicit condition\nQuestion:", "Conditions:\n- the question states none\nQuestion:", "Rephrased question:", "Columns needed:", "Values mentioned:", "Identified operation: aggregation over", "Step: join the tables on their key, then"}
)

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

func question(rng *rand.Rand) string {
	n := 6 + rng.IntN(10)
	ws := make([]string, n)
	for i := range ws {
		if rng.IntN(4) == 0 {
			ws[i] = pick(rng, columns)
		} else {
			ws[i] = pick(rng, words)
		}
	}
	return strings.Join(ws, " ") + "?"
}

func schemaText(rng *rand.Rand, db string) string {
	var b strings.Builder
	for t := 0; t < 3+rng.IntN(4); t++ {
		fmt.Fprintf(&b, "CREATE TABLE %s_%s (\n", db, pick(rng, tables))
		for c := 0; c < 3+rng.IntN(5); c++ {
			fmt.Fprintf(&b, "  %s %s,\n", pick(rng, columns), pick(rng, []string{"INTEGER", "TEXT", "REAL"}))
		}
		b.WriteString(")\n")
	}
	return b.String()
}
