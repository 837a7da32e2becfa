//go:build race

package main

// raceEnabled is true under the race detector, whose shadow memory
// multiplies a process's resident set.
const raceEnabled = true
