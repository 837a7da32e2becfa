package datasets

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The loops below are the dump loader's scanners as they were before it
// read scripts with sqllex, kept as the reference FuzzSplitMySQLScript and
// FuzzCountValueTuples compare the loader with. countOld also reports
// whether a ')' closed nothing (the depth went below zero), which the
// loader now refuses.

func splitOld(s string) ([]scriptStmt, error) {
	var out []scriptStmt
	start, line, startLine := 0, 1, 1
	hasCode := false
	emit := func(end int) {
		if hasCode {
			out = append(out, scriptStmt{text: strings.TrimSpace(s[start:end]), line: startLine})
		}
		hasCode = false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#' || (c == '-' && i+1 < len(s) && s[i+1] == '-' && (i+2 == len(s) || strings.IndexByte(" \t\r\n", s[i+2]) >= 0)):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated comment", line)
			}
			line += strings.Count(s[i:i+2+end+2], "\n")
			i += 2 + end + 2
		case c == '\'' || c == '"' || c == '`':
			if !hasCode {
				hasCode, startLine = true, line
			}
			q, open := c, line
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("line %d: unterminated %c literal", open, q)
				}
				if s[i] == '\n' {
					line++
				}
				if s[i] == '\\' && q != '`' {
					if i+1 < len(s) && s[i+1] == '\n' {
						line++
					}
					i += 2
					continue
				}
				if s[i] == q {
					if i+1 < len(s) && s[i+1] == q {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
		case c == ';':
			emit(i)
			i++
			start = i
		default:
			if !hasCode {
				hasCode, startLine = true, line
				start = i
			}
			i++
		}
	}
	emit(len(s))
	return out, nil
}

func countOld(s string) (n int64, negative bool, err error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '`':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\\' && c != '`' {
					j++
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return 0, negative, errors.New("unterminated literal in VALUES")
			}
			i = j
		case '(':
			if depth == 0 {
				n++
			}
			depth++
		case ')':
			depth--
			negative = negative || depth < 0
		}
	}
	if depth != 0 {
		return 0, negative, errors.New("unbalanced parentheses in VALUES")
	}
	return n, negative, nil
}

// FuzzSplitMySQLScript: the loader splits a script as its own loop did,
// statements, lines and errors alike, on text without \f and \v, which
// MySQL reads as white space (in "-- " too) and the loop read as code.
func FuzzSplitMySQLScript(f *testing.F) {
	for _, s := range []string{
		"/* head */\nSET NAMES utf8mb4;\n-- c; d\n# e;\nCREATE TABLE `t;` (a int COMMENT 'x;''y', b text DEFAULT \"\\\";\");\n",
		"/*!40101 SET x */;\n`a` ;\n  -- x\n 'b\\\nc';--\n;;d",
		"a;'open\n", "b; /* open", "c --x; d -- y\n; e#;\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\f\v") {
			return
		}
		want, werr := splitOld(s)
		got, err := splitMySQLScript(s)
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("splitMySQLScript(%q): error %v; want %v", s, err, werr)
		}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Fatalf("splitMySQLScript(%q):\n got %+v\nwant %+v", s, got, want)
		}
	})
}

// FuzzCountValueTuples: the loader counts a VALUES list's tuples as its
// own loop did, on text without comments (which the loop did not know);
// a ')' that closes nothing, which the loop let by, is now an error.
func FuzzCountValueTuples(f *testing.F) {
	for _, s := range []string{
		" (1, 'x (y'), (2, 'it''s'), (3, \"a\\\")\", `b``)`, (f(4)))",
		" (1", ")(", " ('open", " (1, 'a\\');b')",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "#") || strings.Contains(s, "--") || strings.Contains(s, "/*") {
			return
		}
		want, negative, werr := countOld(s)
		got, err := countValueTuples(s)
		switch {
		case negative && err == nil:
			t.Fatalf("countValueTuples(%q) = %d; want an error (a ')' closes nothing)", s, got)
		case negative:
		case fmt.Sprint(err) != fmt.Sprint(werr) || got != want:
			t.Fatalf("countValueTuples(%q) = %d, %v; want %d, %v", s, got, err, want, werr)
		}
	})
}
