package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// dropMySQLUser removes user's accounts (the hosts load-mysql creates)
// from the server of adminDSN, so that a test starts without them.
func dropMySQLUser(t *testing.T, adminDSN, user string) {
	t.Helper()
	db, err := sql.Open("mysql", adminDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if _, err := db.Exec("DROP USER IF EXISTS '" + user + "'@'" + host + "'"); err != nil {
			t.Fatalf("drop %s@%s: %v", user, host, err)
		}
	}
}

// mysqlLoginErr logs in as the account of roDSN with password pw and runs
// SELECT 1; nil when it can.
func mysqlLoginErr(roDSN, pw string) error {
	cfg, err := mysql.ParseDSN(roDSN)
	if err != nil {
		return err
	}
	cfg.Passwd = pw
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&n)
}

var exportLineRe = regexp.MustCompile(`(?m)^export (T2SBENCH_RO_DSN|T2SBENCH_RO_PASSWORD)='([^']+)'$`)

// exportValues returns the values of load-mysql's quoted export lines.
func exportValues(stdout string) map[string]string {
	vals := map[string]string{}
	for _, m := range exportLineRe.FindAllStringSubmatch(stdout, -1) {
		vals[m[1]] = m[2]
	}
	return vals
}

// TestLoadMySQLKeepsPassword: load-mysql creates the read-only account
// with a generated password once; run again on the same server it never
// changes that password unless --reset-ro-password: without a password it
// says the account exists and how to pass its password (exit status 2,
// the DSN still exported), with the right one it prints both export
// lines, and a wrong one is refused. The first password logs in after
// every run but the reset.
func TestLoadMySQLKeepsPassword(t *testing.T) {
	admin := testenv.MySQLDSN(t)
	data := testenv.Datasets(t, "logiccat")
	// load-mysql repairs a database another test binary broke on
	// purpose (datasets' import test) unless it waits for that test.
	mysqltest.HoldDataLock(t)
	const user = "t2s_ro_cli_keep"
	dropMySQLUser(t, admin, user)
	t.Cleanup(func() { dropMySQLUser(t, admin, user) })
	t.Setenv("T2SBENCH_RO_PASSWORD", "")
	os.Unsetenv("T2SBENCH_RO_PASSWORD")
	load := func(extra ...string) (stdout, stderr string, err error) {
		var out, errb bytes.Buffer
		err = run(&out, &errb, append([]string{"datasets", "load-mysql", "--data", data, "--dsn", admin, "--ro-user", user}, extra...))
		return out.String(), errb.String(), err
	}

	// The first run creates the account with a generated password.
	out, errOut, err := load()
	if err != nil {
		t.Fatalf("first load-mysql: %v\n%s", err, errOut)
	}
	first := exportValues(out)
	p1, dsn := first["T2SBENCH_RO_PASSWORD"], first["T2SBENCH_RO_DSN"]
	if p1 == "" || dsn == "" {
		t.Fatalf("first load-mysql printed no password or DSN:\n%s", out)
	}
	if err := mysqlLoginErr(dsn, p1); err != nil {
		t.Fatalf("log in with the first run's password: %v", err)
	}

	steps := []struct {
		name     string
		env      string // T2SBENCH_RO_PASSWORD for the run; "" unset
		args     []string
		wantCode int
		wantMsg  string // in the error (or stderr when the run succeeds)
		wantDSN  bool   // stdout exports the DSN
		wantPW   bool   // stdout exports the password
		howTo    bool   // the message says how to pass the password
	}{
		{"again without a password", "", nil, exitUsage, "already exists on this server, so its password was left unchanged", true, false, true},
		{"again with the account's password", p1, nil, exitOK, "its password is unchanged", true, true, false},
		{"again with a wrong password", "not-the-password", nil, exitUsage, "does not log in as it", false, false, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.env != "" {
				t.Setenv("T2SBENCH_RO_PASSWORD", st.env)
			}
			out, errOut, err := load(st.args...)
			if got := exitCode(err); got != st.wantCode {
				t.Fatalf("exit status %d (%v); want %d\n%s", got, err, st.wantCode, errOut)
			}
			msg := errOut
			if err != nil {
				msg = err.Error()
			}
			if !strings.Contains(msg, st.wantMsg) {
				t.Errorf("message %q; want one containing %q", msg, st.wantMsg)
			}
			if st.howTo {
				for _, want := range []string{"export T2SBENCH_RO_PASSWORD=", "--reset-ro-password", "--mysql-password-env"} {
					if !strings.Contains(msg, want) {
						t.Errorf("message lacks %q (how to pass the password):\n%s", want, msg)
					}
				}
			}
			if got := strings.Contains(out, "export T2SBENCH_RO_DSN='"+dsn+"'"); got != st.wantDSN {
				t.Errorf("stdout %q exports the DSN: %v; want %v", out, got, st.wantDSN)
			}
			if got := strings.Contains(out, "export T2SBENCH_RO_PASSWORD="); got != st.wantPW {
				t.Errorf("stdout %q exports a password: %v; want %v", out, got, st.wantPW)
			}
			if err := mysqlLoginErr(dsn, p1); err != nil {
				t.Errorf("the first password no longer logs in: %v", err)
			}
		})
	}

	// Asked to, it sets a new password: the old one stops working.
	out, errOut, err = load("--reset-ro-password")
	if err != nil {
		t.Fatalf("--reset-ro-password: %v\n%s", err, errOut)
	}
	p2 := exportValues(out)["T2SBENCH_RO_PASSWORD"]
	if p2 == "" || p2 == p1 {
		t.Fatalf("--reset-ro-password printed password %q; want a new one", p2)
	}
	if err := mysqlLoginErr(dsn, p2); err != nil {
		t.Errorf("log in with the reset password: %v", err)
	}
	if err := mysqlLoginErr(dsn, p1); err == nil {
		t.Errorf("the old password still logs in after --reset-ro-password")
	}
}

// TestReadmeLogicCatTwice runs the README's LogicCat block twice against
// one server, the one of $T2SBENCH_MYSQL_DSN (the block's own lines that
// start and stop a private server are left out, and the read-only
// account is one of this test's): the first run creates the account and
// scores; the second, in a new shell without the password, as another
// user of the server would, leaves the account's password alone and says
// so, and the first run's password still logs in and scores after it.
func TestReadmeLogicCatTwice(t *testing.T) {
	admin := testenv.MySQLDSN(t)
	data := testenv.Datasets(t, "logiccat")
	if testing.Short() {
		t.Skip("-short: skipping the README's LogicCat block run twice (about 20 s)")
	}
	// load-mysql repairs a database another test binary broke on
	// purpose (datasets' import test) unless it waits for that test.
	mysqltest.HoldDataLock(t)
	block, err := readmeSection(readmeLogicCatHeading)
	if err != nil {
		t.Fatal(err)
	}
	const user = "t2s_ro_readme_twice"
	dropMySQLUser(t, admin, user)
	t.Cleanup(func() { dropMySQLUser(t, admin, user) })

	work := t.TempDir()
	b, err := datasets.LoadLogicCat(data, "mysql", "test", datasets.LoadOptions{Limit: 40})
	if err != nil {
		t.Fatal(err)
	}
	if b.Engine != nil {
		b.Engine.Close()
	}
	var preds bytes.Buffer
	enc := json.NewEncoder(&preds)
	for _, ex := range b.Examples {
		enc.Encode(map[string]string{"question_id": ex.ID, "sql": ex.GoldSQL})
	}
	predPath := filepath.Join(work, "preds.jsonl")
	if err := os.WriteFile(predPath, preds.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The block against the given server: the lines that start and stop a
	// private one go; the second eval scores the file's 40 questions
	// (--limit 40 added) rather than all 2369.
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if strings.Contains(l, "scripts/mariadb.sh") {
			continue
		}
		lines = append(lines, l)
	}
	script := strings.Join(lines, "\n")
	script = strings.NewReplacer(
		"/data/logiccat", data,
		"--pred preds.jsonl", "--pred "+predPath+" --limit 40",
		"load-mysql --benchmark logiccat", "load-mysql --ro-user "+user+" --benchmark logiccat",
	).Replace(script)
	if !strings.Contains(script, "--ro-user "+user) || !strings.Contains(script, "--limit 40") {
		t.Fatalf("the README block changed shape; the test's substitutions no longer apply:\n%s", block)
	}
	bin, err := cliShim(work)
	if err != nil {
		t.Fatal(err)
	}
	pwFile := filepath.Join(work, "password")
	shell := func(name string) (string, error) {
		cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+script+"\nprintf '%s' \"$T2SBENCH_RO_PASSWORD\" >'"+pwFile+"'\n")
		cmd.Dir = testenv.RepoRoot()
		var env []string
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "T2SBENCH_RO_") || k == "PATH" || k == "XDG_CACHE_HOME" {
				continue
			}
			env = append(env, kv)
		}
		cmd.Env = append(env, "PATH="+bin+":"+os.Getenv("PATH"), "XDG_CACHE_HOME="+filepath.Join(work, "cache-"+name))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out1, err := shell("first")
	if err != nil {
		t.Fatalf("first run of the README block: %v\n%s", err, out1)
	}
	for _, want := range []string{"EX 100.00% (20 correct / 20 attempted)", "40 of 40 questions scored"} {
		if !strings.Contains(out1, want) {
			t.Errorf("first run's output lacks %q:\n%s", want, out1)
		}
	}
	p1, err := os.ReadFile(pwFile)
	if err != nil || len(p1) == 0 {
		t.Fatalf("first run left no password: %v", err)
	}
	roDSN, err := datasets.ReadOnlyDSN(admin, user)
	if err != nil {
		t.Fatal(err)
	}

	// The second run, in a new shell that has no password: the account
	// exists, so load-mysql says so and the block stops at the first eval.
	os.Remove(pwFile)
	out2, err := shell("second")
	if err == nil {
		t.Errorf("second run without the password succeeded; want it to stop for the password:\n%s", out2)
	}
	for _, want := range []string{"read-only account " + user + " already exists", "export T2SBENCH_RO_PASSWORD=", "--reset-ro-password"} {
		if !strings.Contains(out2, want) {
			t.Errorf("second run's output lacks %q:\n%s", want, out2)
		}
	}
	if err := mysqlLoginErr(roDSN, string(p1)); err != nil {
		t.Fatalf("after the second run the first run's password no longer logs in: %v\nsecond run:\n%s", err, out2)
	}

	// The first user's shell, password exported, runs the block again.
	script = "export T2SBENCH_RO_PASSWORD='" + string(p1) + "'\n" + script
	out3, err := shell("third")
	if err != nil {
		t.Fatalf("third run, with the first password exported: %v\n%s", err, out3)
	}
	if !strings.Contains(out3, "its password is unchanged") || !strings.Contains(out3, "EX 100.00% (20 correct / 20 attempted)") {
		t.Errorf("third run's output lacks the unchanged-password note or the score:\n%s", out3)
	}
	if err := mysqlLoginErr(roDSN, string(p1)); err != nil {
		t.Errorf("after the third run the first password no longer logs in: %v", err)
	}
}
