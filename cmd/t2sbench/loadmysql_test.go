package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestLoadMySQLExportLines: load-mysql makes the read-only account without
// being told its password, prints on stdout only the export lines of its
// DSN and (generated) password, and those lines let eval log in as it.
// With --ro-password-env naming an unset variable it says what to do.
func TestLoadMySQLExportLines(t *testing.T) {
	admin := testenv.MySQLDSN(t)
	data := testenv.Datasets(t, "logiccat")
	// load-mysql repairs a database another test binary broke on
	// purpose (datasets' import test) unless it waits for that test.
	mysqltest.HoldDataLock(t)
	t.Setenv("T2SBENCH_RO_PASSWORD", "")
	os.Unsetenv("T2SBENCH_RO_PASSWORD")
	const user = "t2s_ro_cli_test"
	// A new account each time: an existing one keeps its password.
	dropMySQLUser(t, admin, user)
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"datasets", "load-mysql", "--data", data, "--dsn", admin, "--ro-user", user}); err != nil {
		t.Fatalf("load-mysql: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	re := regexp.MustCompile(`^export (T2SBENCH_RO_DSN|T2SBENCH_RO_PASSWORD)='([^']+)'$`)
	vals := map[string]string{}
	for _, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("stdout line %q is not an export line; stdout:\n%s", l, out.String())
		}
		vals[m[1]] = m[2]
	}
	if len(vals) != 2 || len(vals["T2SBENCH_RO_PASSWORD"]) < 20 {
		t.Fatalf("export lines %v; want the DSN and a generated password of 20+ characters", vals)
	}
	if !strings.HasPrefix(vals["T2SBENCH_RO_DSN"], user+"@") {
		t.Errorf("T2SBENCH_RO_DSN = %q; want the account %s", vals["T2SBENCH_RO_DSN"], user)
	}
	// The lines, evaluated by a shell, give the values printed.
	sh := exec.Command("bash", "-c", out.String()+`printf '%s\n%s' "$T2SBENCH_RO_DSN" "$T2SBENCH_RO_PASSWORD"`)
	got, err := sh.Output()
	if err != nil || string(got) != vals["T2SBENCH_RO_DSN"]+"\n"+vals["T2SBENCH_RO_PASSWORD"] {
		t.Errorf("bash eval of the export lines gave %q (%v)", got, err)
	}
	// The account logs in with them and may only read.
	cfg, err := mysql.ParseDSN(vals["T2SBENCH_RO_DSN"])
	if err != nil {
		t.Fatal(err)
	}
	cfg.Passwd = vals["T2SBENCH_RO_PASSWORD"]
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Errorf("log in as %s with the printed password: %v", user, err)
	}

	// A named variable that is unset: the error names it and the way out.
	os.Unsetenv("T2SBENCH_CLI_TEST_UNSET")
	err = run(&out, &errb, []string{"datasets", "load-mysql", "--data", data, "--dsn", admin, "--ro-user", user, "--ro-password-env", "T2SBENCH_CLI_TEST_UNSET"})
	if err == nil || !strings.Contains(err.Error(), "T2SBENCH_CLI_TEST_UNSET is not set or empty: export it, or leave out --ro-password-env") {
		t.Errorf("unset --ro-password-env: %v; want an error naming it and what to do", err)
	}
}

// TestLoadMySQLUsage: without a DSN, load-mysql says how to get one.
func TestLoadMySQLUsage(t *testing.T) {
	t.Setenv("T2SBENCH_MYSQL_DSN", "")
	var out bytes.Buffer
	err := run(&out, &out, []string{"datasets", "load-mysql", "--data", t.TempDir()})
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), `eval "$(scripts/mariadb.sh start)"`) {
		t.Errorf("load-mysql without a DSN: %v; want a usage error naming scripts/mariadb.sh", err)
	}
}
