//go:build !unix

package runstore

import "os"

// tryLock always succeeds where flock is unavailable: run directories are
// not locked there.
func tryLock(*os.File, bool) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }
