package compare

import (
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/stats"
	"github.com/t2sbench/t2sbench/verdictfile"
)

// file is a verdict-file system on benchmark b: question qi correct when
// correct[i], on database db.
func file(name, b, db string, correct ...bool) System {
	f := &verdictfile.File{Path: name + ".jsonl", Benchmark: b}
	for i, ok := range correct {
		f.Verdicts = append(f.Verdicts, verdictfile.Verdict{QuestionID: string(rune('a' + i)), DBID: db, Correct: ok, Status: metrics.StatusOK})
	}
	return FromVerdicts(f, name, strings.ReplaceAll(b, "/", "-"))
}

// TestFromVerdicts: a question whose gold does not run is excluded and
// counted by status; the others make EX's one denominator.
func TestFromVerdicts(t *testing.T) {
	f := &verdictfile.File{Path: "x.jsonl", Benchmark: "mini", Verdicts: []verdictfile.Verdict{
		{QuestionID: "a", Correct: true, Status: metrics.StatusOK},
		{QuestionID: "b", Status: metrics.StatusPredError},
		{QuestionID: "c", Status: metrics.StatusGoldError},
	}}
	s := FromVerdicts(f, "x", "mini")
	mean, _, sum := s.EX()
	if s.Seeds() != 1 || len(s.Correct[0]) != 2 || sum.Attempted != 2 || sum.Correct != 1 || mean != 0.5 ||
		sum.Excluded[metrics.StatusGoldError] != 1 || s.Excluded["c"] != metrics.StatusGoldError {
		t.Errorf("FromVerdicts = %+v, EX %v over %+v; want 1 of 2 attempted, c excluded as gold_error", s, mean, sum)
	}
}

// TestAssignGroups: a verdict file without a benchmark joins the one
// benchmark of the others; a file alone on its benchmark and a baseline
// naming no system are refused.
func TestAssignGroups(t *testing.T) {
	run := file("run", "bird/minidev", "db", true)
	run.FromFile = false
	systems := []System{run, file("old", "", "db", true)}
	if err := AssignGroups(systems, ""); err != nil || systems[1].Benchmark != "bird/minidev" || systems[1].Key != "bird-minidev" {
		t.Errorf("AssignGroups = %v, joined %q (%q); want bird/minidev (bird-minidev)", err, systems[1].Benchmark, systems[1].Key)
	}
	err := AssignGroups([]System{file("a", "spider", "db", true), file("b", "bird", "db", true)}, "")
	if err == nil || !strings.Contains(err.Error(), "a.jsonl scores benchmark spider and no other input does") {
		t.Errorf("two benchmarks: %v; want the file alone on its benchmark named", err)
	}
	err = AssignGroups([]System{file("a", "mini", "db", true), file("b", "mini", "db", true)}, "c")
	if err == nil || err.Error() != `--baseline "c" is none of the systems a, b` {
		t.Errorf("unknown baseline: %v", err)
	}
}

// TestAll: each system is compared with the first of its benchmark, the
// row counting the discordant questions; questions on different databases
// are refused.
func TestAll(t *testing.T) {
	cfg := Config{Level: 0.95, Resamples: 200, CIMethod: stats.BootstrapPercentile, Test: stats.McNemarAuto, AtDefault: func(stats.SystemRef) bool { return false }}
	base := file("base", "mini", "db", true, true, false, false)
	sys := file("sys", "mini", "db", true, false, true, true)
	sys.Failed = map[int64]map[string]bool{0: {"b": true}}
	rows, err := All([]System{base, sys}, "", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Baseline != "base" || rows[0].System != "sys" || rows[0].N != 4 || rows[0].B != 1 || rows[0].C != 2 ||
		rows[0].FailedSystem != 1 || rows[0].FailedBaseline != 0 || rows[0].Delta != 0.25 || rows[0].Comparison == nil {
		t.Errorf("All = %+v; want sys vs base: n 4, b 1, c 2, delta 0.25, 1 failed", rows)
	}
	other := file("other", "mini", "db2", true, true, true, true)
	if _, err := All([]System{base, other}, "", cfg); err == nil || !strings.Contains(err.Error(), `question "a" is on database "db" in one and "db2" in the other`) {
		t.Errorf("databases differ: %v", err)
	}
}
