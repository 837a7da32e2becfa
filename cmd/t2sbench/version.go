package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

func init() {
	register(command{
		name:    "version",
		summary: "print the module version, the commit it was built from, the Go and SQLite versions",
		run:     runVersion,
	})
}

// buildCommit is the commit the Makefile passes with -ldflags -X, used
// when the binary carries no VCS information of its own.
var buildCommit string

// modulePath is the module line a source tree's go.mod must have for its
// git HEAD to be taken as the binary's commit.
const modulePath = "github.com/t2sbench/t2sbench"

// codeCommit is the commit the binary was built from, "" when unknown. It
// is the toolchain's VCS stamp (vcs.revision, "+dirty" when vcs.modified),
// else the commit the Makefile passes with -ldflags -X (buildCommit),
// else, for `go run` and for builds with GOFLAGS=-buildvcs=false, the
// HEAD of the git work tree the binary was compiled from (sourceCommit).
// `run` records it, `report` and `version` print it.
func codeCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "+dirty"
			}
			return rev
		}
	}
	if buildCommit != "" {
		return buildCommit
	}
	return workTreeCommit()
}

// workTreeCommit is sourceCommit, looked up once per process (three git
// commands; the binary's source does not change while it runs, and a
// process that runs several commands, as the tests do, asked git each
// time); tests whose output must not depend on the state of the work tree
// replace it.
var workTreeCommit = sync.OnceValue(sourceCommit)

// sourceCommit is the HEAD commit ("+dirty" when tracked files differ
// from it) of the git work tree holding this file's source, as the
// compiler recorded its path, when that tree is this module's and HEAD
// is not newer than the running binary (a binary built before the tree
// moved on is not credited with a later commit); "" otherwise (no git,
// a -trimpath build, a moved or deleted tree).
func sourceCommit() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	git := func(args ...string) (string, bool) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	top, ok := git("rev-parse", "--show-toplevel")
	if !ok {
		return ""
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(mod), []byte("module "+modulePath+"\n")) {
		return ""
	}
	head, ok := git("log", "-1", "--format=%H %ct", "HEAD")
	rev, ct, _ := strings.Cut(head, " ")
	if !ok || len(rev) != 40 {
		return ""
	}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			if sec, err := strconv.ParseInt(ct, 10, 64); err == nil && time.Unix(sec, 0).After(fi.ModTime()) {
				return ""
			}
		}
	}
	if st, ok := git("status", "--porcelain", "--untracked-files=no"); ok && st != "" {
		rev += "+dirty"
	}
	return rev
}

// versionInfo is what `t2sbench version` prints.
type versionInfo struct {
	Module, Version, Commit, CommitTime, Go, SQLite string
	Modified                                        bool
}

func readVersion(ctx context.Context) (versionInfo, error) {
	v := versionInfo{Module: "t2sbench", Version: "(unknown)", Commit: "(unknown: built without VCS information or -ldflags, away from its git work tree; make build records it)", Go: "(unknown)"}
	if c := codeCommit(); c != "" {
		v.Commit, v.Modified = strings.CutSuffix(c, "+dirty")
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.Go = bi.Main.Path, bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				v.CommitTime = s.Value
			}
		}
	}
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return v, fmt.Errorf("version: open sqlite: %w", err)
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, "select sqlite_version()").Scan(&v.SQLite); err != nil {
		return v, fmt.Errorf("version: sqlite_version(): %w", err)
	}
	return v, nil
}

func runVersion(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: version takes no arguments, got %q", errUsage, fs.Args())
	}
	v, err := readVersion(context.Background())
	if err != nil {
		return err
	}
	commit := v.Commit
	if v.CommitTime != "" {
		commit += " (" + v.CommitTime + ")"
	}
	if v.Modified {
		commit += ", with uncommitted changes"
	}
	fmt.Fprintf(stdout, "%s %s\ncommit %s\n%s, SQLite %s (go-sqlite3, bundled)\n", v.Module, v.Version, commit, v.Go, v.SQLite)
	return nil
}
