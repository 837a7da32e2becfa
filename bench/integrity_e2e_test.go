package bench_test

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/reports"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	"github.com/t2sbench/t2sbench/runstore"
)

// integritySpec runs three baselines with sim on the bundled mini
// benchmark: one sample per item for direct and cot, three for sc.
const integritySpec = `name: integrity
benchmarks: [{name: mini}]
models: {sim: {backend: sim, p: 0.6, seed: 7}}
roles: {reason: sim}
runners:
  - name: direct
  - name: cot
  - name: sc
    params: {k: 3, temperature: 0.8}
workers: 2
`

// integrityLimit keeps the first questions of mini: 3 trials x 12 items.
const integrityLimit = 12

// flipBlobs flips one bit in the middle of every value of column col of
// table in the SQLite file at path (each row found by its rowid or, for a
// table without one, by key, the columns of its primary key), and returns
// how many values it changed.
func flipBlobs(t *testing.T, path, table, col, key string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT ` + key + `, ` + col + ` FROM ` + table + ` WHERE ` + col + ` IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	nkey := len(strings.Split(key, ","))
	type row struct {
		key []any
		v   []byte
	}
	var rs []row
	for rows.Next() {
		r := row{key: make([]any, nkey)}
		dest := make([]any, nkey+1)
		for i := range r.key {
			dest[i] = &r.key[i]
		}
		dest[nkey] = &r.v
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	rows.Close()
	where := strings.ReplaceAll(key, ",", " = ? AND ") + " = ?"
	for _, r := range rs {
		r.v[len(r.v)/2] ^= 0x04
		if _, err := db.Exec(`UPDATE `+table+` SET `+col+` = ? WHERE `+where, append([]any{r.v}, r.key...)...); err != nil {
			t.Fatal(err)
		}
	}
	return len(rs)
}

// countRows returns the result of an integer query on the SQLite file at
// path.
func countRows(t *testing.T, path, query string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// integrityVerdicts runs the spec into dir and returns its verdicts
// (trial -> question -> correct) and its summary's EX per trial.
func integrityVerdicts(t *testing.T, dir string) (map[string]map[string]bool, map[string]float64) {
	t.Helper()
	p := benchkit.Plan(t, benchkit.Spec(t, integritySpec, "integrity.yaml"))
	sum, err := benchkit.Run(t, dir, p, bench.Options{Limit: integrityLimit})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Errored != 0 {
		t.Errorf("run: %d failed, %d errored items; want none", sum.Failed, sum.Errored)
	}
	_, v, err := runstore.LoadRunVerdicts(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := runstore.SummarizeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ex := map[string]float64{}
	for _, r := range rows {
		ex[r.Label] = r.EX
	}
	return v, ex
}

// TestDamagedCachesAreAskedAgain fills the model cache and the gold
// cache with a real run (DefaultEnv, sim, mini), flips a bit in every
// blob of both (the compressed samples and stored prompts of the model
// cache, its paragraphs, every gold entry), and runs again from scratch
// (what `run --fresh` does: the results cleared, the caches kept). Every
// sample is asked again (no call of the second run is answered from the
// cache) and every gold executed again; every verdict, and so EX, equals
// the clean run's; and the summary and the report count what was asked
// again. Served as they were, the damaged blobs gave garbled SQL and
// "truncated value" failures.
func TestDamagedCachesAreAskedAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clean, cleanEX := integrityVerdicts(t, dir)

	models := filepath.Join(dir, "cache", runstore.ModelCacheFile)
	golds := filepath.Join(dir, "cache", "gold", metrics.GoldCacheFile)
	samples := countRows(t, models, `SELECT sum(n) FROM samples`)
	entries := countRows(t, golds, `SELECT count(*) FROM entries`)
	flipped := flipBlobs(t, models, "samples", "v", "rk, first")
	flipBlobs(t, models, "samples", "p", "rk, first")
	flipBlobs(t, models, "paragraphs", "v", "id")
	flipBlobs(t, golds, "entries", "value", "key")
	if flipped == 0 || entries == 0 {
		t.Fatalf("flipped %d sample rows, %d gold entries; want the caches filled", flipped, entries)
	}

	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Reset(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	again, againEX := integrityVerdicts(t, dir)
	if !reflect.DeepEqual(again, clean) {
		t.Errorf("verdicts after damage differ from the clean run's:\n got  %v\n want %v", again, clean)
	}
	if !reflect.DeepEqual(againEX, cleanEX) {
		t.Errorf("EX after damage: %v; want the clean run's %v", againEX, cleanEX)
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.CallLog.Cached != 0 || r.CallLog.Calls == 0 {
		t.Errorf("second run: %d of %d calls answered from the cache; want none (every sample asked again)", r.CallLog.Cached, r.CallLog.Calls)
	}
	want := runstore.Integrity{SamplesReasked: samples, GoldsReexecuted: entries}
	if r.Integrity != want {
		t.Errorf("integrity counts %+v; want %+v (every stored sample and gold entry)", r.Integrity, want)
	}
	sr, rows, err := runstore.SummarizeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	runstore.WriteSummary(&out, sr, rows)
	for _, line := range want.Lines() {
		if !strings.Contains(out.String(), line) {
			t.Errorf("summary does not say %q:\n%s", line, out.String())
		}
	}
	rep, err := reports.Build([]*runstore.RunData{r}, reports.Options{Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, want.Lines()[0]) {
		t.Errorf("report warnings %q; want the re-asked samples counted", w)
	}
	// The caches hold sound entries again.
	checks, err := runstore.VerifyRun(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks[1:] {
		if c.Mismatch != 0 {
			t.Errorf("%s after the run: %+v; want every damaged entry replaced", c.Store, c)
		}
	}
}

// TestDamagedResultIsRedone: a run's stored result damaged on disk (one
// bit of its compressed result flipped) is redone when the run resumes:
// the item runs again in the new session, its verdict equals the clean
// one, and the run counts it. Before checksums the resume kept the
// damaged row as done.
func TestDamagedResultIsRedone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clean, _ := integrityVerdicts(t, dir)
	store := filepath.Join(dir, runstore.StoreFile)
	db, err := sql.Open("sqlite3", "file:"+store)
	if err != nil {
		t.Fatal(err)
	}
	var trial, question string
	var v []byte
	if err := db.QueryRow(`SELECT trial_id, question_id, result FROM results ORDER BY trial_id, question_id LIMIT 1 OFFSET 5`).Scan(&trial, &question, &v); err != nil {
		t.Fatal(err)
	}
	v[len(v)/2] ^= 0x04
	if _, err := db.Exec(`UPDATE results SET result = ? WHERE trial_id = ? AND question_id = ?`, v, trial, question); err != nil {
		t.Fatal(err)
	}
	db.Close()

	again, _ := integrityVerdicts(t, dir)
	if !reflect.DeepEqual(again, clean) {
		t.Errorf("verdicts after the resume differ from the clean run's:\n got  %v\n want %v", again, clean)
	}
	r, err := runstore.ReadRun(dir, true)
	if err != nil {
		t.Fatalf("reading the resumed run: %v", err)
	}
	for _, tr := range r.Trials {
		for _, it := range tr.Items {
			redone := tr.ID == trial && it.QuestionID == question
			if redone != (it.Session == 2) {
				t.Errorf("item %s/%s: session %d; want %s", tr.Label, it.QuestionID, it.Session, map[bool]string{true: "2 (redone)", false: "1 (kept)"}[redone])
			}
		}
	}
	if r.Integrity.ResultsRedone != 1 {
		t.Errorf("results redone = %d; want 1", r.Integrity.ResultsRedone)
	}
}
