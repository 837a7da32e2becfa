package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestRunRecordsCommit: run stores the binary's commit under the meta key
// the Setup section reads; a build without VCS information (go test, go
// run) stores none and the Setup says "unknown".
func TestRunRecordsCommit(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), `name: commit-test
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners: [{name: direct}]
`)
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
			r, err := runstore.ReadRun(runDir, false)
			if err != nil {
				t.Fatal(err)
			}
			got, stored := r.Meta[metaCommit]
			if got != tc.wantMeta || stored != tc.wantMetaStored {
				t.Errorf("meta %s = %q (stored %v); want %q (stored %v)", metaCommit, got, stored, tc.wantMeta, tc.wantMetaStored)
			}
			repDir := filepath.Join(dir, "report")
			md := reportMD(t, runDir, repDir)
			if !strings.Contains(md, tc.wantSetup) {
				t.Errorf("report.md Setup lacks %q", tc.wantSetup)
			}
		})
	}
}

// TestCommitWithoutVCSStamp: a binary without the toolchain's VCS stamp
// (GOFLAGS=-buildvcs=false, go run, go test) records and reports the
// commit the Makefile passes with -ldflags -X, else the HEAD of the git
// work tree it was compiled from; both the run's and the report's commit
// lines show it.
func TestCommitWithoutVCSStamp(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git work tree: %v", err)
	}
	spec := writeSpec(t, t.TempDir(), "name: commit-test\nbenchmarks: [{name: mini, limit: 1}]\nmodels: {sim: {backend: sim, p: 0.6, seed: 3}}\nroles: {reason: sim}\nrunners: [{name: direct}]\n")
	for _, tc := range []struct {
		name, ldflags string
		want          string // the commit, without a "+dirty" the tree may add
	}{
		{"-ldflags -X", "0123abcd", "0123abcd"},
		{"git at run time", "", strings.TrimSpace(string(head))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := buildCommit
			buildCommit = tc.ldflags
			defer func() { buildCommit = old }()
			dir := t.TempDir()
			runDir, repDir := filepath.Join(dir, "run"), filepath.Join(dir, "report")
			var o, e bytes.Buffer
			if err := run(&o, &e, []string{"run", spec, "--quiet", "--out", runDir}); err != nil {
				t.Fatalf("run: %v\n%s", err, e.String())
			}
			md := reportMD(t, runDir, repDir)
			for _, line := range []string{"Code commit of this report: ", "Code commit of the run: "} {
				if !strings.Contains(md, line+tc.want) {
					t.Errorf("report.md lacks %q", line+tc.want)
				}
			}
		})
	}
}

// TestRunRecordsOptions: the Setup section lists the options run was
// given that change results or resources, a line per change of them over
// the run's sessions.
func TestRunRecordsOptions(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, t.TempDir(), "name: options-test\nbenchmarks: [{name: mini, limit: 3}]\nmodels: {sim: {backend: sim, p: 0.6, seed: 3}}\nroles: {reason: sim}\nrunners: [{name: direct}]\n")
	for _, tc := range []struct {
		name     string
		sessions [][]string
		want     string
	}{
		{"none", [][]string{{"--limit", "1"}, {}},
			"Options given to run that change results or resources, by session (a line per change): `--limit 1`; none."},
		{"one session", [][]string{{"--limit", "2", "--workers", "1", "--set", "workers=3", "--quiet"}},
			"Options given to run that change results or resources: `--limit 2 --workers 1 --set workers=3`."},
		{"a resume with another limit", [][]string{{"--limit", "1", "--shard", "1/2"}, {"--limit", "1", "--shard", "1/2"}, {"--limit", "2", "--shard", "1/2"}},
			"Options given to run that change results or resources, by session (a line per change): `--limit 1 --shard 1/2`; `--limit 2 --shard 1/2`."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			runDir, repDir := filepath.Join(dir, "run"), filepath.Join(dir, "report")
			var o, e bytes.Buffer
			for _, s := range tc.sessions {
				// An incomplete run (a shard, a limit) exits non-zero
				// by design; only its records matter here.
				_ = run(&o, &e, append([]string{"run", spec, "--quiet", "--out", runDir}, s...))
			}
			md := reportMD(t, runDir, repDir)
			if !strings.Contains(md, tc.want) {
				t.Errorf("report.md lacks %q", tc.want)
			}
			for _, old := range []string{"a --workers flag is not recorded", "a --limit given to run is not recorded"} {
				if strings.Contains(md, old) {
					t.Errorf("report.md still says %q", old)
				}
			}
		})
	}
}

// reportMD reports run directory runDir into repDir and returns its
// report.md.
func reportMD(t *testing.T, runDir, repDir string) string {
	t.Helper()
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"report", runDir, "--out", repDir}); err != nil {
		t.Fatalf("report: %v\n%s", err, e.String())
	}
	md, err := os.ReadFile(filepath.Join(repDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(md)
}
