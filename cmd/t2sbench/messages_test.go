package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// TestMessagesSayWhatToDo: each message of a new user's first mistakes
// names what to do, with the exit status the README's table gives: the
// folder to pass for a --data one level too high, "did you mean" for a
// misspelt spec key, runner, benchmark, flag or command, --limit for a
// prediction file answering the first questions; and a JSON list of
// predictions is scored in question order.
func TestMessagesSayWhatToDo(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// A Spider folder (questions and schema file only) inside a data
	// directory, as scripts/fetch-datasets.sh lays it out.
	spider := filepath.Join(tmp, "data", "spider")
	os.MkdirAll(spider, 0o755)
	os.WriteFile(filepath.Join(spider, "dev.json"), []byte(`[{"db_id": "concert_singer", "question": "How many singers are there?", "query": "SELECT count(*) FROM singer"}]`), 0o644)
	os.WriteFile(filepath.Join(spider, "tables.json"), []byte("[]"), 0o644)

	spec := func(name, body string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "models: {sim: {backend: sim}}\nroles: {reason: sim}\n"
	typo := spec("typo.yaml", "name: typo\nbenchmarks: [{name: mini}]\n"+head+"runners:\n  - name: sc\n    sweeep: {k: [1, 2, 3]}\n")
	badBench := spec("bench.yaml", "name: bench\nbenchmarks: [{name: minii}]\n"+head+"runners: [{name: direct}]\n")
	badRunner := spec("runner.yaml", "name: runner\nbenchmarks: [{name: mini}]\n"+head+"runners: [{name: scc}]\n")

	// The gold SQL of the first four mini questions as a JSON list.
	b, err := datasets.Open("mini", "", datasets.LoadOptions{Limit: 4, CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	var golds []string
	for _, ex := range b.Examples {
		golds = append(golds, ex.GoldSQL)
	}
	b.Engine.Close()
	list, _ := json.Marshal(golds)
	listFile := filepath.Join(tmp, "preds.json")
	os.WriteFile(listFile, list, 0o644)

	tests := []struct {
		name string
		args []string
		want int
		msgs []string
	}{
		{"--data one level too high", []string{"eval", "--benchmark", "spider", "--data", filepath.Join(tmp, "data"), "--gold-as-pred"}, exitUsage,
			[]string{"open " + filepath.Join(tmp, "data", "dev.json"), "spider/ inside it is: pass --data " + spider}},
		{"--data two levels too high", []string{"eval", "--benchmark", "spider", "--data", tmp, "--gold-as-pred"}, exitUsage,
			[]string{"data/spider/ inside it is: pass --data " + spider}},
		{"--data holding no benchmark", []string{"eval", "--benchmark", "spider", "--data", filepath.Join(tmp, "cache"), "--gold-as-pred"}, exitRuntime,
			[]string{"t2sbench datasets list --data " + filepath.Join(tmp, "cache")}},
		{"spec key", []string{"run", typo, "--out", filepath.Join(tmp, "r1")}, exitUsage,
			[]string{"typo.yaml:7: runners[0].sweeep: unknown key \"sweeep\" (did you mean \"sweep\"?)"}},
		{"spec benchmark", []string{"run", badBench, "--out", filepath.Join(tmp, "r2")}, exitUsage,
			[]string{"bench.yaml:2: benchmarks[0].name: unknown benchmark \"minii\" (did you mean \"mini\"?)"}},
		{"spec runner", []string{"run", badRunner, "--out", filepath.Join(tmp, "r3")}, exitUsage,
			[]string{"runner.yaml:5: runners[0]: unknown runner \"scc\" (did you mean \"sc\"?)"}},
		{"--set key", []string{"run", badRunner, "--out", filepath.Join(tmp, "r4"), "--set", "workres=2"}, exitUsage,
			[]string{"--set workres=2: workres: unknown key (did you mean \"workers\"?)"}},
		{"eval benchmark", []string{"eval", "--benchmark", "birds", "--gold-as-pred"}, exitUsage, []string{"unknown benchmark \"birds\" (did you mean \"bird\"?)"}},
		{"run --benchmark", []string{"run", badRunner, "--benchmark", "spidr"}, exitUsage, []string{"--benchmark: unknown benchmark \"spidr\" (did you mean \"spider\"?)"}},
		{"flag", []string{"eval", "--benchmark", "mini", "--limti", "3"}, exitUsage, []string{"-limti (did you mean --limit?)"}},
		{"command", []string{"evl"}, exitUsage, []string{"unknown command \"evl\" (did you mean \"eval\"?)"}},
		{"JSON list", []string{"eval", "--benchmark", "mini", "--pred", listFile, "--limit", "4", "--quiet", "--cache-dir", "off"}, exitOK,
			[]string{"4 of 4 questions scored", "EX 100.00% (4 correct / 4 attempted)"}},
		{"JSON list of the first questions", []string{"eval", "--benchmark", "mini", "--pred", listFile, "--quiet", "--cache-dir", "off"}, exitRuntime,
			[]string{"4 predictions for 42 questions of mini", "pass --limit 4 to score just those"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(&out, &out, tt.args)
			if got := exitCode(err); got != tt.want {
				t.Fatalf("exit status %d (%v); want %d\n%s", got, err, tt.want, out.String())
			}
			for _, m := range tt.msgs {
				if err == nil && !strings.Contains(out.String(), m) {
					t.Errorf("output %q; want it to contain %q", out.String(), m)
				} else if err != nil && !strings.Contains(err.Error(), m) {
					t.Errorf("err = %v; want one containing %q", err, m)
				}
			}
		})
	}
	// The spec with the unknown benchmark was refused before its run
	// directory was made.
	if _, err := os.Stat(filepath.Join(tmp, "r2")); !os.IsNotExist(err) {
		t.Errorf("run directory of the refused spec: %v; want none made", err)
	}
}
