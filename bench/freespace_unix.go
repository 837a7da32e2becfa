//go:build linux || darwin

package bench

import "syscall"

// freeSpace is the space free to an unprivileged user on the filesystem
// holding path, in bytes; -1 when it cannot be read.
func freeSpace(path string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
