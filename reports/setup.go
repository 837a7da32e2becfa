package reports

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// Setup is what a reader needs to judge and rerun the runs: the code, the
// dates, the limits and seeds (Facts), every model with its endpoint and
// settings, and every trial with its runner, roles and parameters
// (Tables: setup-models, setup-trials).
type Setup struct {
	Facts  []string
	Tables []*Table
}

// specLimits are the run-wide settings of a spec that the trials do not
// carry; they are read from the spec text the store keeps.
type specLimits struct {
	Timeout   string  `yaml:"timeout"`
	Workers   int     `yaml:"workers"`
	MaxTrials int     `yaml:"max_trials"`
	Seeds     []int64 `yaml:"seeds"`
}

// cmdLineMark starts the lines `run` appends to the stored spec text for
// --models and --set.
const cmdLineMark = "# changed by the command line of run:"

// MetaCommit is the run-store meta key holding the VCS revision of the
// binary that ran the run ("+dirty" when its tree had changes); `run`
// writes it, the Setup section shows it.
const MetaCommit = "commit"

// buildSetup collects the setup of runs; commit is the report's own code
// commit ("" when unknown).
func buildSetup(c *corpus, runs []*runstore.RunData, commit string) *Setup {
	su := &Setup{}
	if commit == "" {
		commit = "unknown (the binary carries no VCS build information)"
	}
	su.Facts = append(su.Facts, "Code commit of this report: "+commit+".")
	for ri, r := range runs {
		// With several runs each fact names its run.
		who := ""
		if len(runs) > 1 {
			who = "Run " + r.Name() + " (`" + r.Dir + "`): "
		}
		fact := func(format string, args ...any) {
			s := fmt.Sprintf(format, args...)
			su.Facts = append(su.Facts, who+strings.ToUpper(s[:1])+s[1:]+".")
		}
		runCommit := r.Meta[MetaCommit]
		if runCommit == "" {
			runCommit = "unknown (the run store does not record it)"
		}
		fact("code commit of the run: %s", runCommit)
		fact("%s", runDates(c.spans[ri]))
		opts, recorded := runOptions(r)
		fact("%s", runLimits(c, r, recorded))
		if recorded {
			fact("%s", opts)
		} else if extra := cmdLineChanges(r.Meta[runstore.MetaSpec]); len(extra) > 0 {
			fact("the command line of run changed the spec: %s", strings.Join(extra, "; "))
		}
		for _, b := range benchmarksOf(r, recorded) {
			fact("benchmark %s", b)
		}
	}
	su.Tables = append(su.Tables, modelsTable(c, runs), trialsTable(c, runs))
	return su
}

// runDates says when a run's work items ran: the first start and the last
// end (start plus wall time) of its items (load's span of the run), in
// UTC.
func runDates(sp span) string {
	first, last := sp.first, sp.last
	if first.IsZero() {
		return "dates unknown (no work item records its start)"
	}
	const layout = "2006-01-02 15:04:05 UTC"
	return fmt.Sprintf("work items ran from %s to %s", first.UTC().Format(layout), last.UTC().Format(layout))
}

// runOptions describes the options `run` was given that change results or
// resources (runstore.MetaRunOptions), by session; recorded is false for a store
// written before they were recorded.
func runOptions(r *runstore.RunData) (desc string, recorded bool) {
	raw, ok := r.Meta[runstore.MetaRunOptions]
	if !ok {
		return "", false
	}
	var list []string
	if err := json.Unmarshal([]byte(raw), &list); err != nil || len(list) == 0 {
		return "", false
	}
	show := make([]string, len(list))
	for i, o := range list {
		show[i] = "`" + o + "`"
		if o == "" {
			show[i] = "none"
		}
	}
	if len(list) == 1 {
		if list[0] == "" {
			return "options given to run that change results or resources: none (the spec's settings apply)", true
		}
		return "options given to run that change results or resources: " + show[0], true
	}
	return "options given to run that change results or resources, by session (a line per change): " + strings.Join(show, "; "), true
}

// runLimits gives the spec's per-item timeout, worker count and trial cap,
// the seeds and the questions per trial; recorded says the options of run
// (--workers among them) are shown beside it.
func runLimits(c *corpus, r *runstore.RunData, recorded bool) string {
	var parts []string
	text := r.Meta[runstore.MetaSpec]
	var sl specLimits
	switch {
	case text == "":
		parts = append(parts, "timeout and workers unknown (the store holds no spec text)")
	case yaml.Unmarshal([]byte(text), &sl) != nil:
		parts = append(parts, "timeout and workers unknown (the stored spec text does not parse)")
	default:
		timeout := "none"
		if sl.Timeout != "" && sl.Timeout != "0" && sl.Timeout != "0s" {
			timeout = sl.Timeout
		}
		workers := strconv.Itoa(sl.Workers)
		if sl.Workers == 0 {
			workers = fmt.Sprintf("%d (default)", spec.DefaultWorkers)
		}
		note := " (a --workers flag is not recorded)"
		if recorded {
			note = ""
		}
		parts = append(parts, "timeout per work item "+timeout+" and workers "+workers+" in the spec"+note)
		if sl.MaxTrials > 0 {
			parts = append(parts, fmt.Sprintf("max_trials %d", sl.MaxTrials))
		}
	}
	seeds := map[int64]bool{}
	for _, t := range r.Trials {
		seeds[t.Seed] = true
	}
	var ss []string
	for s := range seeds {
		ss = append(ss, strconv.FormatInt(s, 10))
	}
	sort.Slice(ss, func(i, j int) bool { a, _ := strconv.Atoi(ss[i]); b, _ := strconv.Atoi(ss[j]); return a < b })
	parts = append(parts, "trial seeds "+strings.Join(ss, ", "))
	qs := map[int]bool{}
	for i := range r.Trials {
		qs[c.trialQuestions(r, &r.Trials[i])] = true
	}
	var qn []int
	for n := range qs {
		qn = append(qn, n)
	}
	sort.Ints(qn)
	switch len(qn) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("%d questions per trial", qn[0]))
	default:
		parts = append(parts, fmt.Sprintf("%d to %d questions per trial", qn[0], qn[len(qn)-1]))
	}
	return strings.Join(parts, ", ")
}

// trialQuestions is the number of questions of a trial's plan, else (a
// store written without it) of its stored items (as load counted them).
func (c *corpus) trialQuestions(r *runstore.RunData, t *runstore.RunTrial) int {
	if n, ok := r.Totals[t.ID]; ok {
		return n
	}
	return c.items[t]
}

// cmdLineChanges returns the --models and --set lines run appended to the
// stored spec text.
func cmdLineChanges(text string) []string {
	_, rest, ok := strings.Cut(text, cmdLineMark)
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#"))
		if l != "" {
			out = append(out, "`"+l+"`")
		}
	}
	return out
}

// benchmarksOf describes each benchmark of a run: data directory, split,
// the spec's question limit and comparator settings; recorded says the
// options of run (--limit among them) are shown beside it.
func benchmarksOf(r *runstore.RunData, recorded bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range r.Trials {
		b := t.Benchmark
		raw, _ := json.Marshal(b)
		if seen[string(raw)] {
			continue
		}
		seen[string(raw)] = true
		data := "the loader's default data directory"
		if b.Data != "" {
			data = "data `" + b.Data + "`"
		}
		parts := []string{b.Key(), data}
		if b.Limit > 0 {
			parts = append(parts, fmt.Sprintf("limit %d in the spec", b.Limit))
		} else if recorded {
			parts = append(parts, "no limit in the spec")
		} else {
			parts = append(parts, "no limit in the spec (a --limit given to run is not recorded; see questions per trial)")
		}
		mode := "official comparator"
		if b.Mode != "" {
			mode = "comparator mode " + b.Mode
		}
		parts = append(parts, mode)
		if b.TieAware {
			parts = append(parts, "tie-aware top-k")
		}
		if b.MaxResultMB > 0 {
			parts = append(parts, fmt.Sprintf("result budget %d MiB", b.MaxResultMB))
		}
		if b.MySQL != nil {
			dsn := "DSN in the spec"
			if b.MySQL.DSNEnv != "" {
				dsn = "DSN from $" + b.MySQL.DSNEnv
			}
			parts = append(parts, "on MySQL/MariaDB ("+dsn+")")
		}
		out = append(out, strings.Join(parts, ", "))
	}
	return out
}

// redactURL keeps an endpoint's scheme, host, port and path, and replaces
// user information and query strings, which may hold credentials.
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "[REDACTED: not a URL]"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	if u.RawQuery != "" {
		u.RawQuery = "REDACTED"
	}
	u.Fragment = ""
	return u.String()
}

// modelSettings lists a model's non-default settings as key=value, in the
// spec's key names.
func modelSettings(m spec.ModelSpec) string {
	var kv []string
	add := func(k string, v any) { kv = append(kv, fmt.Sprintf("%s=%v", k, v)) }
	f := func(p *float64) string { return strconv.FormatFloat(*p, 'f', -1, 64) }
	if m.Backend == "sim" {
		p := spec.DefaultSimP
		if m.P != nil {
			p = *m.P
		}
		add("p", strconv.FormatFloat(p, 'f', -1, 64))
		add("seed", m.Seed)
		for _, role := range slices.Sorted(maps.Keys(m.RoleP)) {
			add("role_p."+role, strconv.FormatFloat(m.RoleP[role], 'f', -1, 64))
		}
		if m.Style != "" {
			add("style", m.Style)
		}
		for _, o := range []struct {
			k string
			v *float64
		}{{"cut_rate", m.CutRate}, {"reasoning_rate", m.ReasoningRate}, {"schema_penalty", m.SchemaPenalty},
			{"value_penalty", m.ValuePenalty}, {"evidence_penalty", m.EvidencePenalty}, {"rho", m.Rho}} {
			if o.v != nil {
				add(o.k, f(o.v))
			}
		}
		if m.Profile != "" {
			add("profile", m.Profile)
		}
	}
	if m.Timeout != 0 {
		add("timeout", m.Timeout.String())
	}
	for _, o := range []struct {
		k string
		v int
	}{{"max_retries", m.MaxRetries}, {"max_tokens", m.MaxTokens}, {"concurrency", m.Concurrency}, {"rpm", m.RPM}, {"tpm", m.TPM}} {
		if o.v != 0 {
			add(o.k, o.v)
		}
	}
	if m.MaxTokensParam != "" {
		add("max_tokens_param", m.MaxTokensParam)
	}
	if m.Structured != "" {
		add("structured", m.Structured)
	}
	if m.APIKeyEnv != "" {
		add("api_key_env", m.APIKeyEnv)
	}
	if len(kv) == 0 {
		return "defaults"
	}
	return strings.Join(kv, " ")
}

// modelsTable lists every model the trials bind: backend, served model,
// endpoint (redacted), the roles bound to it and its settings.
func modelsTable(c *corpus, runs []*runstore.RunData) *Table {
	t := &Table{ID: "setup-models", Caption: c.caption("Models: backend, served model, endpoint, the roles bound to each, and settings")}
	if len(runs) > 1 {
		t.Columns = append(t.Columns, Column{Name: "run"})
	}
	t.Columns = append(t.Columns, Column{Name: "model"}, Column{Name: "backend"}, Column{Name: "served model"},
		Column{Name: "endpoint"}, Column{Name: "roles"}, Column{Name: "settings"})
	for _, r := range runs {
		specs := map[string]spec.ModelSpec{}
		roles := map[string]map[string]bool{}
		for _, tr := range r.Trials {
			for name, m := range tr.Models {
				specs[name] = m
			}
			for role, name := range tr.Roles {
				if roles[name] == nil {
					roles[name] = map[string]bool{}
				}
				roles[name][role] = true
			}
		}
		for _, name := range slices.Sorted(maps.Keys(specs)) {
			m := specs[name]
			ep := "-"
			if m.BaseURL != "" {
				ep = redactURL(m.BaseURL)
				for _, rep := range m.Replicas {
					ep += ", " + redactURL(rep.BaseURL)
				}
			}
			served := m.Model
			if served == "" {
				served = "-"
			}
			var row []Cell
			if len(runs) > 1 {
				row = append(row, text(r.Name()))
			}
			row = append(row, text(name), text(m.Backend), text(served), text(ep), text(strings.Join(slices.Sorted(maps.Keys(roles[name])), ", ")), text(modelSettings(m)))
			t.Rows = append(t.Rows, row)
		}
	}
	t.Notes = []string{"Endpoints keep scheme, host, port and path; user information and query strings are redacted. API keys are never stored (api_key_env names the variable). settings: the spec's values; a setting not listed takes its default."}
	return t
}

// fmtParam writes a parameter value as the spec would: numbers in their
// shortest form, strings bare, lists and maps as JSON.
func fmtParam(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// trialsTable lists every trial: runner, benchmark, seed, role bindings,
// every parameter it was given, and its questions.
func trialsTable(c *corpus, runs []*runstore.RunData) *Table {
	t := &Table{ID: "setup-trials", Caption: c.caption("Trials: runner, benchmark, seed, role bindings and every parameter given")}
	if len(runs) > 1 {
		t.Columns = append(t.Columns, Column{Name: "run"})
	}
	t.Columns = append(t.Columns, Column{Name: "trial"}, Column{Name: "runner"}, Column{Name: "benchmark"}, Column{Name: "seed", Numeric: true},
		Column{Name: "roles"}, Column{Name: "parameters"}, Column{Name: "questions", Numeric: true})
	for _, r := range runs {
		for i := range r.Trials {
			tr := &r.Trials[i]
			var roles, params []string
			for _, role := range slices.Sorted(maps.Keys(tr.Roles)) {
				roles = append(roles, role+"="+tr.Roles[role])
			}
			for _, k := range slices.Sorted(maps.Keys(tr.Params)) {
				params = append(params, k+"="+fmtParam(tr.Params[k]))
			}
			ps := strings.Join(params, " ")
			if ps == "" {
				ps = "defaults"
			}
			q := integer(c.trialQuestions(r, tr))
			var row []Cell
			if len(runs) > 1 {
				row = append(row, text(r.Name()))
			}
			row = append(row, text(tr.Label), text(tr.Runner), text(tr.Benchmark.Key()), integer(int(tr.Seed)),
				text(strings.Join(roles, " ")), text(ps), q)
			t.Rows = append(t.Rows, row)
		}
	}
	t.Notes = []string{"parameters: every parameter the spec gave the trial; a parameter not listed takes the runner's default (t2sbench help runners). A role a trial does not bind runs on its reason model."}
	return t
}
