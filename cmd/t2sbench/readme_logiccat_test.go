package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

// readmeSection returns the first ```sh block after heading in README.md.
func readmeSection(heading string) (string, error) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		return "", err
	}
	_, sec, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		return "", fmt.Errorf("README.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(sec, "\n```sh\n")
	if !ok {
		return "", fmt.Errorf("README.md section %q has no ```sh block", heading)
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		return "", fmt.Errorf("README.md section %q: unterminated ```sh block", heading)
	}
	return block, nil
}

// cliShim puts a t2sbench command on a fresh PATH directory under dir:
// this test binary, which runs its arguments as the CLI (TestMain).
func cliShim(dir string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	shim := "#!/bin/sh\nT2SBENCH_TEST_CLI=1 exec '" + exe + "' \"$@\"\n"
	return bin, os.WriteFile(filepath.Join(bin, "t2sbench"), []byte(shim), 0o755)
}

// readmeLogicCatHeading is the README section TestReadmeLogicCat runs.
const readmeLogicCatHeading = "## LogicCat on MariaDB/MySQL"

// The README's LogicCat walk-through is a fixture of this test binary: it
// starts a server of its own, imports the dumps and scores (about 15 s on
// an idle 2-core machine), so TestMain starts it in the background when
// TestReadmeLogicCat is to run, and the test waits for its output.
var (
	readmeLCOnce sync.Once
	readmeLCDone = make(chan struct{})
	readmeLC     readmeLogicCatResult
)

// readmeLogicCatResult is the walk-through's outcome: Skip says why it did
// not run; else Out is its combined output and Err its failure.
type readmeLogicCatResult struct {
	Skip string
	Root string
	Out  []byte
	Err  error
}

// startReadmeLogicCat starts the walk-through once per test binary.
func startReadmeLogicCat() {
	readmeLCOnce.Do(func() {
		go func() {
			defer close(readmeLCDone)
			readmeLC = runReadmeLogicCat()
		}()
	})
}

// waitReadmeLogicCat waits for the walk-through to end (started if it was
// not) and returns its outcome.
func waitReadmeLogicCat() readmeLogicCatResult {
	startReadmeLogicCat()
	<-readmeLCDone
	return readmeLC
}

// runReadmeLogicCat runs the README's LogicCat section as written, with
// the shared data's LogicCat folder for /data/logiccat and a prediction
// file of the gold SQL for preds.jsonl, in a temporary directory.
func runReadmeLogicCat() readmeLogicCatResult {
	data, skip := testenv.DatasetsDir("logiccat")
	if skip != "" {
		return readmeLogicCatResult{Skip: skip}
	}
	if _, err := os.Stat(filepath.Join(data, "mysql", "database")); err != nil {
		return readmeLogicCatResult{Skip: fmt.Sprintf("LogicCat's MySQL dumps are absent (%v); skipping", err)}
	}
	found := false
	for _, p := range []string{"mariadbd", "/usr/sbin/mariadbd"} {
		if _, err := exec.LookPath(p); err == nil {
			found = true
		}
	}
	if _, err := exec.LookPath("mariadb-install-db"); err != nil || !found {
		return readmeLogicCatResult{Skip: "MariaDB is not installed (mariadbd, mariadb-install-db); skipping the README's LogicCat section"}
	}
	block, err := readmeSection(readmeLogicCatHeading)
	if err != nil {
		return readmeLogicCatResult{Err: err}
	}
	work, err := os.MkdirTemp("", "t2sbench-readme-logiccat-")
	if err != nil {
		return readmeLogicCatResult{Err: err}
	}
	res := readmeLogicCatResult{Root: work}

	// preds.jsonl: every question's gold SQL (the MySQL variant's ids).
	b, err := datasets.LoadLogicCat(data, "mysql", "test", datasets.LoadOptions{})
	if err != nil {
		res.Err = err
		return res
	}
	if b.Engine != nil {
		b.Engine.Close()
	}
	var preds strings.Builder
	enc := json.NewEncoder(&preds)
	for _, ex := range b.Examples {
		enc.Encode(map[string]string{"question_id": ex.ID, "sql": ex.GoldSQL})
	}
	predPath := filepath.Join(work, "preds.jsonl")
	if err := os.WriteFile(predPath, []byte(preds.String()), 0o644); err != nil {
		res.Err = err
		return res
	}
	script := strings.NewReplacer("/data/logiccat", data, "preds.jsonl", predPath).Replace(block)
	bin, err := cliShim(work)
	if err != nil {
		res.Err = err
		return res
	}

	// The trap is the harness's, not the README's: a block that fails
	// half-way must not leave its server running.
	cmd := exec.Command("bash", "-c", "set -euo pipefail\ntrap 'scripts/mariadb.sh stop >/dev/null 2>&1 || true' EXIT\n"+script)
	cmd.Dir = testenv.RepoRoot()
	// The block starts a server of its own: nothing of a server the
	// caller (CI) runs may leak in, least of all its datadir.
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "T2SBENCH_MARIADB_") || strings.HasPrefix(k, "T2SBENCH_MYSQL_") || strings.HasPrefix(k, "T2SBENCH_RO_") || k == "PATH" || k == "XDG_CACHE_HOME" {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "PATH="+bin+":"+os.Getenv("PATH"), "XDG_CACHE_HOME="+filepath.Join(work, "cache"))
	res.Out, res.Err = cmd.CombinedOutput()
	return res
}

// TestReadmeLogicCat runs the README's LogicCat section as written
// (runReadmeLogicCat): it starts its own private MariaDB
// (scripts/mariadb.sh), imports the dumps, scores, and stops the server.
func TestReadmeLogicCat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the README's LogicCat walk-through (a MariaDB start and two evals, about 20 s)")
	}
	block, err := readmeSection(readmeLogicCatHeading)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/data/logiccat", "preds.jsonl", "--mysql-password-env", "scripts/mariadb.sh stop"} {
		if !strings.Contains(block, want) {
			t.Fatalf("README LogicCat block lacks %q:\n%s", want, block)
		}
	}
	if strings.Contains(block, "sudo") {
		t.Errorf("README LogicCat block assumes sudo:\n%s", block)
	}
	res := waitReadmeLogicCat()
	if res.Skip != "" {
		t.Skip(res.Skip)
	}
	if res.Err != nil {
		t.Fatalf("README LogicCat block failed: %v\n%s", res.Err, res.Out)
	}
	text := string(res.Out)
	// The gold as predictions: every question whose gold runs is correct
	// but for the golds that are nondeterministic (the first eval's
	// "20 of 20" and the whole file's deterministic golds all correct).
	for _, want := range []string{
		"EX 100.00% (20 correct / 20 attempted)",
		"of 2369 questions scored",
		"read-only account t2s_ro",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README LogicCat block output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Access denied") {
		t.Errorf("README LogicCat block: access denied:\n%s", text)
	}
}
