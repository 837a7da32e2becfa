package runstore

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/sqltext"
	"github.com/t2sbench/t2sbench/spec"
)

// formatItems are items of two trials on one benchmark: done, failed and
// errored items, a gold that does not run, a nondeterministic gold, a
// result without usage (its usage comes from the call log), and a search
// item whose trace repeats its prompt, as Alpha-SQL's and IESR's do.
func formatItems() []*Item {
	prompt := strings.Repeat("CREATE TABLE singer (singer_id INTEGER, name TEXT, country TEXT, age INTEGER)\n", 20)
	var steps []runners.Step
	for i := 0; i < 40; i++ {
		steps = append(steps, runners.Step{Action: "expand", Role: "reason", Input: prompt + "Question: how many singers?", Output: "SELECT count(*) FROM singer"})
	}
	usage := map[string]runners.RoleUsage{"reason": {Calls: 2, PromptTokens: 30, CompletionTokens: 5, Latency: 1500 * time.Microsecond, Samples: 2}}
	v := func(q, st string, correct bool, flags ...string) *Verdict {
		return &Verdict{QuestionID: q, DBID: "db", Status: metrics.Status(st), Correct: correct, Difficulty: "easy", GoldFlags: flags}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	return []*Item{
		{TrialID: "a", QuestionID: "q1", Index: 0, Status: StatusDone, Attempts: 1, Started: at, WallMS: 12.5, Verdict: v("q1", "ok", true),
			Result: &runners.Result{SQL: "SELECT count(*) FROM singer", Usage: usage, Extraction: sqltext.ReasonLastCorrection,
				Candidates: []runners.Candidate{{SQL: "SELECT 1", Score: 0.5, Group: "g"}},
				Trace:      runners.Trace{Steps: steps, Counters: map[string]float64{"rollouts": 24, "parse_failed.reason.expand": 2}, Data: map[string]any{"tree": "x"}}},
			Calls: []Call{{Role: "reason", N: 1, PromptTokens: 15, CompletionTokens: 2, LatencyMS: 0.7, CacheKey: strings.Repeat("ab", 32)},
				{Role: "reason", N: 1, Cached: true, PromptTokens: 15, CompletionTokens: 3, LatencyMS: 0.8, CacheKey: "not-a-hash"}}},
		{TrialID: "a", QuestionID: "q2", Index: 1, Status: StatusDone, Attempts: 1, Started: at, Verdict: v("q2", "ok", false, "limit_tie"),
			Result: &runners.Result{SQL: "SELECT 2"}, // no usage: reports count the calls
			Calls:  []Call{{Role: "judge", N: 3, PromptTokens: 7, CompletionTokens: 1, LatencyMS: 2.25}}},
		{TrialID: "a", QuestionID: "q3", Index: 2, Status: StatusFailed, ErrorClass: "model_rejected", Error: "HTTP 400", Attempts: 1, Started: at,
			Verdict: v("q3", "pred_error", false)},
		{TrialID: "a", QuestionID: "q4", Index: 3, Status: StatusDone, Attempts: 1, Started: at, Verdict: v("q4", "missing_db", false),
			Result: &runners.Result{Note: "database unavailable"}},
		{TrialID: "b", QuestionID: "q1", Index: 0, Status: StatusDone, Attempts: 1, Started: at, Verdict: v("q1", "ok", false),
			Result: &runners.Result{SQL: "SELECT 3", Usage: usage, Extraction: sqltext.ReasonSingle, Trace: runners.Trace{Counters: map[string]float64{"turns": 3}}}},
		{TrialID: "b", QuestionID: "q2", Index: 1, Status: StatusDone, Attempts: 1, Started: at, Verdict: v("q2", "ok", true, "limit_tie"),
			Result: &runners.Result{SQL: "SELECT 2"}},
		{TrialID: "a", QuestionID: "q5", Index: 4, Status: StatusDone, Attempts: 1, Started: at, Verdict: v("q5", "ok", true),
			Result: &runners.Result{SQL: "SELECT 5", Usage: usage}},
		{TrialID: "b", QuestionID: "q5", Index: 4, Status: StatusDone, Attempts: 1, Started: at, Verdict: v("q5", "ok", false),
			Result: &runners.Result{SQL: "SELECT 6", Usage: usage}},
		{TrialID: "b", QuestionID: "q3", Index: 2, Status: StatusError, ErrorClass: "endpoint_down", Error: "refused", Attempts: 2, Started: at},
	}
}

func formatTrials() []*spec.Trial {
	return []*spec.Trial{
		{ID: "a", Label: "alpha", Runner: "alphasql", Benchmark: spec.BenchmarkSpec{Name: "fake"}, Order: 0},
		{ID: "b", Label: "direct", Runner: "direct", Benchmark: spec.BenchmarkSpec{Name: "fake"}, Order: 1},
	}
}

// eachFormatStore runs fn in a parallel subtest per store format
// ("compressed", then "legacy") on a store writeFormatStore wrote in a
// directory of the subtest's own.
func eachFormatStore(t *testing.T, fn func(t *testing.T, dir string, legacy bool)) {
	for _, legacy := range []bool{false, true} {
		name := map[bool]string{false: "compressed", true: "legacy"}[legacy]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFormatStore(t, dir, legacy)
			fn(t, dir, legacy)
		})
	}
}

// execStore runs stmts, in order, on the store of dir.
func execStore(t *testing.T, dir string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// writeFormatStore writes formatItems through the store; legacy rewrites
// every result as stores made before compression held it (JSON text in
// items.result, no digest, cache keys as text).
func writeFormatStore(t *testing.T, dir string, legacy bool) {
	t.Helper()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutTrials(formatTrials()); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMeta(map[string]string{"name": "format", "items:a": "5", "items:b": "5"}); err != nil {
		t.Fatal(err)
	}
	for _, it := range formatItems() {
		if err := st.Commit(it); err != nil {
			t.Fatal(err)
		}
	}
	// A call of an item never committed.
	if _, err := st.CallStarted("b", "q4", Call{Role: "reason", N: 1}); err != nil {
		t.Fatal(err)
	}
	if legacy {
		err = st.write(func(tx *sql.Tx) error {
			for _, it := range formatItems() {
				if it.Result == nil {
					continue
				}
				raw, err := json.Marshal(it.Result)
				if err != nil {
					return err
				}
				if _, err := tx.Exec(`UPDATE items SET result = ?, digest = NULL WHERE trial_id = ? AND question_id = ?`, string(raw), it.TrialID, it.QuestionID); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(`DELETE FROM results`); err != nil {
				return err
			}
			_, err := tx.Exec(`UPDATE model_calls SET cache_key = lower(hex(cache_key)) WHERE typeof(cache_key) = 'blob'`)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStoreFormats reads a store in today's format (compressed results in
// their own table, digests, binary cache keys) and one in the format
// before it: every reader gives back what was committed.
func TestStoreFormats(t *testing.T) {
	want := map[string]*Item{}
	for _, it := range formatItems() {
		want[it.TrialID+"/"+it.QuestionID] = it
	}
	for _, legacy := range []bool{false, true} {
		name := map[bool]string{false: "compressed", true: "legacy"}[legacy]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFormatStore(t, dir, legacy)
			db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, StoreFile)+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			var raw []byte
			if legacy {
				err = db.QueryRow(`SELECT result FROM items WHERE trial_id = 'a' AND question_id = 'q1'`).Scan(&raw)
			} else {
				err = db.QueryRow(`SELECT result FROM results WHERE trial_id = 'a' AND question_id = 'q1'`).Scan(&raw)
			}
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(want["a/q1"].Result)
			if got := bytes.HasPrefix(raw, resultMagic); got == legacy {
				t.Errorf("stored result begins %q; want compressed %v", raw[:3], !legacy)
			}
			// The search item's 40 repeated prompts: DEFLATE finds them.
			if !legacy && len(raw)*10 > len(js) {
				t.Errorf("compressed result is %d bytes of %d of JSON; want under a tenth", len(raw), len(js))
			}

			full, err := ReadRunMode(dir, ReadResults)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := ReadRunMode(dir, ReadReport)
			if err != nil {
				t.Fatal(err)
			}
			for ti, tr := range full.Trials {
				for j, it := range tr.Items {
					w := want[it.TrialID+"/"+it.QuestionID]
					if !reflect.DeepEqual(it.Result, w.Result) {
						t.Errorf("ReadResults %s/%s result = %+v; want %+v", it.TrialID, it.QuestionID, it.Result, w.Result)
					}
					if !reflect.DeepEqual(it.Verdict, w.Verdict) {
						t.Errorf("ReadResults %s/%s verdict = %+v; want %+v", it.TrialID, it.QuestionID, it.Verdict, w.Verdict)
					}
					if len(it.Calls) != len(w.Calls) {
						t.Errorf("ReadResults %s/%s has %d calls; want %d", it.TrialID, it.QuestionID, len(it.Calls), len(w.Calls))
					}
					for k := range min(len(it.Calls), len(w.Calls)) {
						if got := it.Calls[k].CacheKey; got != w.Calls[k].CacheKey {
							t.Errorf("%s/%s call %d cache key %q; want %q", it.TrialID, it.QuestionID, k, got, w.Calls[k].CacheKey)
						}
					}
					r := rep.Trials[ti].Items[j]
					var wr *runners.Result
					if w.Result != nil {
						wr = &runners.Result{SQL: w.Result.SQL, Extraction: w.Result.Extraction, Usage: w.Result.Usage, Trace: runners.Trace{Counters: w.Result.Trace.Counters}}
					}
					if !reflect.DeepEqual(r.Result, wr) {
						t.Errorf("ReadReport %s/%s result = %+v; want SQL, extraction, usage and counters only, %+v", r.TrialID, r.QuestionID, r.Result, wr)
					}
					// Calls only where the result has no usage.
					wantCalls := 0
					if wr == nil || len(wr.Usage) == 0 {
						wantCalls = len(w.Calls)
					}
					if len(r.Calls) != wantCalls {
						t.Errorf("ReadReport %s/%s has %d calls; want %d", r.TrialID, r.QuestionID, len(r.Calls), wantCalls)
					}
				}
			}
			if len(full.LooseCalls) != 1 || len(rep.LooseCalls) != 0 {
				t.Errorf("loose calls: ReadResults %d, ReadReport %d; want 1 and 0", len(full.LooseCalls), len(rep.LooseCalls))
			}

			ir, err := OpenItemReader(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ir.Close()
			it, ok, err := ir.Item(context.Background(), "a", "q1")
			if err != nil || !ok || !reflect.DeepEqual(it.Result, want["a/q1"].Result) {
				t.Errorf("ItemReader.Item(a, q1) = %+v, %v, %v; want the committed result", it, ok, err)
			}
			calls, err := ir.QuestionCalls(context.Background(), "q1")
			if err != nil || len(calls["a"]) != 2 || calls["a"][0].CacheKey != strings.Repeat("ab", 32) || calls["a"][1].CacheKey != "not-a-hash" {
				t.Errorf("QuestionCalls(q1) = %+v, %v; want the two calls of a with their cache keys", calls, err)
			}
		})
	}
}

// TestSummarizeDir checks that the streaming summary equals the summary of
// the whole run read with results (what status printed before), in both
// store formats, and that the summary text is the same.
func TestSummarizeDir(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		dir := t.TempDir()
		writeFormatStore(t, dir, legacy)
		full, err := ReadRun(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		want := Summarize(full)
		r, got, err := SummarizeDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("legacy %v: SummarizeDir rows\n%+v\nwant (Summarize of ReadRun)\n%+v", legacy, got, want)
		}
		if r.CallLog != full.CallLog {
			t.Errorf("legacy %v: call log %+v; want %+v", legacy, r.CallLog, full.CallLog)
		}
		// The two trials pair on q1, q2 and q5 (a: right, wrong, right;
		// b: wrong, right, wrong), counted by hand: b=2, c=1.
		if got[1].B != 2 || got[1].C != 1 || got[1].Baseline != "alpha" {
			t.Errorf("legacy %v: direct vs alpha b=%d c=%d baseline %q; want 2, 1, alpha", legacy, got[1].B, got[1].C, got[1].Baseline)
		}
		var a, b bytes.Buffer
		WriteSummary(&a, full, want)
		WriteSummary(&b, r, got)
		if a.String() != b.String() {
			t.Errorf("legacy %v: summary text\n%s\nwant\n%s", legacy, b.String(), a.String())
		}
		if !strings.Contains(b.String(), "model_rejected=1") || !strings.Contains(b.String(), "endpoint_down=1") {
			t.Errorf("legacy %v: summary lacks the failure classes:\n%s", legacy, b.String())
		}

		sys, err := LoadRunSystems(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range sys {
			o := TrialOutcomes(&full.Trials[i], full.Totals[full.Trials[i].ID])
			if !reflect.DeepEqual(s.Correct, o.Correct) || !reflect.DeepEqual(s.Failed, o.Failed) || !reflect.DeepEqual(s.Tally, o.Tally) || s.Pending != o.Pending {
				t.Errorf("legacy %v: LoadRunSystems %s = %+v; want the outcomes %+v", legacy, s.Label, s, o)
			}
		}
	}
}

// TestMergeCarriesFormat merges a legacy store into a new one: the results
// move to their table there, the long one compressed, each digested, and
// read back whole.
func TestMergeCarriesFormat(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	writeFormatStore(t, src, true)
	if _, err := Merge(out, src); err != nil {
		t.Fatal(err)
	}
	a, err := ReadRun(src, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadRun(out, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Trials {
		for j := range a.Trials[i].Items {
			x, y := a.Trials[i].Items[j], b.Trials[i].Items[j]
			if !reflect.DeepEqual(x.Result, y.Result) {
				t.Errorf("merged %s/%s result = %+v; want %+v", y.TrialID, y.QuestionID, y.Result, x.Result)
			}
		}
	}
	inline, digests, compressed, text := resultEncodings(t, out)
	// formatItems has 7 items with a result; one of them (a/q1, its 40
	// prompts) is over compressMin bytes of JSON, the 6 others under.
	if inline != 0 || compressed != 1 || text != 6 || digests != 7 {
		t.Errorf("merged store: %d results inline, %d compressed, %d as JSON text, %d digests; want 0, 1, 6, 7", inline, compressed, text, digests)
	}
}

// TestStoredJSON rejects an unknown encoding with an error instead of
// decoding garbage.
func TestStoredJSON(t *testing.T) {
	for _, tc := range []struct {
		in      []byte
		want    string
		wantErr bool
	}{
		{in: []byte(`{"sql":"SELECT 1"}`), want: `{"sql":"SELECT 1"}`},
		{in: []byte{0, 'z', '9', 1, 2}, wantErr: true},
		{in: append(append([]byte{}, resultMagic...), 0xff, 0xff), wantErr: true},
	} {
		got, err := storedJSON(tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && string(got) != tc.want) {
			t.Errorf("storedJSON(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestCompressJSON stores JSON under compressMin bytes as itself, longer
// JSON compressed: under compressFastMax bytes at flate.BestSpeed, else at
// the default level, byte for byte as stores written before levels
// differed; storedJSON gives back each.
func TestCompressJSON(t *testing.T) {
	long := func(n int) []byte { return []byte(`{"a":"` + strings.Repeat("x", n-8) + `"}`) }
	sc, err := json.Marshal(commitItems(t)[1].Result)
	if err != nil {
		t.Fatal(err)
	}
	const stored = -100 // not compressed
	for _, tc := range []struct {
		name  string
		in    []byte
		level int
	}{
		{name: "tiny", in: []byte(`{"a":1}`), level: stored},
		{name: "just under", in: long(compressMin - 1), level: stored},
		{name: "at the bound", in: long(compressMin), level: flate.BestSpeed},
		{name: "sc item", in: sc, level: flate.BestSpeed},
		{name: "under the fast bound", in: long(compressFastMax - 1), level: flate.BestSpeed},
		{name: "at the fast bound", in: long(compressFastMax), level: flate.DefaultCompression},
		{name: "long", in: long(10 * compressFastMax), level: flate.DefaultCompression},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := compressJSON(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			compressed := tc.level != stored
			if got := bytes.HasPrefix(enc, resultMagic); got != compressed {
				t.Errorf("compressJSON(%d bytes) compressed %v; want %v", len(tc.in), got, compressed)
			}
			if !compressed && !bytes.Equal(enc, tc.in) {
				t.Errorf("compressJSON(%d bytes) = %d bytes; want the JSON itself", len(tc.in), len(enc))
			}
			if compressed {
				var want bytes.Buffer
				want.Write(resultMagic)
				w, _ := flate.NewWriter(&want, tc.level)
				w.Write(tc.in)
				w.Close()
				if !bytes.Equal(enc, want.Bytes()) {
					t.Errorf("compressJSON(%d bytes) = %d bytes; want the %d bytes of flate level %d", len(tc.in), len(enc), want.Len(), tc.level)
				}
			}
			if got, err := storedJSON(enc); err != nil || !bytes.Equal(got, tc.in) {
				t.Errorf("storedJSON(compressJSON(x)) = %d bytes, %v; want x (%d bytes)", len(got), err, len(tc.in))
			}
		})
	}
}

// TestMigrateResults opens a legacy store for writing: its results move
// to table results, the long one compressed, with digests, and read back
// unchanged.
func TestMigrateResults(t *testing.T) {
	dir := t.TempDir()
	writeFormatStore(t, dir, true)
	before, err := ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	inline, digests, compressed, text := resultEncodings(t, dir)
	// formatItems has 7 items with a result; one (a/q1) is over
	// compressMin bytes of JSON.
	if inline != 0 || digests != 7 || compressed != 1 || text != 6 {
		t.Errorf("after migration: %d results inline, %d digests, %d compressed, %d as JSON text; want 0, 7, 1, 6", inline, digests, compressed, text)
	}
	after, err := ReadRun(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range before.Trials {
		for j, x := range before.Trials[i].Items {
			y := after.Trials[i].Items[j]
			if !reflect.DeepEqual(x.Result, y.Result) || !reflect.DeepEqual(x.Verdict, y.Verdict) {
				t.Errorf("%s/%s after migration: result %+v verdict %+v; want %+v, %+v", y.TrialID, y.QuestionID, y.Result, y.Verdict, x.Result, x.Verdict)
			}
		}
	}
}

// TestItemCountersSQL sums a counter in SQLite through itemCountersSQL,
// in both store formats: formatItems' item a/q1 counts 2 parse failures.
func TestItemCountersSQL(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		dir := t.TempDir()
		writeFormatStore(t, dir, legacy)
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, StoreFile)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		expr, err := itemCountersSQL(db, "i")
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		var items int
		err = db.QueryRow(`SELECT coalesce(sum(j.value), 0), count(DISTINCT i.trial_id || '/' || i.question_id)
			FROM items i, json_each(`+expr+`) AS j WHERE j.key LIKE 'parse_failed.%'`).Scan(&sum, &items)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sum != 2 || items != 1 {
			t.Errorf("legacy %v: parse_failed sum %v over %d items; want 2 over 1", legacy, sum, items)
		}
	}
}

// TestExtractionBeforeReasons: a store written before runners recorded
// how their SQL was found (digests and results without "extraction", as
// both layouts held them) still reads, every answer with an empty reason,
// which sqltext.CountReasons counts as unrecorded; today's rows read back
// the reason the runner recorded.
func TestExtractionBeforeReasons(t *testing.T) {
	t.Parallel()
	eachFormatStore(t, func(t *testing.T, dir string, legacy bool) {
		read := func() sqltext.ReasonCounts {
			rd, err := ReadRunMode(dir, ReadReport)
			if err != nil {
				t.Fatal(err)
			}
			var rs []sqltext.Reason
			for _, tr := range rd.Trials {
				for _, it := range tr.Items {
					if it.Result != nil {
						rs = append(rs, it.Result.Extraction)
					}
				}
			}
			return sqltext.CountReasons(rs)
		}
		// formatItems: 7 results, a/q1 last_correction, b/q1 single.
		want := sqltext.ReasonCounts{sqltext.ReasonLastCorrection: 1, sqltext.ReasonSingle: 1, sqltext.ReasonUnrecorded: 5}
		if got := read(); !reflect.DeepEqual(got, want) {
			t.Errorf("got reasons %v; want %v", got, want)
		}
		// Strip the field as an older version wrote the rows.
		stmt := `UPDATE items SET digest = json_remove(digest, '$.extraction') WHERE digest IS NOT NULL`
		if legacy {
			stmt = `UPDATE items SET result = json_remove(result, '$.extraction') WHERE result IS NOT NULL`
		}
		execStore(t, dir, stmt)
		want = sqltext.ReasonCounts{sqltext.ReasonUnrecorded: 7}
		if got := read(); !reflect.DeepEqual(got, want) {
			t.Errorf("old rows: got reasons %v; want %v", got, want)
		}
	})
}

// TestMergeSharesShardLocks: two merges may read one shard at once (each
// holds its lock shared), and a run cannot open the shard meanwhile.
func TestMergeSharesShardLocks(t *testing.T) {
	t.Parallel()
	shard := t.TempDir()
	writeFormatStore(t, shard, false)
	other, err := lockShard(shard) // a merge reading the shard
	if err != nil {
		t.Fatal(err)
	}
	defer other.release()
	if _, err := Merge(filepath.Join(t.TempDir(), "merged"), shard); err != nil {
		t.Errorf("merge beside another merge of the shard: %v; want it to succeed", err)
	}
	if st, err := OpenStore(shard); !errors.Is(err, ErrLocked) {
		if err == nil {
			st.Close()
		}
		t.Errorf("a run while a merge reads the shard: err %v; want ErrLocked", err)
	}
}

// resultEncodings counts, in the store of dir, the items that still hold
// their result inline and those with a digest, and the stored results
// compressed (resultMagic) and kept as JSON text.
func resultEncodings(t *testing.T, dir string) (inline, digests, compressed, text int) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, StoreFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT count(result), count(digest) FROM items`).Scan(&inline, &digests); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM results WHERE substr(result, 1, 3) = ?`, resultMagic).Scan(&compressed); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM results WHERE hex(substr(result, 1, 1)) = '7B'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	return inline, digests, compressed, text
}
