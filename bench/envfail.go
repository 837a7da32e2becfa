package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// EnvironmentError is a write that failed because of the machine, not the
// run: a full disk or quota (ENOSPC, EDQUOT, SQLite's "database or disk is
// full"), a read-only filesystem (EROFS, SQLite's "attempt to write a
// readonly database") or an I/O error (EIO, SQLite's "disk I/O error"), on
// a write of the response cache, the run's store or a runner's own file.
// No item fails for it: Run stops at the first, leaves the items in flight
// pending and returns it (exit status 1), and the same command run again
// once space is freed resumes them.
type EnvironmentError struct {
	// Path is the file whose write failed (the store's when the error
	// names none).
	Path string
	// Free is the space left to an unprivileged user on Path's
	// filesystem, in bytes; -1 when unknown.
	Free int64
	Err  error
}

func (e *EnvironmentError) Error() string {
	free := "free space unknown"
	if e.Free >= 0 {
		free = fmt.Sprintf("%s free", formatFree(e.Free))
	}
	return fmt.Sprintf("environment failure writing %s (%s): %v; the items in flight are left pending: free space or make it writable, then run the same command again to resume", e.Path, free, e.Err)
}

func (e *EnvironmentError) Unwrap() error { return e.Err }

// formatFree writes n bytes in the largest unit that keeps it at least 1.
func formatFree(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// envErrnos are the errnos of a failing environment.
var envErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO}

// isEnvironment reports whether err is an environment failure, by type
// only: one of envErrnos anywhere in its chain, or a SQLite error whose
// code is SQLITE_FULL, SQLITE_IOERR or SQLITE_READONLY (or whose system
// errno is one of envErrnos).
func isEnvironment(err error) bool {
	for _, no := range envErrnos {
		if errors.Is(err, no) {
			return true
		}
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrReadonly:
			return true
		}
		for _, no := range envErrnos {
			if se.SystemErrno == no {
				return true
			}
		}
	}
	return false
}

// environmentFailure returns err as an *EnvironmentError when it is an
// environment failure (isEnvironment), nil otherwise. The path is the one
// the error names (an *llm.WriteError's, an *fs.PathError's), else
// fallback; the free space is read from the filesystem holding it.
func environmentFailure(err error, fallback string) *EnvironmentError {
	if err == nil || !isEnvironment(err) {
		return nil
	}
	var ee *EnvironmentError
	if errors.As(err, &ee) {
		return ee
	}
	path := fallback
	var we *llm.WriteError
	var pe *fs.PathError
	switch {
	case errors.As(err, &we):
		path = we.Path
	case errors.As(err, &pe):
		path = pe.Path
	}
	return &EnvironmentError{Path: path, Free: freeAt(path), Err: err}
}

// freeAt is the free space of the filesystem holding path, or of its
// nearest existing parent directory; -1 when unknown.
func freeAt(path string) int64 {
	if path == "" {
		return -1
	}
	for p := path; ; {
		if _, err := os.Stat(p); err == nil {
			return freeSpace(p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return -1
		}
		p = parent
	}
}

// envOr returns err as an *EnvironmentError naming fallback when it is an
// environment failure, else err itself.
func envOr(err error, fallback string) error {
	if e := environmentFailure(err, fallback); e != nil {
		return e
	}
	return err
}
