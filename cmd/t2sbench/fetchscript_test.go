package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// TestFetchScriptVerifies runs scripts/fetch-datasets.sh --verify-only on
// a copy of the shared Archer files (and the two Spider databases its
// recorded sums cover), with this test binary as t2sbench: the intact
// copy passes, and one changed byte fails the script with exit status 1,
// naming the file. The downloads themselves cannot run here.
func TestFetchScriptVerifies(t *testing.T) {
	t.Parallel()
	shared := testenv.SharedDir()
	if shared == "" {
		t.Skip("shared data absent")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash absent")
	}
	src := filepath.Join(shared, "datasets")
	dir := t.TempDir()
	copyFile := func(rel string) {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Skipf("shared data incomplete: %v", err)
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"archer/en/dev.json", "archer/en/train.json", "archer/zh/dev.json", "archer/zh/train.json",
		"spider/database/concert_singer/concert_singer.sqlite", "spider/database/world_1/world_1.sqlite"} {
		copyFile(rel)
	}
	script := func() (string, int) {
		cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "fetch-datasets.sh"), "--verify-only", dir, "archer")
		cmd.Env = append(os.Environ(), "T2SBENCH="+os.Args[0], "T2SBENCH_TEST_CLI=1")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	out, code := script()
	if code != 0 || !strings.Contains(out, "6 of 6 recorded files verified") {
		t.Fatalf("intact copy: exit %d; want 0 and 6 of 6 verified:\n%s", code, out)
	}
	f, err := os.OpenFile(filepath.Join(dir, "archer", "en", "dev.json"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" ")
	f.Close()
	out, code = script()
	if code != 1 || !strings.Contains(out, "MISMATCH en/dev.json") || !strings.Contains(out, "verification FAILED") {
		t.Errorf("tampered copy: exit %d; want 1, MISMATCH en/dev.json and FAILED:\n%s", code, out)
	}
	// A recorded file that is absent fails too.
	os.Remove(filepath.Join(dir, "spider", "database", "world_1", "world_1.sqlite"))
	if out, code = script(); code != 1 || !strings.Contains(out, "absent") {
		t.Errorf("incomplete copy: exit %d; want 1 naming the absent file:\n%s", code, out)
	}
}
