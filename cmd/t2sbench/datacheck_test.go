package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/metrics"
)

func runCheck(t *testing.T, args ...string) checkReport {
	t.Helper()
	stdout, stderr, err := runCLI(t, append([]string{"datasets", "check", "--json", "--quiet"}, args...)...)
	if err != nil {
		t.Fatalf("datasets check %q: %v\n%s", args, err, stderr)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	return rep
}

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb strings.Builder
	err := run(&out, &errb, args)
	return out.String(), errb.String(), err
}

func TestDatasetsCheckMini(t *testing.T) {
	b := evalEnv(t)
	rep := runCheck(t, "--benchmark", "mini")
	n := len(b.Examples)
	if rep.Totals.Questions != n || rep.Totals.Runnable != n || len(rep.Questions) != n || len(rep.Files) != 0 {
		t.Errorf("mini check: totals %+v, %d questions, %d files; want all %d runnable, no recorded files", rep.Totals, len(rep.Questions), len(rep.Files), n)
	}
	stdout, _, err := runCLI(t, "datasets", "check", "--benchmark", "mini", "--quiet")
	if err != nil || !strings.Contains(stdout, "golds: "+itoa(n)+" run, 0 gold_error") || !strings.Contains(stdout, "files: no checksums recorded") {
		t.Errorf("text output (err %v):\n%s", err, stdout)
	}
}

// TestDatasetsCheckSpider checks the first 30 questions of Spider dev on
// the shared data through the command: its report holds every question
// checked, totals that are metrics.SumGoldChecks of them, question 26
// flagged limit_tie (two years hold 3 concerts each, "ORDER BY count(*)
// DESC LIMIT 1"), and the recorded checksums of the release's files. The
// health figures of all 1,034 golds are metrics' TestCheckGoldsSpider.
func TestDatasetsCheckSpider(t *testing.T) {
	dir := testenv.Datasets(t, "spider")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	rep := runCheck(t, "--benchmark", "spider", "--data", dir, "--workers", "2", "--limit", "30")
	if len(rep.Questions) != 30 || rep.Totals.Questions != 30 || !reflect.DeepEqual(rep.Totals, metrics.SumGoldChecks(rep.Questions)) {
		t.Errorf("spider check: %d questions, totals %+v; want 30, summed from the questions (%+v)", len(rep.Questions), rep.Totals, metrics.SumGoldChecks(rep.Questions))
	}
	if q := rep.Questions[26]; !reflect.DeepEqual(q.Flags, []string{metrics.FlagLimitTie}) {
		t.Errorf("question 26 = %+v; want flagged limit_tie", q)
	}
	if len(rep.Files) == 0 {
		t.Errorf("spider check: no file checksums in the report; want the release's recorded files")
	}
}

// logicCatRO prepares the LogicCat databases on $T2SBENCH_MYSQL_DSN and
// returns the read-only DSN and the variable holding its password.
func logicCatRO(t *testing.T) (dsn, pwEnv string) {
	t.Helper()
	const user = "t2s_ro_cmd"
	mysqltest.LogicCatDB(t, user, "AirCraft")
	mysqltest.HoldDataLock(t) // no other test breaks a database meanwhile
	cfg, err := mysql.ParseDSN(testenv.MySQLDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Passwd, cfg.DBName = user, "", ""
	return cfg.FormatDSN(), "T2SBENCH_TEST_" + strings.ToUpper(user) + "_PASSWORD"
}

// TestDatasetsCheckLogicCatMySQL checks the LogicCat golds on MariaDB:
// 1,931 of the 2,059 MySQL golds run (the count on the same
// server), golds 865 and 1440 draw RAND(), and the LIMIT ties are found
// (bike 154: "ORDER BY ... LIMIT 1" over tied rows).
func TestDatasetsCheckLogicCatMySQL(t *testing.T) {
	t.Parallel()
	dsn, pwEnv := logicCatRO(t)
	dir := testenv.Datasets(t, "logiccat")
	rep := runCheck(t, "--benchmark", "logiccat", "--data", dir, "--mysql-dsn", dsn, "--mysql-password-env", pwEnv, "--workers", "4")
	if rep.Totals.Runnable != 1931 || rep.Totals.ByFlag[metrics.FlagLimitTie] == 0 {
		t.Errorf("logiccat totals %+v; want 1931 runnable and some limit_tie", rep.Totals)
	}
	flags := map[string][]string{}
	for _, q := range rep.Questions {
		flags[q.QuestionID] = q.Flags
	}
	for id, want := range map[string]string{
		"new_energy_vehicles/865": "static:RAND()",
		"rice_cooker/1440":        "static:RAND()",
		"bike/154":                metrics.FlagLimitTie,
	} {
		if !slices.Contains(flags[id], want) {
			t.Errorf("%s flags %q; want %q among them", id, flags[id], want)
		}
	}
}

// TestLogicCatGoldAsPredStable scores LogicCat's golds as predictions twice
// with one on-disk gold cache, the first run filling it and the second
// reading it: every runnable gold without a nondeterministic flag is
// correct both times, and their verdicts are the same in both runs.
func TestLogicCatGoldAsPredStable(t *testing.T) {
	t.Parallel()
	dsn, pwEnv := logicCatRO(t)
	dir := testenv.Datasets(t, "logiccat")
	cache := filepath.Join(t.TempDir(), "gold")
	var first map[string]bool
	for run := 0; run < 2; run++ {
		out := filepath.Join(t.TempDir(), "v.jsonl")
		stdout, _, err := runEvalCLI(t, "--benchmark", "logiccat", "--data", dir, "--mysql-dsn", dsn, "--mysql-password-env", pwEnv,
			"--gold-as-pred", "--quiet", "--json", "--cache-dir", cache, "--workers", "4", "--out", out)
		if err != nil {
			t.Fatal(err)
		}
		var rep evalReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		d := rep.Deterministic
		if d.Runnable == 0 || d.Correct != d.Runnable || rep.Overall.Runnable != 1931 {
			t.Errorf("run %d: deterministic %+v, runnable %d; want every runnable deterministic gold correct, 1931 runnable", run+1, d, rep.Overall.Runnable)
		}
		vs := readVerdicts(t, out)
		got := map[string]bool{}
		for _, v := range vs {
			if v.Status == metrics.StatusOK && !metrics.Nondeterministic(v.GoldFlags) {
				got[v.QuestionID] = v.Correct
			}
		}
		if first == nil {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Errorf("run %d: deterministic verdicts differ from run 1", run+1)
		}
	}
}

func readVerdicts(t *testing.T, path string) []metrics.Verdict {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vs []metrics.Verdict
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v metrics.Verdict
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		vs = append(vs, v)
	}
	return vs
}
