package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// helpCommands lists the commands `t2sbench help` prints.
func helpCommands(t *testing.T) []string {
	t.Helper()
	var out bytes.Buffer
	if err := run(&out, &out, []string{"help"}); err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(out.String(), "\nCommands:\n")
	if !ok {
		t.Fatalf("help has no Commands: section:\n%s", out.String())
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  (\S+)\s`).FindAllStringSubmatch(list, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("help lists no commands:\n%s", out.String())
	}
	return names
}

// TestExitCodesEveryCommand walks every command `t2sbench help` lists and
// checks the exit statuses of the README's table (and of help's) for
// each: 0 for its help and a run that does what was asked; 2 for an
// unknown flag (with the closest flag suggested when there is one),
// missing arguments, an argument that names nothing (a run directory,
// spec or prediction file that does not exist, an unknown benchmark); 1
// for a runtime failure (a run directory whose store is damaged); 3 where
// a command can finish incomplete. A command help lists without cases
// here fails the test.
func TestExitCodesEveryCommand(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "nonexistent")
	// A real run on the bundled mini benchmark with sim: four questions.
	spec := filepath.Join(tmp, "mini.yaml")
	if err := os.WriteFile(spec, []byte("name: mini-exit\nbenchmarks: [{name: mini, limit: 4}]\nmodels: {sim: {backend: sim}}\nroles: {reason: sim}\nrunners: [{name: direct}, {name: cot}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(tmp, "run")
	var out bytes.Buffer
	if err := run(&out, &out, []string{"run", spec, "--out", runDir, "--quiet"}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	// A run directory whose store is not a database: a runtime failure.
	damaged := filepath.Join(tmp, "damaged")
	os.MkdirAll(damaged, 0o755)
	if err := os.WriteFile(filepath.Join(damaged, "run.db"), []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	pred := filepath.Join(tmp, "pred.sql")
	os.WriteFile(pred, []byte("SELECT 1\nSELECT 1\n"), 0o644)
	verdicts := filepath.Join(tmp, "gold.jsonl")
	if err := run(&out, &out, []string{"eval", "--benchmark", "mini", "--gold-as-pred", "--limit", "4", "--quiet", "--cache-dir", "off", "--out", verdicts}); err != nil {
		t.Fatalf("eval: %v", err)
	}
	badSums := filepath.Join(tmp, "spider")
	os.MkdirAll(badSums, 0o755)
	os.WriteFile(filepath.Join(badSums, "dev.json"), []byte("[]"), 0o644)

	type tc struct {
		name string
		args []string
		want int
		msg  string // in the error, when not ""
	}
	cases := map[string][]tc{
		"cache": {
			{"verify a run", []string{"cache", "verify", runDir}, exitOK, ""},
			{"no subcommand", []string{"cache"}, exitUsage, "needs a subcommand"},
			{"not a run directory", []string{"cache", "verify", missing}, exitUsage, "not a run directory"},
			{"damaged store", []string{"cache", "verify", damaged}, exitRuntime, ""},
		},
		"compare": {
			{"a run", []string{"compare", runDir}, exitOK, ""},
			{"no inputs", []string{"compare"}, exitUsage, ""},
			{"input that does not exist", []string{"compare", missing}, exitUsage, "want a verdict file or a run directory"},
			{"damaged store", []string{"compare", damaged}, exitRuntime, ""},
		},
		"datasets": {
			{"list", []string{"datasets", "list", "--data", tmp}, exitOK, ""},
			{"no subcommand", []string{"datasets"}, exitUsage, ""},
			{"unknown subcommand", []string{"datasets", "lst"}, exitUsage, `did you mean "list"?`},
			{"check an unknown benchmark", []string{"datasets", "check", "--benchmark", "spidr", "--data", tmp}, exitUsage, `did you mean "spider"?`},
			{"verify files that are not the recorded ones", []string{"datasets", "verify", "--benchmark", "spider", badSums}, exitRuntime, ""},
		},
		"eval": {
			{"gold", []string{"eval", "--benchmark", "mini", "--gold-as-pred", "--limit", "4", "--quiet", "--cache-dir", "off"}, exitOK, ""},
			{"no benchmark", []string{"eval", "--gold-as-pred"}, exitUsage, "--benchmark NAME is required"},
			{"unknown benchmark", []string{"eval", "--benchmark", "minii", "--gold-as-pred"}, exitUsage, `did you mean "mini"?`},
			{"prediction file that does not exist", []string{"eval", "--benchmark", "mini", "--pred", missing}, exitUsage, "--pred"},
			{"partial", []string{"eval", "--benchmark", "mini", "--pred", pred, "--allow-partial", "--quiet", "--cache-dir", "off"}, exitIncomplete, "have no prediction"},
			{"data folder that is not one", []string{"eval", "--benchmark", "spider", "--data", damaged, "--gold-as-pred"}, exitRuntime, "datasets list --data"},
		},
		"export": {
			{"a trial", []string{"export", runDir, "--trial", "direct", "--format", "jsonl", "--out", filepath.Join(tmp, "direct.jsonl")}, exitOK, ""},
			{"no run directory", []string{"export", "--format", "jsonl"}, exitUsage, ""},
			{"not a run directory", []string{"export", missing, "--format", "jsonl"}, exitUsage, "not a run directory"},
			{"damaged store", []string{"export", damaged, "--format", "jsonl"}, exitRuntime, ""},
		},
		"merge": {
			{"one shard", []string{"merge", filepath.Join(tmp, "merged"), runDir}, exitOK, ""},
			{"no shards", []string{"merge", filepath.Join(tmp, "merged2")}, exitUsage, ""},
			{"shard that is not a run directory", []string{"merge", filepath.Join(tmp, "merged3"), missing}, exitUsage, "not a run directory"},
			{"damaged shard", []string{"merge", filepath.Join(tmp, "merged4"), damaged}, exitRuntime, ""},
		},
		"report": {
			{"a run", []string{"report", runDir, "--out", filepath.Join(tmp, "report"), "--no-view", "--format", "md", "--quiet"}, exitOK, ""},
			{"no run directory", []string{"report"}, exitUsage, ""},
			{"not a run directory", []string{"report", missing}, exitUsage, "not a run directory"},
			{"damaged store", []string{"report", damaged, "--out", filepath.Join(tmp, "report2")}, exitRuntime, ""},
		},
		"run": {
			{"resume", []string{"run", spec, "--out", runDir, "--quiet"}, exitOK, ""},
			{"no spec", []string{"run"}, exitUsage, ""},
			{"spec that does not exist", []string{"run", missing}, exitUsage, ""},
			{"misspelt flag", []string{"run", spec, "--limt", "3"}, exitUsage, "did you mean --limit?"},
			{"run directory is a file", []string{"run", spec, "--out", pred, "--quiet"}, exitRuntime, ""},
		},
		"status": {
			{"a run", []string{"status", runDir}, exitOK, ""},
			{"no run directory", []string{"status"}, exitUsage, ""},
			{"not a run directory", []string{"status", missing}, exitUsage, "not a run directory"},
			{"damaged store", []string{"status", damaged}, exitRuntime, ""},
		},
		"version": {
			{"version", []string{"version"}, exitOK, ""},
			{"an argument", []string{"version", "x"}, exitUsage, ""},
		},
		"view": {
			{"static copy", []string{"view", runDir, "--static", filepath.Join(tmp, "static"), "--no-previews"}, exitOK, ""},
			{"no run directory", []string{"view"}, exitUsage, ""},
			{"not a run directory", []string{"view", missing, "--static", filepath.Join(tmp, "static2")}, exitUsage, "not a run directory"},
			{"damaged store", []string{"view", damaged, "--static", filepath.Join(tmp, "static3")}, exitRuntime, ""},
		},
	}
	for _, name := range helpCommands(t) {
		t.Run(name, func(t *testing.T) {
			cs, ok := cases[name]
			if !ok {
				t.Fatalf("command %q (listed by help) has no exit-status cases here; add them", name)
			}
			// Every command: its help exits 0 and an unknown flag 2.
			cs = append(cs, tc{"help", []string{name, "-h"}, exitOK, ""}, tc{"unknown flag", []string{name, "--no-such-flag"}, exitUsage, ""})
			for _, c := range cs {
				t.Run(c.name, func(t *testing.T) {
					var out bytes.Buffer
					err := run(&out, &out, c.args)
					if got := exitCode(err); got != c.want {
						t.Fatalf("t2sbench %s: exit status %d (err %v); want %d\n%s", strings.Join(c.args, " "), got, err, c.want, out.String())
					}
					if c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)) {
						t.Errorf("t2sbench %s: err = %v; want one containing %q", strings.Join(c.args, " "), err, c.msg)
					}
				})
			}
		})
	}
}
