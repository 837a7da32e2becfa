package sqltext

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The functions below are the scanners of this package as they were
// before they read text with sqllex, kept as the reference FuzzTextScans
// compares them with.

func cteOnlyOld(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n(")
	if len(t) < 4 || !strings.EqualFold(t[:4], "with") {
		return false
	}
	depth := 0
	var lit literalOld
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case lit.in(c):
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && (c == 's' || c == 'S') && i+6 <= len(s) && strings.EqualFold(s[i:i+6], "select") &&
			(i == 0 || !isIdentStart(s[i-1])) && (i+6 == len(s) || !isIdentStart(s[i+6])):
			return false
		}
	}
	return true
}

func completeOld(sql string) bool {
	var lit literalOld
	depth := 0
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case lit.in(c):
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
	}
	return lit == 0 && depth == 0 && !open(sql) && !cteOnlyOld(sql)
}

func proseyOld(s string) int {
	outside := s
	if completeOld(s) || !strings.ContainsAny(s, `'"`) {
		var b strings.Builder
		var lit literalOld
		for i := 0; i < len(s); i++ {
			c := s[i]
			if opening := lit == 0; lit.in(c) {
				if opening {
					b.WriteByte(' ') // a literalOld reads as one space
				}
				continue
			}
			b.WriteByte(c)
		}
		outside = b.String()
	}
	n := 0
	for i := 0; i < len(outside); {
		if !isWordByte(outside[i]) {
			i++
			continue
		}
		// A word is a maximal run of identifier characters, so that the
		// "to" of link_to_event is no prose word; an alias qualifying a
		// column (we.energy) is none either.
		j := i
		for j < len(outside) && isWordByte(outside[j]) {
			j++
		}
		qualified := (i > 0 && outside[i-1] == '.') || (j < len(outside) && outside[j] == '.')
		if !qualified && proseWords[asciiLower(outside[i:j])] {
			n++
		}
		i = j
	}
	return n
}

func stripCommentsOld(s string) string {
	if !strings.Contains(s, "--") && !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	var lit literalOld
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case lit.in(c):
		case commentStart(s, i):
			stop := commentEnd(s, i)
			out := b.String()
			ls := strings.LastIndexByte(out, '\n') + 1
			rl := firstLine(s[stop:])
			b.Reset()
			if strings.TrimSpace(out[ls:]) == "" && strings.TrimSpace(rl) == "" {
				b.WriteString(out[:ls]) // the line held only comments
				i = stop + len(rl)      // the loop steps over its newline
				continue
			}
			b.WriteString(strings.TrimRight(out, " \t"))
			if c == '/' && b.Len() > 0 && stop < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[stop])) {
				b.WriteByte(' ')
			}
			i = stop - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func splitStatementsOld(s string) []string {
	var out []string
	start := 0
	var lit literalOld
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case lit.in(c):
		case commentStart(s, i):
			i = commentEnd(s, i) - 1
		case c == ';':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func NormaliseOld(sql string) string {
	var b strings.Builder
	var q rune
	space := false
	s := clean(sql)
	for i, r := range s {
		// The input's own bytes are written, so that invalid UTF-8 is
		// kept as it is rather than turned into U+FFFD.
		_, n := utf8.DecodeRuneInString(s[i:])
		raw := s[i : i+n]
		if q != 0 {
			b.WriteString(raw)
			if r == q {
				q = 0
			}
			continue
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if r == '\'' || r == '"' || r == '`' {
			q = r
		}
		b.WriteString(raw)
	}
	return b.String()
}

type literalOld byte

func (l *literalOld) in(c byte) bool {
	switch {
	case *l != 0:
		if c == byte(*l) {
			*l = 0
		}
		return true
	case c == '\'' || c == '"' || c == '`':
		*l = literalOld(c)
		return true
	}
	return false
}

// FuzzTextScans: the scanners that read text with sqllex answer as their
// own loops did.
func FuzzTextScans(f *testing.F) {
	for _, s := range []string{
		"SELECT a, 'it''s; -- no' FROM t -- note\n/* c; */ WHERE b = \"x;\" ; SELECT `c` FROM [u]",
		"WITH w AS (SELECT 1) SELECT * FROM w", "WITH w AS (SELECT 1)", "with x) select1 (select", "WITH a AS (\n-- only\n  SELECT 1 /* x */)\n",
		"I'm sorry, the table doesn't exist", "SELECT (a FROM 'open", "x  \t\u00a0y \xff 'a  b' `c` \"d",
		"a --c\n  /* d */  \nb/*e*/c", "a\n  -- only\nb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := complete(s), completeOld(s); got != want {
			t.Fatalf("complete(%q) = %v; want %v", s, got, want)
		}
		if got, want := cteOnly(s), cteOnlyOld(s); got != want {
			t.Fatalf("cteOnly(%q) = %v; want %v", s, got, want)
		}
		if got, want := prosey(s), proseyOld(s); got != want {
			t.Fatalf("prosey(%q) = %v; want %v", s, got, want)
		}
		if got, want := stripComments(s), stripCommentsOld(s); got != want {
			t.Fatalf("stripComments(%q) = %q; want %q", s, got, want)
		}
		if got, want := fmt.Sprintf("%q", splitStatements(s)), fmt.Sprintf("%q", splitStatementsOld(s)); got != want {
			t.Fatalf("splitStatements(%q) = %s; want %s", s, got, want)
		}
		if got, want := Normalise(s), NormaliseOld(s); got != want {
			t.Fatalf("Normalise(%q) = %q; want %q", s, got, want)
		}
	})
}
