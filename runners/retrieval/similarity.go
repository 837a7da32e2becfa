package retrieval

import (
	"math"
	"strings"
	"unicode"
)

// Tokens splits s into lower-case word tokens: maximal runs of letters and
// digits. "Singer_ID, 2019" gives [singer id 2019].
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Jaccard is the Jaccard similarity of the sets of a and b:
//
//	|A ∩ B| / |A ∪ B|
//
// It is 0 when both are empty.
func Jaccard(a, b []string) float64 {
	sa := make(map[string]bool, len(a))
	for _, x := range a {
		sa[x] = true
	}
	sb := make(map[string]bool, len(b))
	for _, x := range b {
		sb[x] = true
	}
	if len(sa) == 0 && len(sb) == 0 {
		return 0
	}
	inter := 0
	for x := range sa {
		if sb[x] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

// TokenJaccard is Jaccard over the word tokens of two strings.
func TokenJaccard(a, b string) float64 { return Jaccard(Tokens(a), Tokens(b)) }

// Levenshtein is the edit distance between a and b in runes (insertions,
// deletions and substitutions cost 1).
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
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
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// EditSimilarity is 1 - Levenshtein(a, b) / max(len(a), len(b)) over
// lower-cased runes, in [0, 1]; two empty strings are identical (1).
func EditSimilarity(a, b string) float64 {
	a, b = strings.ToLower(a), strings.ToLower(b)
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 1
	}
	return 1 - float64(Levenshtein(a, b))/float64(n)
}

// Cosine is the cosine similarity of two vectors; 0 when either is zero or
// their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// CharNGrams returns the distinct character n-grams of s (in runes, in
// order of first occurrence). A string shorter than n gives itself as its
// only gram, so that short values stay searchable; "" gives none.
func CharNGrams(s string, n int) []string {
	r := []rune(s)
	if len(r) == 0 {
		return nil
	}
	if len(r) < n {
		return []string{s}
	}
	seen := map[string]bool{}
	var out []string
	for i := 0; i+n <= len(r); i++ {
		g := string(r[i : i+n])
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}
