//go:build unix

package bench

import (
	"errors"
	"os"
	"syscall"
)

// tryLockShared takes a shared flock on f without blocking: merges that
// read a shard hold it together, and a run, which takes the exclusive
// lock, waits for none of them (it is refused). False means another
// process holds the exclusive lock.
func tryLockShared(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
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
