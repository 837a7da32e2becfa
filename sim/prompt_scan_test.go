package sim

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/sqllex"
)

// The whole-text patterns createMatches and mtableMatches stand for, as
// parseDDL and parseMSchema ran them before.
var (
	createAllRe = regexp.MustCompile(`(?i)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?` + identPat + `\s*\(`)
	mtableAllRe = regexp.MustCompile(`(?m)^#\s*Table:\s*([^,\n]+)`)
)

// TestScanMatchesEqualRegexp checks createMatches and mtableMatches, and
// the "table" test before listHeadRe, against the whole-text regexps on
// datasets' golden schema renderings and on 20,000 random texts built from
// the pieces where they could differ: case, a word byte before CREATE,
// Unicode case foldings of S and K, '#' inside and at the start of lines,
// matches back to back.
func TestScanMatchesEqualRegexp(t *testing.T) {
	texts := goldenRenders(t)
	pieces := []string{"CREATE", "create", "CrEaTe", "TABLE", "table", "Tables:", "tableſ:", "TABLES:", " ", "\n", "\t",
		"IF NOT EXISTS", "IF NOT EXIſTS", "x", "_", "9", "é", "`q`", "\"a b\"", "[k]", "t1", "(", ")", ",", "#", "# Table: ",
		"#Table:", "Table:", "Kelvin", "createcreate", "CREATE TABLE t(", "#\n", "ſ", ";", "-- c\n"}
	texts = append(texts, randomTexts(pieces, 24, 1)...)
	for _, text := range texts {
		lower := lowerASCII(text)
		if got, want := createMatches(text, lower), createAllRe.FindAllStringSubmatchIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("createMatches(%q) = %v; the regexp gives %v", text, got, want)
		}
		if got, want := mtableMatches(text), mtableAllRe.FindAllStringSubmatchIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("mtableMatches(%q) = %v; the regexp gives %v", text, got, want)
		}
		start := 0
		for line := range strings.SplitSeq(text, "\n") {
			if listHeadRe.MatchString(line) && !strings.Contains(lower[start:start+len(line)], "table") {
				t.Fatalf("line %q matches listHeadRe without \"table\" in ASCII", line)
			}
			start += len(line) + 1
		}
	}
}

// randomTexts returns 20,000 texts of 1 to most pieces each, drawn with
// seed.
func randomTexts(pieces []string, most int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	out := make([]string, 20000)
	for i := range out {
		var b strings.Builder
		for range 1 + rng.IntN(most) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}

// goldenRenders are datasets' golden schema renderings: DDL of the whole
// schema and of selected tables, and M-Schema.
func goldenRenders(t testing.TB) []string {
	t.Helper()
	var texts []string
	for _, name := range []string{"ddl_full.sql", "ddl_selected.sql", "mschema_full.txt"} {
		texts = append(texts, goldenRender(t, name))
	}
	return texts
}

// goldenRender is the golden schema rendering name of datasets' renderers.
func goldenRender(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "datasets", "testdata", "render", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lexedDDLBody is ddlBody as it was: the whole of s lexed first.
func lexedDDLBody(s string) []ddlItem {
	var items []ddlItem
	var cur ddlItem
	var def strings.Builder
	depth, closedLine := 0, -1
	line := 0
	toks, err := sqllex.Lex(s, ddlLex)
	if le := (*sqllex.Error)(nil); errors.As(err, &le) {
		toks, _ = sqllex.Lex(s[:le.Offset], ddlLex)
	}
	last := 0
	for _, t := range toks {
		gap := s[last:t.Start]
		def.WriteString(gap)
		line += strings.Count(gap, "\n")
		last = t.End
		raw := s[t.Start:t.End]
		switch {
		case t.Kind == sqllex.Comment:
			comment := raw[2:]
			if strings.TrimSpace(def.String()) == "" && closedLine == line && len(items) > 0 {
				items[len(items)-1].comment += comment
			} else {
				cur.comment += comment
			}
			continue
		case t.Kind != sqllex.Punct:
		case raw == "(":
			depth++
		case raw == ")" && depth == 0:
			cur.def = def.String()
			return append(items, cur)
		case raw == ")":
			depth--
		case raw == "," && depth == 0:
			cur.def = def.String()
			items = append(items, cur)
			cur, closedLine = ddlItem{}, line
			def.Reset()
			continue
		}
		def.WriteString(raw)
	}
	return items
}

// TestDDLBodyEqualsLexed checks ddlBody, which lexes only up to the
// body's ")", against lexedDDLBody on the golden DDL renderings (from
// every CREATE TABLE's "(") and on 20,000 random bodies with nested
// parentheses, comments on their lines and after commas, quotes that
// close and quotes that never do, before and after the ")".
func TestDDLBodyEqualsLexed(t *testing.T) {
	var bodies []string
	for _, name := range []string{"ddl_full.sql", "ddl_selected.sql"} {
		text := goldenRender(t, name)
		for _, loc := range createMatches(text, lowerASCII(text)) {
			bodies = append(bodies, text[loc[1]:])
		}
	}
	if len(bodies) < 5 {
		t.Fatalf("%d CREATE TABLE bodies in the golden renderings; want at least 5", len(bodies))
	}
	pieces := []string{"a INT", "b", " ", ",", ", ", "(", ")", "\n", "-- c\n", "-- Value Examples: `x`\n", "'s'", "'open",
		"\"q\"", "\"open", "`b`", "[k]", "[open", "/* x */", "PRIMARY KEY (a)", ";", "CREATE TABLE u (", "é"}
	bodies = append(bodies, randomTexts(pieces, 20, 3)...)
	for _, s := range bodies {
		if got, want := ddlBody(s), lexedDDLBody(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("ddlBody(%q) = %q; lexing all of it gives %q", s, got, want)
		}
	}
}

// BenchmarkParsePrompt parses a prompt the size of a Spider schema rendering
// with a question and instructions around it.
func BenchmarkParsePrompt(b *testing.B) {
	text := "You are an SQL expert. Answer with one SQLite query.\n\n" + goldenRender(b, "ddl_full.sql") +
		"\n\nQuestion: How many singers are from France?\n" + strings.Repeat("Think step by step about which tables to join.\n", 20)
	for b.Loop() {
		parsePromptText(text)
	}
}
