//go:build !linux && !darwin

package bench

// freeSpace is -1 (unknown) where the free space is not read.
func freeSpace(string) int64 { return -1 }
