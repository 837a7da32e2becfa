package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestShardRunDirectory: a shard run without --out writes into a
// directory of its own (the spec's out followed by -shard-i-of-n), never
// into the spec's unsharded run; one pointed at a directory holding items
// outside its shard (an unsharded run, another shard's) is refused with
// exit status 2, naming the directory to use, and changes nothing there;
// a shard's own directory resumes.
func TestShardRunDirectory(t *testing.T) {
	old := runEnv
	runEnv = fakeCLIEnv
	t.Cleanup(func() { runEnv = old })
	tmp := t.TempDir()
	base := filepath.Join(tmp, "runs", "sh")
	sp := writeSpec(t, tmp, "name: sh\nout: "+base+"\nbenchmarks: [{name: fake}]\nmodels: {m: {backend: sim}}\nroles: {reason: m}\nrunners: [{name: direct}]\n")
	items := func(dir string) int {
		_, total, err := runstore.ShardOutside(dir, spec.Shard{N: 1})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	steps := []struct {
		name     string
		args     []string
		wantCode int
		wantMsg  string
		wantDir  string // the directory the step wrote into ("" none)
	}{
		{"unsharded run", []string{"--limit", "10"}, exitOK, "", base},
		{"shard without --out gets its own directory", []string{"--limit", "10", "--shard", "1/2"}, exitOK, "run directory " + base + "-shard-1-of-2", base + "-shard-1-of-2"},
		{"shard resumes its own directory", []string{"--limit", "10", "--shard", "1/2"}, exitOK, "already finished", base + "-shard-1-of-2"},
		{"shard into the unsharded run", []string{"--limit", "10", "--shard", "2/2", "--out", base}, exitUsage,
			"run directory " + base + " holds ", ""},
		{"says why", []string{"--limit", "10", "--shard", "2/2", "--out", base}, exitUsage, "outside shard 2/2: an unsharded run, or another shard's", ""},
		{"names the directory to use", []string{"--limit", "10", "--shard", "2/2", "--out", base}, exitUsage, "pass --out " + base + "-shard-2-of-2", ""},
		{"shard into another shard's directory", []string{"--limit", "10", "--shard", "2/2", "--out", base + "-shard-1-of-2"}, exitUsage, "outside shard 2/2", ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := items(base)
			var out bytes.Buffer
			err := run(&out, &out, append([]string{"run", sp, "--quiet"}, st.args...))
			if got := exitCode(err); got != st.wantCode {
				t.Fatalf("exit status %d (%v); want %d\n%s", got, err, st.wantCode, out.String())
			}
			msg := out.String()
			if err != nil {
				msg += err.Error()
			}
			if !strings.Contains(msg, st.wantMsg) {
				t.Errorf("output %q; want it to contain %q", msg, st.wantMsg)
			}
			if st.wantDir != base && items(base) != before {
				t.Errorf("the unsharded run %s went from %d to %d items", base, before, items(base))
			}
			if st.wantDir != "" && items(st.wantDir) == 0 {
				t.Errorf("%s holds no items; want the step's", st.wantDir)
			}
		})
	}
}
