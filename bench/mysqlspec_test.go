package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/spec"
)

// TestParseSpecMySQL checks the benchmarks[].mysql entry: where it is
// allowed, that exactly one DSN source is given and that a DSN never holds
// a password.
func TestParseSpecMySQL(t *testing.T) {
	tests := []struct{ name, bench, want string }{
		{"dsn_env", `{name: logiccat, mysql: {dsn_env: RO_DSN, password_env: RO_PW, timeout: 60s}}`, ""},
		{"dsn", `{name: logiccat, split: mini500, mysql: {dsn: "t2s_ro@unix(/tmp/s)/"}}`, ""},
		{"not logiccat", `{name: spider, mysql: {dsn_env: RO_DSN}}`, `m.yaml:1: benchmarks[0].mysql: only LogicCat`},
		{"sqlite dialect", `{name: logiccat-sqlite, mysql: {dsn_env: RO_DSN}}`, `not "logiccat-sqlite"`},
		{"neither", `{name: logiccat, mysql: {password_env: RO_PW}}`, "set exactly one of dsn and dsn_env"},
		{"both", `{name: logiccat, mysql: {dsn: "u@tcp(h)/", dsn_env: RO_DSN}}`, "set exactly one of dsn and dsn_env"},
		{"password", `{name: logiccat, mysql: {dsn: "u:secret@tcp(h)/"}}`, "mysql.dsn: holds a password"},
		{"unknown key", `{name: logiccat, mysql: {dsn_env: X, user: u}}`, `unknown key "user"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := "benchmarks: [" + tt.bench + "]\nrunners: [{name: direct}]\n"
			s, err := spec.ParseSpec([]byte(y), "m.yaml")
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.Benchmarks[0].MySQL == nil {
					t.Fatal("mysql entry dropped")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error containing %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q repeats the password", err)
			}
		})
	}
}

// TestMySQLSpecConfig checks how the entry becomes the engine's
// configuration: the DSN read from dsn_env, the password left in its
// variable, and clear errors for an unset variable or a password in it.
func TestMySQLSpecConfig(t *testing.T) {
	t.Setenv("T2S_TEST_RO_DSN", "t2s_ro@unix(/tmp/x/sock)/")
	m := spec.MySQLSpec{DSNEnv: "T2S_TEST_RO_DSN", PasswordEnv: "T2S_TEST_RO_PW", Timeout: spec.Duration(60e9)}
	cfg, err := m.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DSN != "t2s_ro@unix(/tmp/x/sock)/" || cfg.PasswordEnv != "T2S_TEST_RO_PW" || cfg.Timeout.Seconds() != 60 {
		t.Errorf("config = %+v; want the DSN from T2S_TEST_RO_DSN, password env T2S_TEST_RO_PW, timeout 60s", cfg)
	}

	t.Setenv("T2S_TEST_EMPTY", "")
	if _, err := (&spec.MySQLSpec{DSNEnv: "T2S_TEST_EMPTY"}).Config(); err == nil || !strings.Contains(err.Error(), "T2S_TEST_EMPTY is empty or unset") {
		t.Errorf("got %v; want an error naming the unset variable", err)
	}
	t.Setenv("T2S_TEST_PW_DSN", "root:hunter2@tcp(127.0.0.1:3306)/")
	_, err = (&spec.MySQLSpec{DSNEnv: "T2S_TEST_PW_DSN"}).Config()
	if err == nil || !strings.Contains(err.Error(), "holds a password") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("got %v; want a refusal that does not repeat the password", err)
	}
}

// TestDefaultEnvSpecMySQL checks that a spec's mysql entry takes precedence
// over $T2SBENCH_MYSQL_DSN: with its variable unset the benchmark does not
// open, and the error names the spec's variable.
func TestDefaultEnvSpecMySQL(t *testing.T) {
	t.Setenv("T2SBENCH_MYSQL_DSN", "t2s_ro@unix(/nonexistent/sock)/")
	t.Setenv("T2S_TEST_UNSET_DSN", "")
	env, closeEnv := DefaultEnv()
	defer closeEnv()
	b := spec.BenchmarkSpec{Name: "logiccat", Data: t.TempDir(), MySQL: &spec.MySQLSpec{DSNEnv: "T2S_TEST_UNSET_DSN"}}
	_, err := env.OpenBenchmark(context.Background(), b, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "benchmark logiccat: mysql.dsn_env: environment variable T2S_TEST_UNSET_DSN") {
		t.Errorf("got %v; want the spec's dsn_env error", err)
	}
}
