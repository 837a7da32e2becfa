//go:build unix

package runstore

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an flock on f without blocking: exclusive, or shared when
// shared is set (shared locks are held together, and each excludes an
// exclusive one). False means another open file description (another
// process) holds a lock that excludes it.
func tryLock(f *os.File, shared bool) (bool, error) {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
