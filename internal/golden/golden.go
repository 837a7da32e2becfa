// Package golden compares what a test produced with a golden file kept
// under the package's testdata/, the way benchstat's and the Go command's
// own tests do: a mismatch fails the test with a line diff, and running the
// tests with -update (or T2S_UPDATE_GOLDEN=1 in the environment, for
// `make test` and scripts that cannot pass test flags) rewrites the files
// instead, to be reviewed with git diff.
//
// Outputs that hold volatile parts (temporary directories, wall-clock
// durations, dates, versions) go through Normalize with the rules that
// blank exactly those parts first; see Rule.
//
// The package registers the -update flag of every test binary that
// imports it: a test file must not define its own.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// EnvUpdate is the environment variable that, set to 1, rewrites the
// golden files as -update does.
const EnvUpdate = "T2S_UPDATE_GOLDEN"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the tests' current output (also: "+EnvUpdate+"=1)")

// Update reports whether this test run rewrites golden files (-update or
// T2S_UPDATE_GOLDEN=1) instead of comparing with them.
func Update() bool {
	return *update || os.Getenv(EnvUpdate) == "1"
}

// Check compares got with the golden file at path (relative to the test's
// package directory, e.g. testdata/golden/help.stdout). Under Update it
// writes got to path, creating its folder, and the test passes. Otherwise a
// missing file or any byte of difference fails the test with a line diff
// of the golden file (-) against got (+).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := write(path, got); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden: %s does not exist (run go test -run '%s' -update to create it, then check it)", path, t.Name())
	}
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	t.Errorf("output differs from the golden file %s (rerun with -update or %s=1 after checking the change):\n%s",
		path, EnvUpdate, Diff(path, want, "got", got))
}

// CheckString is Check for text output.
func CheckString(t testing.TB, path, got string) {
	t.Helper()
	Check(t, path, []byte(got))
}

// write writes data to path unless the file already holds exactly data
// (which keeps its modification time for make and editors).
func write(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
