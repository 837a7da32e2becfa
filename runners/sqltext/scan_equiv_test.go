package sqltext

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/sqllex"
)

// The ref functions are the text scans written plainly on sqllex.Lex's
// token slice: the specification the streaming versions (sqllex.Scan,
// fast paths for text without the byte searched for) are checked against.

func refSplitStatements(s string) []string {
	var out []string
	start := 0
	toks, _ := sqllex.Lex(s, commentLex)
	for _, k := range toks {
		if k.Kind == sqllex.Punct && k.Text == ";" {
			out = append(out, s[start:k.Start])
			start = k.End
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func refLastStatement(s string) string {
	parts := refSplitStatements(s)
	if len(parts) < 2 {
		return s
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if p := finish(parts[i]); LooksLikeSQL(p) {
			return p
		}
	}
	return s
}

func refCteOnly(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n(")
	if len(t) < 4 || !strings.EqualFold(t[:4], "with") {
		return false
	}
	depth := 0
	for _, k := range textTokens(s) {
		depth += parenStep(k)
		if depth == 0 && k.Kind == sqllex.Word && holdsSelect(k.Text) {
			return false
		}
	}
	return true
}

func refComplete(sql string) bool {
	toks, err := sqllex.Lex(sql, strictTextLex)
	depth := 0
	for _, k := range toks {
		depth += parenStep(k)
	}
	return err == nil && depth == 0 && !open(sql) && !refCteOnly(sql)
}

// refOutside is the text prosey counts prose words in.
func refOutside(s string) string {
	outside := s
	if refComplete(s) || !strings.ContainsAny(s, `'"`) {
		var b strings.Builder
		last := 0
		for _, k := range textTokens(s) {
			if k.Kind == sqllex.String || k.Kind == sqllex.Ident {
				b.WriteString(s[last:k.Start])
				b.WriteByte(' ')
				last = k.End
			}
		}
		b.WriteString(s[last:])
		outside = b.String()
	}
	return outside
}

func refNormalise(sql string) string {
	var b strings.Builder
	s := clean(sql)
	last := 0
	for _, k := range textTokens(s) {
		if k.Start > last && b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[k.Start:k.End])
		last = k.End
	}
	return b.String()
}

func refStripComments(s string) string {
	if !strings.Contains(s, "--") && !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	last := 0
	toks, _ := sqllex.Lex(s, commentLex)
	for _, k := range toks {
		if k.Kind != sqllex.Comment {
			continue
		}
		b.WriteString(s[last:k.Start])
		stop := k.End
		out := b.String()
		ls := strings.LastIndexByte(out, '\n') + 1
		rl := firstLine(s[stop:])
		b.Reset()
		if strings.TrimSpace(out[ls:]) == "" && strings.TrimSpace(rl) == "" {
			b.WriteString(out[:ls])
			last = min(stop+len(rl)+1, len(s))
			continue
		}
		b.WriteString(strings.TrimRight(out, " \t"))
		if s[k.Start] == '/' && b.Len() > 0 && stop < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[stop])) {
			b.WriteByte(' ')
		}
		last = stop
	}
	b.WriteString(s[last:])
	return b.String()
}

// refProseWords counts the prose words of outside as prosey does.
func refProseWords(outside string) int {
	n := 0
	for i := 0; i < len(outside); {
		if !isWordByte(outside[i]) {
			i++
			continue
		}
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

// The regexps the hand-written word scans find what they find.
var (
	refLangRe = regexp.MustCompile(`^[ \t]*([A-Za-z][A-Za-z0-9_+#.-]*)`)
	refWordRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*`)
	refFromRe = regexp.MustCompile(`(?i)\bFROM\b`)
)

func refStartsWithKeyword(s, lead string, kws []string) bool {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "--") {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s = strings.TrimSpace(s[i+1:])
	}
	u := strings.ToUpper(strings.TrimLeft(s, lead))
	for _, kw := range kws {
		if strings.HasPrefix(u, kw) && (len(u) == len(kw) || !isWord(rune(u[len(kw)]))) {
			return true
		}
	}
	return false
}

func refASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// scanInputs are SQL and answer text for the equivalence checks: fences,
// prose, <think>, truncated answers, quotes, comments, semicolons inside
// strings and comments, CTEs and unbalanced quotes.
func scanInputs() []string {
	in := []string{"", " ", ";", ";;", "a;", ";a", "SELECT 1;", "SELECT 'a;b' FROM t; SELECT 2", "SELECT \"x;\" -- c;\n; /* ; */ x",
		"SELECT `a;b`; WITH c AS (SELECT 1) SELECT * FROM c", "WITH a AS (SELECT 1)", "WITH a AS (SELECT 1)\nSELECT * FROM a",
		"with x as (select 1), y as (select 2) select", "WITH a AS (SELECT 'select' FROM t) x", "WITH a AS ((SELECT 1)) SELECTED",
		"SELECT name FROM t WHERE note = 'it''s'", "I'm sorry, I can't help with that.", "SELECT 'open; FROM t", "SELECT (a FROM t",
		"SELECT a FROM t WHERE", "SELECT a, -- note ;\n b FROM t /* c */ ;", "-- only a comment", "/* open comment ; SELECT",
		"SELECT a /* x */b FROM t", "SELECT a --x\n\nFROM t", "  SELECT  a ,\n\tb  FROM t ;; ", "SELECT 'a  b'  ,  \"c  d\"  FROM `e  f`",
		"SELECT x\xff FROM t; 'y\xfe'", "<think>SELECT 1;</think>\nSELECT 2;", "```sql\nSELECT 1;\nSELECT 2;\n```",
		"```sql\nSELECT a FROM t -- Alternatively:\n; SELECT b FROM t\n```", "SELECT `a`` FROM t", "SELECT \"we\" FROM the_table",
		"select count(*) from the table where we want it", "SELECT a FROM t WHERE b = 'x' AND c = \"y\" AND `d` = 1",
		"SELECT [a;b] FROM t; x", "SELECT 1 /*; */ ; -- ;", "SELECT 'unterminated", "SELECT a FROM t WHERE x = 'a\\';' ; y",
		"ÀÉ SELECT Ǆ ſelect KELVIN\u212a", "A", "a", "Za", "aZ", "@[`{", "from", "FROM", "xfrom", "from_", "fromé", "éfrom", "\xc3from\xff",
		"FrOm", "fro", "ffrom from", "1from", "$from$", "FROM\n", "Final SQL:", "x\nFinal SQL:\n", "**Final Query**\nfinal answer final sql",
		"the final answer", "1. Step 2: **FINAL SQL QUERY", "so, the final sqlite sql", "final\nsql", "final sqlx", "a final sql",
		"\r\nFinal SQL:", "final\rfinal sql", "\n\nfinal query\n\nhere's the final statement", "ﬁnal sql", "FİNAL SQL", "ſelect 1", "ſelectſ", "selectı", "SELECTé", "select\xff", "explain", "EXPLAINx", "-- c\n((with",
		"replaceé", "selec", "wıth x", "insert\u0131", "(select", " \n\tupdate t", "-- a\n-- b", "SELECT_", "select$", "sql", " \tc++ x", "sql-server.1#x y", "9sql", "_a$b.c", "a$", "$a", "é"}
	in = append(in, benchCorpus()...)
	var parts []string
	for _, s := range in {
		parts = append(parts, refSplitStatements(s)...)
		for _, f := range scanFences(s) {
			parts = append(parts, s[f.body:f.bodyEnd])
		}
	}
	return append(in, parts...)
}

// checkScans fails t unless the text scans give s what their references
// give it.
func checkScans(t *testing.T, s string) {
	t.Helper()
	if got, want := strings.Join(splitStatements(s), "\x00|"), strings.Join(refSplitStatements(s), "\x00|"); got != want || len(splitStatements(s)) != len(refSplitStatements(s)) {
		t.Errorf("splitStatements(%q) = %q; want %q", s, splitStatements(s), refSplitStatements(s))
	}
	if got, want := hasFrom(s), refFromRe.MatchString(s); got != want {
		t.Errorf("hasFrom(%q) = %v; want %v", s, got, want)
	}
	if got, want := leadingWord(s), refWordRe.FindString(s); got != want {
		t.Errorf("leadingWord(%q) = %q; want %q", s, got, want)
	}
	a, b, ok := langSpan(s)
	if m := refLangRe.FindStringSubmatchIndex(s); (m != nil) != ok || ok && (a != m[2] || b != m[3]) {
		t.Errorf("langSpan(%q) = %d, %d, %v; want %v", s, a, b, ok, m)
	}
	var wantMarks []int
	for _, m := range finalRe.FindAllStringIndex(s, -1) {
		wantMarks = append(wantMarks, m[0])
	}
	if got := finalMarks(s, asciiLower(s)); !slices.Equal(got, wantMarks) {
		t.Errorf("finalMarks(%q) = %v; want %v", s, got, wantMarks)
	}
	if got, want := LooksLikeSQL(s), refStartsWithKeyword(s, "(", queryKeywords); got != want {
		t.Errorf("LooksLikeSQL(%q) = %v; want %v", s, got, want)
	}
	if got, want := StartsStatement(s), refStartsWithKeyword(s, "( \t\r\n", statementKeywords); got != want {
		t.Errorf("StartsStatement(%q) = %v; want %v", s, got, want)
	}
	if got, want := asciiLower(s), refASCIILower(s); got != want {
		t.Errorf("asciiLower(%q) = %q; want %q", s, got, want)
	}
	if got, want := lastStatement(s), refLastStatement(s); got != want {
		t.Errorf("lastStatement(%q) = %q; want %q", s, got, want)
	}
	if got, want := cteOnly(s), refCteOnly(s); got != want {
		t.Errorf("cteOnly(%q) = %v; want %v", s, got, want)
	}
	if got, want := complete(s), refComplete(s); got != want {
		t.Errorf("complete(%q) = %v; want %v", s, got, want)
	}
	if got, want := prosey(s), refProseWords(refOutside(s)); got != want {
		t.Errorf("prosey(%q) = %d; want %d", s, got, want)
	}
	if got, want := Normalise(s), refNormalise(s); got != want {
		t.Errorf("Normalise(%q) = %q; want %q", s, got, want)
	}
	if got, want := stripComments(s), refStripComments(s); got != want {
		t.Errorf("stripComments(%q) = %q; want %q", s, got, want)
	}
}

// TestScanEquivalence: the text scans agree with their references on
// answers, SQL and the statements and fence bodies cut from them.
func TestScanEquivalence(t *testing.T) {
	for _, s := range scanInputs() {
		checkScans(t, s)
	}
}

// FuzzScanEquivalence: the text scans agree with their references on any
// text.
func FuzzScanEquivalence(f *testing.F) {
	for _, s := range scanInputs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkScans(t, s) })
}
