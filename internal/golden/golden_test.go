package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string // "" when Diff returns nil
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"added at end", "a\n", "a\nb\n", "--- old\n+++ new\n@@ -1 +1,2 @@\n a\n+b\n"},
		{"removed at start", "a\nb\n", "b\n", "--- old\n+++ new\n@@ -1,2 +1 @@\n-a\n b\n"},
		{"from empty", "", "x\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n"},
		{"to empty", "x\n", "", "--- old\n+++ new\n@@ -1 +0,0 @@\n-x\n"},
		// Context: 3 lines each side; changes 7 lines apart (6 equal
		// lines between, = 2*context) share one hunk, 8 apart do not.
		{"one hunk across 6 equal lines",
			"1\n2\n3\n4\n5\n6\n7\n8\n", "X\n2\n3\n4\n5\n6\n7\nY\n",
			"--- old\n+++ new\n@@ -1,8 +1,8 @@\n-1\n+X\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+Y\n"},
		{"two hunks across 7 equal lines",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "X\n2\n3\n4\n5\n6\n7\n8\nY\n",
			"--- old\n+++ new\n@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n 4\n@@ -6,4 +6,4 @@\n 6\n 7\n 8\n-9\n+Y\n"},
		{"missing final newline", "a\nb\n", "a\nb",
			"--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"trailing space quoted", "a \n", "a\n", "--- old\n+++ new\n@@ -1 +1 @@\n-\"a \"\n+a\n"},
		{"carriage return quoted", "a\n", "a\r\n", "--- old\n+++ new\n@@ -1 +1 @@\n-a\n+\"a\\r\"\n"},
		// The longest common subsequence keeps b and d.
		{"interleaved", "a\nb\nc\nd\n", "b\nx\nd\ny\n",
			"--- old\n+++ new\n@@ -1,4 +1,4 @@\n-a\n b\n-c\n+x\n d\n+y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Diff("old", []byte(tt.old), "new", []byte(tt.new)))
			if got != tt.want {
				t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

// TestDiffLarge: past maxCells the differing middle is shown removed, then
// added, and the common head and tail are still set aside.
func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("head\n")
	b.WriteString("head\n")
	const n = 2100 // 2100*2100 > maxCells = 1<<22
	for i := range n {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("x", i%7) + "\n")
	}
	a.WriteString("tail\n")
	b.WriteString("tail\n")
	got := string(Diff("old", []byte(a.String()), "new", []byte(b.String())))
	if !strings.HasPrefix(got, "--- old\n+++ new\n@@ -1,2102 +1,2102 @@\n head\n-a\n") {
		t.Errorf("diff starts %q; want one hunk of every line, head first", got[:min(len(got), 80)])
	}
	if c := strings.Count(got, "\n-"); c != n {
		t.Errorf("%d removed lines; want %d", c, n)
	}
	if c := strings.Count(got, "\n+"); c != n+1 { // the +++ header and n lines
		t.Errorf("%d added lines (with +++); want %d", c, n+1)
	}
}

func TestRules(t *testing.T) {
	tmp := t.TempDir()
	tests := []struct {
		name string
		rule Rule
		in   string
		want string
	}{
		{"durations", Durations,
			"294 items in 12.982s; 1m3.5s, 2h0m0s, 350ms, 1.5µs, 800ns; 515.3 calls/s; 10% of 8s2",
			"294 items in <duration>; <duration>, <duration>, <duration>, <duration>, <duration>; 515.3 calls/s; 10% of 8s2"},
		{"dates", Dates,
			"at 2026-12-01T19:49:45Z, 2026-12-01T19:49:45.123+01:00, 2026-12-01 19:49:45 and on 2026-12-01; v2026-12-0",
			"at <time>, <time>, <time> and on <date>; v2026-12-0"},
		{"versions", Versions,
			"t2sbench v0.3.1-0.20261201194945-7de7918aaaaa+dirty\ncommit 7de7918 (x)\ncommit 7de79187de79187de79187de79187de79187de7\ngo1.26.8, SQLite 3.54.1 (go-sqlite3); go1.27rc1; mango1.2",
			"t2sbench v<version>\ncommit <commit> (x)\ncommit <commit>\ngo<version>, SQLite <version> (go-sqlite3); go<version>; mango1.2"},
		{"path", Path(tmp, "$TMP"),
			"run directory " + tmp + "/run; " + filepath.ToSlash(tmp) + "x",
			"run directory $TMP/run; $TMPx"},
		{"replace", Replace(regexp.MustCompile(`seed (\d+)`), "seed <$1>"), "seed 7", "seed <7>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in, tt.rule); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestPathSymlink: a directory reached through a symbolic link is replaced
// in its resolved form too, and the longer form first.
func TestPathSymlink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	in := "a " + link + "/x b " + real + "/y"
	if got, want := Normalize(in, Path(link, "$TMP")), "a $TMP/x b $TMP/y"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

// recorder is a testing.TB that records failures; Fatalf ends the
// goroutine as testing.T's does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  bool
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestX" }
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.mu.Lock()
	r.fatal = true
	r.mu.Unlock()
	runtime.Goexit()
}

// check runs Check with a recorder in its own goroutine (Fatalf ends it).
func check(path string, got []byte) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
	return r
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.golden")
	t.Setenv(EnvUpdate, "")

	r := check(path, []byte("a\n"))
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "does not exist (run go test -run 'TestX' -update") {
		t.Errorf("missing file: fatal %v, errors %q; want one fatal naming -update", r.fatal, r.errors)
	}

	t.Setenv(EnvUpdate, "1")
	if r := check(path, []byte("a\nb\n")); len(r.errors) != 0 {
		t.Fatalf("update: errors %q; want none", r.errors)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("after update the file holds %q (err %v); want %q", b, err, "a\nb\n")
	}

	t.Setenv(EnvUpdate, "")
	if r := check(path, []byte("a\nb\n")); len(r.errors) != 0 {
		t.Errorf("same output: errors %q; want none", r.errors)
	}
	r = check(path, []byte("a\nc\n"))
	want := "output differs from the golden file " + path + " (rerun with -update or T2S_UPDATE_GOLDEN=1 after checking the change):\n" +
		"--- " + path + "\n+++ got\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
	if r.fatal || len(r.errors) != 1 || r.errors[0] != want {
		t.Errorf("changed output: fatal %v, errors %q; want one error %q", r.fatal, r.errors, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Errorf("a failed comparison rewrote the file to %q", b)
	}
}
