package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/bench"
)

// TestRunRecordsCommit: run stores the binary's commit under the meta key
// the Setup section reads; a build without VCS information (go test, go
// run) stores none and the Setup says "unknown".
func TestRunRecordsCommit(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(spec, []byte(`name: commit-test
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners: [{name: direct}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, commit   string
		wantMeta       string
		wantMetaStored bool
		wantSetup      string
	}{
		{"vcs build", "0123abcd+dirty", "0123abcd+dirty", true, "Code commit of the run: 0123abcd+dirty."},
		{"no vcs info", "", "", false, "Code commit of the run: unknown (the run store does not record it)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := binaryCommit
			binaryCommit = func() string { return tc.commit }
			defer func() { binaryCommit = old }()
			dir := t.TempDir()
			runDir := filepath.Join(dir, "run")
			var out bytes.Buffer
			if err := run(&out, &out, []string{"run", spec, "--quiet", "--out", runDir}); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			r, err := bench.ReadRun(runDir, false)
			if err != nil {
				t.Fatal(err)
			}
			got, stored := r.Meta[metaCommit]
			if got != tc.wantMeta || stored != tc.wantMetaStored {
				t.Errorf("meta %s = %q (stored %v); want %q (stored %v)", metaCommit, got, stored, tc.wantMeta, tc.wantMetaStored)
			}
			repDir := filepath.Join(dir, "report")
			var o, e bytes.Buffer
			if err := run(&o, &e, []string{"report", runDir, "--out", repDir}); err != nil {
				t.Fatalf("report: %v\n%s", err, e.String())
			}
			md, err := os.ReadFile(filepath.Join(repDir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), tc.wantSetup) {
				t.Errorf("report.md Setup lacks %q", tc.wantSetup)
			}
		})
	}
}
