package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runstore"
)

// fakeSpec runs direct on the bundled mini benchmark with model m served
// by the fake server at $T2SBENCH_TEST_FAKE_URL under the name served,
// its key in $T2SBENCH_TEST_FAKE_KEY.
const fakeSpec = `name: fake
benchmarks: [{name: mini}]
models:
  m: {backend: openai, base_url: "${T2SBENCH_TEST_FAKE_URL}", model: NAME, api_key_env: T2SBENCH_TEST_FAKE_KEY, max_retries: 0}
roles: {reason: m}
runners:
  - name: direct
workers: WORKERS
`

func writeFakeSpec(t *testing.T, dir, model string, workers int) string {
	t.Helper()
	p := filepath.Join(dir, model+".yaml")
	text := strings.NewReplacer("NAME", model, "WORKERS", string(rune('0'+workers))).Replace(fakeSpec)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func sqlAnswer(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
	return fakeopenai.Choice{Content: "```sql\nSELECT 1\n```"}
}

// TestRunStopsOnRejection: a served-model name the server does not serve
// (404) or a wrong API key (401) stops the run at the first answer, with
// exit status 2, the server's message and what to change; the items
// finished before (here by an earlier run with the right key) are kept,
// the rest stay pending, a start that finished nothing records no trial,
// and no other request is sent.
func TestRunStopsOnRejection(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Models: []string{"served"}, APIKey: "sk-right-key-0123456789", Responder: sqlAnswer})
	t.Setenv("T2SBENCH_TEST_FAKE_URL", srv.BaseURL())
	tmp := t.TempDir()

	t.Run("wrong model name", func(t *testing.T) {
		t.Setenv("T2SBENCH_TEST_FAKE_KEY", "sk-right-key-0123456789")
		before := srv.Calls()
		var out, errb bytes.Buffer
		err := run(&out, &errb, []string{"run", writeFakeSpec(t, tmp, "nosuch", 1), "--out", filepath.Join(tmp, "wrong"), "--quiet", "--limit", "4"})
		if got := exitCode(err); got != exitUsage {
			t.Fatalf("exit status %d (err %v); want %d", got, err, exitUsage)
		}
		if !errors.Is(err, bench.ErrRejected) {
			t.Errorf("err = %v; want bench.ErrRejected", err)
		}
		for _, want := range []string{"model m (" + srv.BaseURL() + ", model \"nosuch\") answered HTTP 404", "model 'nosuch' not found",
			"set models.m.model to a name the server serves", "rerun the same command to resume"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if n := srv.Calls() - before; n != 1 {
			t.Errorf("server got %d requests; want 1 (one worker, no retry of a 404)", n)
		}
		// A start stopped before any item finished records no trial, so a
		// rerun with the right name does not list the trial twice.
		r, err := runstore.ReadRun(filepath.Join(tmp, "wrong"), false)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trials) != 0 {
			t.Errorf("trials recorded = %d; want 0 (nothing ran)", len(r.Trials))
		}
	})

	t.Run("bad key keeps finished items", func(t *testing.T) {
		dir := filepath.Join(tmp, "key")
		spec := writeFakeSpec(t, tmp, "served", 1)
		t.Setenv("T2SBENCH_TEST_FAKE_KEY", "sk-right-key-0123456789")
		var out, errb bytes.Buffer
		if err := run(&out, &errb, []string{"run", spec, "--out", dir, "--quiet", "--limit", "3"}); err != nil {
			t.Fatalf("first run: %v\n%s", err, errb.String())
		}
		t.Setenv("T2SBENCH_TEST_FAKE_KEY", "sk-wrong-key-9876543210")
		before := srv.Calls()
		out.Reset()
		errb.Reset()
		err := run(&out, &errb, []string{"run", spec, "--out", dir, "--quiet", "--limit", "6"})
		if got := exitCode(err); got != exitUsage {
			t.Fatalf("exit status %d (err %v); want %d", got, err, exitUsage)
		}
		for _, want := range []string{"answered HTTP 401", "Incorrect API key provided", "check that models.m.api_key_env names the environment variable"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if strings.Contains(err.Error()+out.String()+errb.String(), "sk-wrong-key") {
			t.Errorf("output shows the API key")
		}
		if n := srv.Calls() - before; n != 1 {
			t.Errorf("server got %d requests; want 1", n)
		}
		r, err := runstore.ReadRun(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trials) != 1 {
			t.Fatalf("trials = %d; want 1", len(r.Trials))
		}
		done := 0
		for _, it := range r.Trials[0].Items {
			if it.Status != runstore.StatusDone {
				t.Errorf("item %s is %s; want only the 3 done items committed", it.QuestionID, it.Status)
			}
			done++
		}
		if done != 3 {
			t.Errorf("committed items = %d; want the first run's 3 kept", done)
		}
		if !strings.Contains(out.String(), "direct       3       0        3") {
			t.Errorf("summary lacks 3 done and 3 pending:\n%s", out.String())
		}
	})
}

// TestRunSummaryFirstErrors: items the server refuses with a 400 (a prompt
// over the context length) fail, and the summary prints the server's
// message of the first one with what to do next.
func TestRunSummaryFirstErrors(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: sqlAnswer})
	srv.Fail(fakeopenai.Status(400, "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."),
		fakeopenai.Status(400, "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens."))
	t.Setenv("T2SBENCH_TEST_FAKE_URL", srv.BaseURL())
	t.Setenv("T2SBENCH_TEST_FAKE_KEY", "sk-any-key-0123456789")
	tmp := t.TempDir()
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"run", writeFakeSpec(t, tmp, "served", 1), "--out", filepath.Join(tmp, "run"), "--quiet", "--limit", "4"})
	if got := exitCode(err); got != exitIncomplete {
		t.Fatalf("exit status %d (err %v); want %d", got, err, exitIncomplete)
	}
	for _, want := range []string{
		"failed items by class: bad_request=2",
		"  failed bad_request (2 items; first: trial direct question ",
		"HTTP 400: This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
		"    next: the server refused the request as invalid",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// birdMiniDevTree writes a BIRD mini-dev layout: 8 questions in
// mini_dev/mini_dev_sqlite.json over db0..db3, the databases under
// dev_databases/ (empty files are empty SQLite databases).
func birdMiniDevTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	var qs []string
	for i := range 8 {
		qs = append(qs, fmt.Sprintf(`{"question_id": %d, "db_id": "db%d", "question": "q%d?", "SQL": "SELECT %d", "difficulty": "simple"}`, i, i%4, i, i))
	}
	os.MkdirAll(filepath.Join(root, "mini_dev"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "mini_dev", "mini_dev_sqlite.json"), []byte("["+strings.Join(qs, ",\n")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		d := filepath.Join(root, "dev_databases", fmt.Sprintf("db%d", i))
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("db%d.sqlite", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestRefuseMissingDatabases: eval and run given the mini_dev folder
// instead of the BIRD root (the issue's `--data .../bird/mini_dev`) refuse
// with exit status 2, naming the folder searched, the counts and the root
// as the likely fix; run creates no trial; --allow-missing-db scores
// anyway.
func TestRefuseMissingDatabases(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := birdMiniDevTree(t)
	wrong := filepath.Join(root, "mini_dev")
	head := "benchmark bird-minidev: the databases of 8 of 8 questions are missing in the data folder " + wrong + " (4 of 4 databases missing: db0, db1, db2, db3)"

	_, _, err := runCLI(t, "eval", "--benchmark", "bird-minidev", "--data", wrong, "--gold-as-pred", "--quiet", "--cache-dir", "off")
	if got := exitCode(err); got != exitUsage {
		t.Fatalf("eval: exit status %d (err %v); want %d", got, err, exitUsage)
	}
	for _, want := range []string{head, "likely fix: pass --data " + root + " (that folder holds the databases of all 8 questions)", "--allow-missing-db"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("eval error lacks %q:\n%v", want, err)
		}
	}
	if _, stderr, err := runCLI(t, "eval", "--benchmark", "bird-minidev", "--data", wrong, "--gold-as-pred", "--quiet", "--cache-dir", "off", "--allow-missing-db"); err != nil {
		t.Errorf("eval --allow-missing-db: %v; want exit 0\n%s", err, stderr)
	}
	if stdout, _, err := runCLI(t, "eval", "--benchmark", "bird-minidev", "--data", root, "--gold-as-pred", "--quiet", "--cache-dir", "off"); err != nil || !strings.Contains(stdout, "8 correct / 8 attempted") {
		t.Errorf("eval on the root: err %v; want 8 of 8 correct:\n%s", err, stdout)
	}

	tmp := t.TempDir()
	spec := filepath.Join(tmp, "spec.yaml")
	os.WriteFile(spec, []byte(`name: wrongdata
benchmarks: [{name: bird-minidev, data: `+wrong+`}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners: [{name: direct}]
`), 0o644)
	dir := filepath.Join(tmp, "run")
	var out, errb bytes.Buffer
	err = run(&out, &errb, []string{"run", spec, "--out", dir, "--quiet"})
	if got := exitCode(err); got != exitUsage {
		t.Fatalf("run: exit status %d (err %v); want %d", got, err, exitUsage)
	}
	for _, want := range []string{head, "likely fix: set data: " + root + " on benchmark bird-minidev in the spec, or pass --benchmark bird-minidev=" + root} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("run error lacks %q:\n%v", want, err)
		}
	}
	if r, err := runstore.ReadRun(dir, false); err == nil && len(r.Trials) != 0 {
		t.Errorf("run created %d trials; want none", len(r.Trials))
	}
	out.Reset()
	if err := run(&out, &errb, []string{"run", spec, "--out", dir, "--quiet", "--allow-missing-db"}); err != nil {
		t.Errorf("run --allow-missing-db: %v; want exit 0", err)
	}
	if !strings.Contains(out.String(), "missing_db 8") {
		t.Errorf("run --allow-missing-db summary lacks missing_db 8:\n%s", out.String())
	}
}

// TestRunSummaryParseFailures: alphasql against a server whose every
// answer is prose (no JSON object, no SQL) finishes, and the summary
// lists the trial's parse failures by role and action: one keyword
// answer per question among them.
func TestRunSummaryParseFailures(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
		return fakeopenai.Choice{Content: "The singer table answers this; count the rows where the country is France."}
	}})
	t.Setenv("T2SBENCH_TEST_FAKE_URL", srv.BaseURL())
	t.Setenv("T2SBENCH_TEST_FAKE_KEY", "sk-any-key-0123456789")
	tmp := t.TempDir()
	spec := writeFakeSpec(t, tmp, "served", 2)
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"run", spec, "--out", filepath.Join(tmp, "run"), "--quiet", "--limit", "2",
		"--set", "runners.0.name=alphasql", "--set", "runners.0.params.n_rollout=2"})
	if err != nil && !errors.Is(err, errIncomplete) {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"structured answers that did not parse, by trial",
		"  alphasql: reason.A1 ",
		"reason.keywords 2 (in 2 items)",
		"reason.A5 ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
