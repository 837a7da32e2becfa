// Package testenv locates the shared benchmark data and external services
// that integration tests need, and skips a test with a clear message when
// they are absent, so that a fresh clone still passes `make test`.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns the shared data directory: $T2SBENCH_SHARED, else
// ../shared next to the repository. It returns "" when neither exists.
func SharedDir() string {
	if d := os.Getenv("T2SBENCH_SHARED"); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		return ""
	}
	d := filepath.Join(RepoRoot(), "..", "shared")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Datasets returns <shared>/datasets/<sub...>, or skips t when the shared
// data is absent.
func Datasets(t testing.TB, sub ...string) string {
	t.Helper()
	p, skip := DatasetsDir(sub...)
	if skip != "" {
		t.Skip(skip)
	}
	return p
}

// DatasetsDir is Datasets for code without a test at hand (a fixture made
// in TestMain): it returns <shared>/datasets/<sub...>, or a non-empty
// reason to skip when the shared data is absent.
func DatasetsDir(sub ...string) (dir, skip string) {
	s := SharedDir()
	if s == "" {
		return "", "shared benchmark data not found (set T2SBENCH_SHARED or place it at ../shared); skipping integration test"
	}
	p := filepath.Join(append([]string{s, "datasets"}, sub...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Sprintf("shared data %s not present: %v", p, err)
	}
	return p, ""
}

// MySQLDSN returns $T2SBENCH_MYSQL_DSN (a root/admin DSN of a MariaDB or
// MySQL server the tests may use), or skips t when it is unset.
func MySQLDSN(t testing.TB) string {
	t.Helper()
	d := os.Getenv("T2SBENCH_MYSQL_DSN")
	if d == "" {
		t.Skip("no MySQL server configured (set T2SBENCH_MYSQL_DSN, e.g. via scripts/mariadb.sh start); skipping MySQL test")
	}
	return d
}
