package main

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestCacheVerifyMismatch: cache verify counts the entries of each store,
// names the damaged ones and exits with status 1.
func TestCacheVerifyMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := "name: v\nbenchmarks: [{name: mini}]\nmodels: {s: {backend: sim, p: 0.6, seed: 3}}\nroles: {reason: s}\nrunners: [{name: direct}]\n"
	p := benchkit.Plan(t, benchkit.Spec(t, spec, "v.yaml"))
	if _, err := benchkit.Run(t, dir, p, bench.Options{Limit: 3}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "cache", runstore.ModelCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	// The first byte of a row's compressed samples is its codec byte.
	if _, err := db.Exec(`UPDATE samples SET v = x'00' || substr(v, 2) WHERE rk = (SELECT min(rk) FROM samples)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var stdout, stderr bytes.Buffer
	code := runMain(&stdout, &stderr, []string{"cache", "verify", dir})
	if code != exitRuntime {
		t.Errorf("exit status %d; want %d\nstderr: %s", code, exitRuntime, stderr.String())
	}
	for _, want := range []string{"model cache", "1 mismatch", "MISMATCH samples", "checksum mismatch", "run store", "3 ok, 0 mismatch"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output does not hold %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "entries failing their checksum: 1;") {
		t.Errorf("stderr %q; want the count of damaged entries", stderr.String())
	}
}
