package sim

import (
	"unicode"
	"unicode/utf8"
)

// normalizeText lower-cases s and collapses every run of white space into
// one space, so that a question matches the prompt whatever the line
// wrapping and case of the template.
func normalizeText(s string) string {
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); {
		// An ASCII byte, most of a prompt, is not decoded: its white
		// space is asciiSpace's and its lower case A-Z's.
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		i += n
		if r < utf8.RuneSelf && asciiSpace[r] || r >= utf8.RuneSelf && unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(b) > 0 {
			b = append(b, ' ')
		}
		space = false
		switch {
		case 'A' <= r && r <= 'Z':
			b = append(b, byte(r+'a'-'A'))
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return string(b)
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// matcher finds the longest of a set of patterns occurring in a text with
// an Aho-Corasick automaton over bytes: building is linear in the total
// pattern length, matching linear in the text length (20 KB prompts against
// 1,534 Spider questions take well under a millisecond).
type matcher struct {
	root  [256]int32       // transitions out of the root (0: stay at root)
	next  map[uint64]int32 // (state<<8 | byte) -> state, for states > 0
	fail  []int32
	best  []int32 // longest pattern ending at the state (own or via fail links), -1 if none
	depth []int32
	pats  []string
}

func newMatcher(patterns []string) *matcher {
	m := &matcher{next: map[uint64]int32{}, fail: []int32{0}, best: []int32{-1}, depth: []int32{0}, pats: patterns}
	edge := func(s int32, c byte) (int32, bool) {
		if s == 0 {
			t := m.root[c]
			return t, t != 0
		}
		t, ok := m.next[uint64(s)<<8|uint64(c)]
		return t, ok
	}
	for id, p := range patterns {
		s := int32(0)
		for i := 0; i < len(p); i++ {
			t, ok := edge(s, p[i])
			if !ok {
				t = int32(len(m.fail))
				m.fail = append(m.fail, 0)
				m.best = append(m.best, -1)
				m.depth = append(m.depth, m.depth[s]+1)
				if s == 0 {
					m.root[p[i]] = t
				} else {
					m.next[uint64(s)<<8|uint64(p[i])] = t
				}
			}
			s = t
		}
		if len(p) > 0 && m.best[s] < 0 {
			m.best[s] = int32(id)
		}
	}
	// Breadth-first: fail links of shallower states are known first.
	children := make([][]int32, len(m.fail)) // state -> child states, with their byte
	bytesOf := make([][]byte, len(m.fail))
	for c := 0; c < 256; c++ {
		if t := m.root[c]; t != 0 {
			children[0] = append(children[0], t)
			bytesOf[0] = append(bytesOf[0], byte(c))
		}
	}
	for k, t := range m.next {
		s := int32(k >> 8)
		children[s] = append(children[s], t)
		bytesOf[s] = append(bytesOf[s], byte(k))
	}
	queue := append([]int32(nil), children[0]...)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if m.best[s] < 0 {
			m.best[s] = m.best[m.fail[s]]
		}
		for i, t := range children[s] {
			c := bytesOf[s][i]
			f := m.fail[s]
			for {
				if u, ok := edge(f, c); ok && u != t {
					m.fail[t] = u
					break
				}
				if f == 0 {
					m.fail[t] = 0
					break
				}
				f = m.fail[f]
			}
			queue = append(queue, t)
		}
	}
	return m
}

// longest returns the ids of the longest patterns occurring in text, with
// ties broken towards the occurrence ending last (the question a few-shot
// prompt asks comes after its demonstrations). It returns -1 when none
// occurs.
func (m *matcher) longest(text string) int {
	best, bestLen := -1, 0
	s := int32(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		for {
			if s == 0 {
				s = m.root[c]
				break
			}
			if t, ok := m.next[uint64(s)<<8|uint64(c)]; ok {
				s = t
				break
			}
			s = m.fail[s]
		}
		if id := m.best[s]; id >= 0 && len(m.pats[id]) >= bestLen {
			best, bestLen = int(id), len(m.pats[id])
		}
	}
	return best
}
