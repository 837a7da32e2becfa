package runstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockFile is the lock file inside a run directory. A Store opened for
// writing (OpenStore) holds an exclusive lock on it until Close, so that
// one process at a time writes a run directory; readers (ReadRun, and so
// status and report) take no lock. The lock is the operating system's
// (flock on Unix): it dies with its process, so a killed run leaves no
// stale lock. The file's text names the holder, for the message the next
// writer gets.
const LockFile = "run.lock"

// ErrLocked is wrapped by the error OpenStore returns when another process
// holds the run directory.
var ErrLocked = errors.New("run directory is in use")

// LockedError says which process holds a run directory.
type LockedError struct {
	Dir string
	// PID, Host and Since describe the holder as it wrote them into the
	// lock file; PID is 0 when it had not written them yet.
	PID   int
	Host  string
	Since string
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d on host %s", e.PID, e.Host)
		if e.Since != "" {
			who += " (since " + e.Since + ")"
		}
	}
	return fmt.Sprintf("run directory %s is in use by %s: one run writes a directory at a time; wait for it to finish or stop it (status and report work meanwhile)", e.Dir, who)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// dirLock is a held lock on a run directory.
type dirLock struct{ f *os.File }

// lockDir takes the exclusive lock of run directory dir without waiting,
// and writes this process's pid, host and start time into the lock file.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	if err := lockFile(f, path, dir, "store", false); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	info := fmt.Sprintf("pid %d\nhost %s\nsince %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(info), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("store: write lock %s: %w", path, err)
	}
	return &dirLock{f: f}, nil
}

// lockFile takes the lock on f, the lock file path of run directory dir,
// without waiting: exclusive, or shared when shared is set. When it is not
// taken f is closed: the error is a *LockedError naming the holder when
// another process holds the lock, else one that origin starts.
func lockFile(f *os.File, path, dir, origin string, shared bool) error {
	held, err := tryLock(f, shared)
	if err != nil {
		f.Close()
		return fmt.Errorf("%s: lock %s: %w", origin, path, err)
	}
	if !held {
		b, _ := os.ReadFile(path)
		f.Close()
		le := parseLockFile(string(b))
		le.Dir = dir
		return le
	}
	return nil
}

// release empties the lock file and drops the lock.
func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// parseLockFile reads the "pid N", "host H", "since T" lines lockDir
// writes; missing or bad lines leave their fields empty.
func parseLockFile(s string) *LockedError {
	e := &LockedError{}
	for _, l := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch k {
		case "pid":
			e.PID, _ = strconv.Atoi(v)
		case "host":
			e.Host = v
		case "since":
			e.Since = v
		}
	}
	return e
}
