package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"runtime/debug"
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

// versionInfo is what `t2sbench version` prints.
type versionInfo struct {
	Module, Version, Commit, CommitTime, Go, SQLite string
	Modified                                        bool
}

func readVersion(ctx context.Context) (versionInfo, error) {
	v := versionInfo{Module: "t2sbench", Version: "(unknown)", Commit: "(unknown: built without VCS information; make build records it)", Go: "(unknown)"}
	if buildCommit != "" {
		v.Commit = buildCommit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.Go = bi.Main.Path, bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.CommitTime = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
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
