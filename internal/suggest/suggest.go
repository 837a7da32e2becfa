// Package suggest is the one "did you mean" of the project's error
// messages: an unknown spec key, runner, benchmark, command or flag is
// answered with the known name closest to it by edit distance, or the
// one known name it abbreviates. It is a leaf: the standard library only.
package suggest

import "strings"

// Distance is the edit distance between a and b in runes: insertions,
// deletions, substitutions and transpositions of two adjacent runes each
// cost 1 (optimal string alignment), so "sweeep" is 1 from "sweep" and
// "limti" 1 from "limit".
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j]; three rows suffice.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Closest returns the candidate nearest to name (case-insensitive), or ""
// when none is near enough to be a likely typo: at most 1 edit for names
// of up to 4 runes, 2 up to 8, else 3. A tie goes to the candidate listed
// first; name itself, when among the candidates, is never suggested.
// When no candidate is near enough, a name of at least 3 runes that
// starts exactly one candidate (an abbreviation: "bench" for "benchmark")
// gets that candidate.
func Closest(name string, candidates []string) string {
	if c := nearest(name, candidates); c != "" {
		return c
	}
	return uniquePrefix(name, candidates)
}

// uniquePrefix returns the one candidate that starts with name
// (case-insensitive), or "" when name is under 3 runes or starts none or
// several.
func uniquePrefix(name string, candidates []string) string {
	ln := strings.ToLower(name)
	if len([]rune(ln)) < 3 {
		return ""
	}
	found := ""
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == ln || !strings.HasPrefix(lc, ln) {
			continue
		}
		if found != "" {
			return ""
		}
		found = c
	}
	return found
}

// nearest is Closest's edit-distance rule.
func nearest(name string, candidates []string) string {
	ln := strings.ToLower(name)
	n := len([]rune(ln))
	limit := 3
	switch {
	case n <= 4:
		limit = 1
	case n <= 8:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := Distance(ln, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Hint is " (did you mean \"x\"?)" for the candidate Closest finds, or ""
// when it finds none: the tail of an "unknown ..." message.
func Hint(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return " (did you mean \"" + c + "\"?)"
	}
	return ""
}
