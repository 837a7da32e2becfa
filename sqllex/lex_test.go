package sqllex

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// show renders tokens as kind letter, depth and text: "w0:SELECT".
func show(toks []Token) string {
	var b strings.Builder
	for _, k := range toks {
		fmt.Fprintf(&b, "%c%d:%s ", "wisnpcb"[k.Kind], k.Depth, k.Text)
	}
	return strings.TrimSpace(b.String())
}

// TestTokens: kinds, unquoting, exponents, two-character operators,
// comments and parenthesis depth, on hand-written SQLite and MySQL text.
func TestTokens(t *testing.T) {
	cases := []struct{ sql, want string }{
		{`SELECT COUNT(*) FROM t WHERE x >= 1e-5 AND y <> 'it''s'`,
			`w0:SELECT w0:COUNT p0:( p1:* p0:) w0:FROM w0:t w0:WHERE w0:x p0:>= n0:1e-5 w0:AND w0:y p0:<> s0:it's`},
		{"SELECT `a b`, \"c\", [d e] FROM t -- note\n/* more */ LIMIT 1",
			`w0:SELECT i0:a b p0:, i0:c p0:, i0:d e w0:FROM w0:t w0:LIMIT n0:1`},
		{`SELECT (a || b) != .5 * (SELECT 2)`,
			`w0:SELECT p0:( w1:a p1:|| w1:b p0:) p0:!= n0:.5 p0:* p0:( w1:SELECT n1:2 p0:)`},
		{`SELECT 3e FROM t WHERE v = 2E+3`, `w0:SELECT n0:3 w0:e w0:FROM w0:t w0:WHERE w0:v p0:= n0:2E+3`},
		{`SELECT 'open`, `w0:SELECT s0:open`},
	}
	for _, c := range cases {
		if got := show(Tokens(c.sql)); got != c.want {
			t.Errorf("Tokens(%q):\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
	if !(Token{Kind: Word, Text: "select"}).Is("SELECT") || (Token{Kind: Ident, Text: "select"}).Is("SELECT") {
		t.Error("Is: a bare word matches its keyword in any case; a quoted identifier never does")
	}
}

// The option sets of the packages that use Lex (datasets/hardness.go,
// datasets/engine_mysql.go, metrics/rewrite.go, runners/reactdsl, sim).
var (
	hardness = Options{Strict: true, NoComments: true, WordChars: "_$", Qualified: true}
	mysql    = Options{MySQL: true, Strict: true, WordChars: "_$@"}
	sqlparse = Options{SQLParse: true, Comments: true}
	simToks  = Options{Bytes: true, Spaces: " \t\n\r", NoComments: true, NoExponent: true, Operators: []string{"<=", ">=", "<>", "!=", "||", "=="}}
	dsl      = Options{Bytes: true, Strict: true, Operators: []string{"||", "==", "!=", "<>", "<=", ">=", "<<", ">>"}, Braces: true}
)

// TestLex: each option on the text where it makes a difference. The
// cases are the ones on which the packages' own lexers, before they used
// sqllex, differed from Tokens; each want is what that lexer read.
func TestLex(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		sql  string
		want string
	}{
		{"NoComments: markers are punctuation", Options{NoComments: true}, "a -- b /* c",
			`w0:a p0:- p0:- w0:b p0:/ p0:* w0:c`},
		{"Comments kept", Options{Comments: true}, "a -- b\n/* c */ d",
			`w0:a c0:-- b c0:/* c */ w0:d`},
		{"WordChars: digits, non-ASCII and ASCII-only space", Options{WordChars: "_$"}, "2or café\u00a0x 1e5 12 .5",
			"w0:2or w0:café\u00a0x w0:1e5 n0:12 p0:. n0:5"},
		{"WordChars: the listed bytes", Options{WordChars: "_$@"}, "@update $x a#b",
			`w0:@update w0:$x w0:a p0:# w0:b`},
		{"Qualified: a word runs on through dots, never starts with one", hardness, "T1.order 1.5 .LIKE",
			`w0:T1.order w0:1.5 p0:. w0:LIKE`},
		{"MySQL: comments", mysql, "a # b\nc -- d\ne --f --",
			`w0:a w0:c w0:e p0:- p0:- w0:f`},
		{"MySQL: Executable reads executable comments as comments", Options{MySQL: true, Executable: true, Comments: true},
			"/*!40101 SET x */ a /*M! b */", `c0:/*!40101 SET x */ w0:a c0:/*M! b */`},
		{"MySQL: escapes in strings, not in backquotes; [ is punctuation", mysql, "'a\\'b' \"c\\\"d\" `e\\` [f]",
			"s0:a\\'b i0:c\\\"d i0:e\\ p0:[ w0:f p0:]"},
		{"Bytes: ASCII words and white space", Options{Bytes: true}, "caf\u00e9\u00a0x a$1 $b 1e5 1x \v",
			"w0:caf\u00e9\u00a0x w0:a$1 p0:$ w0:b n0:1e5 n0:1 w0:x"},
		{"Spaces: only the listed bytes", Options{Spaces: " \n"}, "a\tb\f c\n\u00a0x",
			"w0:a p0:\t w0:b p0:\f w0:c p0:\u00a0 w0:x"},
		{"NoExponent: digits and dots", Options{Bytes: true, NoExponent: true}, "1e5 2.5E+3 .5",
			`n0:1 w0:e5 n0:2.5 w0:E p0:+ n0:3 n0:.5`},
		{"NoBrackets: [ is punctuation", Options{NoBrackets: true}, "[a b] 'c'",
			`p0:[ w0:a w0:b p0:] s0:c`},
		{"NoBlockComments: only -- comments", Options{NoBlockComments: true, Comments: true}, "a /* b */ -- c\nd",
			`w0:a p0:/ p0:* w0:b p0:* p0:/ c0:-- c w0:d`},
		{"Operators: only the listed ones, longest first", Options{Operators: []string{"<=>", "<=", "=="}}, "a<=>b =<= c==d !=",
			`w0:a p0:<=> w0:b p0:= p0:<= w0:c p0:== w0:d p0:! p0:=`},
		{"Braces: placeholders", Options{Braces: true}, "x > { r1 }('{a}') {open",
			`w0:x p0:> b0: r1  p0:( s1:{a} p0:) b0:open`},
		{"SQLParse: words", sqlparse, "1distinct a#b$ $c 12",
			`w0:1distinct w0:a#b$ p0:$ w0:c n0:12`},
		{"SQLParse: escapes in every quote", sqlparse, "'a\\'b' `c\\`d`",
			"s0:a\\'b i0:c\\`d"},
		{"SQLParse: [ quotes only where no name ends", sqlparse, "x[a] x [b] [] [c[d] (e)[f]",
			`w0:x p0:[ w0:a p0:] w0:x i0:b p0:[ p0:] p0:[ w0:c p0:[ w0:d p0:] p0:( w1:e p0:) p0:[ w0:f p0:]`},
		{"SQLParse: a line comment takes its newline", sqlparse, "a -- b\nc",
			"w0:a c0:-- b\n w0:c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			toks, err := Lex(c.sql, c.o)
			if err != nil {
				t.Fatalf("Lex(%q): %v", c.sql, err)
			}
			if got := show(toks); got != c.want {
				t.Errorf("Lex(%q):\n got %s\nwant %s", c.sql, got, c.want)
			}
		})
	}
}

// TestLexErrors: Strict and MySQL's executable comments.
func TestLexErrors(t *testing.T) {
	cases := []struct {
		o    Options
		sql  string
		want Error
	}{
		{Options{Strict: true}, "SELECT 'open", Error{Offset: 7, Delim: "'"}},
		{Options{Strict: true}, "SELECT [open", Error{Offset: 7, Delim: "["}},
		{Options{Strict: true}, "SELECT 1 /* open", Error{Offset: 9, Delim: "/*"}},
		{mysql, "SELECT 'a\\'", Error{Offset: 7, Delim: "'"}},
		{mysql, "SELECT 1 /*! 2 */", Error{Offset: 9, Delim: "/*", Executable: true}},
		{mysql, "SELECT 1 /*M! 2 */", Error{Offset: 9, Delim: "/*", Executable: true}},
		{Options{Braces: true, Strict: true}, "a > {r1", Error{Offset: 4, Delim: "{"}},
	}
	for _, c := range cases {
		_, err := Lex(c.sql, c.o)
		var le *Error
		if !errors.As(err, &le) || *le != c.want {
			t.Errorf("Lex(%q): got %v; want %+v", c.sql, err, c.want)
		}
	}
	for _, sql := range []string{"SELECT 'open", "SELECT 1 /* open", "/*! x */"} {
		if _, err := Lex(sql, Options{}); err != nil {
			t.Errorf("Lex(%q) without Strict: got %v; want no error", sql, err)
		}
	}
}

// FuzzLex: Scan yields what Lex returns; for every option set, offsets
// are in order and inside the text, and the text of a word, number or punctuation is what lies
// between them.
func FuzzLex(f *testing.F) {
	for _, s := range []string{"SELECT `a``b`, \"c\", [d] FROM t -- x\n/* y */ WHERE a>=1e-5 AND b<>'it''s'",
		"'open", "/* open", "x\xffy 'a\xc3'", "1.2.3e+4e5 .5 a$b _x ||= !=< [[a]]", "\u00a0\u2003é中文 ‘q’ # c\n@v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range scanOptions {
			checkScan(t, s, o)
		}
		for _, o := range []Options{{}, hardness, mysql, sqlparse, dsl, simToks} {
			toks, err := Lex(s, o)
			if err != nil {
				continue
			}
			end := 0
			for _, k := range toks {
				if k.Start < end || k.End > len(s) || k.Start >= k.End {
					t.Fatalf("Lex(%q, %+v): %+v: offsets out of order", s, o, k)
				}
				end = k.End
				if raw := s[k.Start:k.End]; (k.Kind == Word || k.Kind == Number || k.Kind == Punct) && k.Text != string([]rune(raw)) {
					t.Fatalf("Lex(%q, %+v): %+v: text is not %q", s, o, k, raw)
				}
			}
		}
	})
}

// TestDepthAfter: the depth after each token, that of the white space
// and comments that follow it.
func TestDepthAfter(t *testing.T) {
	toks := Tokens("f((a), ')') (")
	want := []int{0, 1, 2, 2, 1, 1, 1, 0, 1}
	var got []int
	for _, k := range toks {
		got = append(got, k.DepthAfter())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("DepthAfter of %s: got %v; want %v", show(toks), got, want)
	}
}

// scanOptions are the option sets Scan is checked against Lex with.
var scanOptions = []Options{{}, hardness, mysql, sqlparse, dsl, simToks, {NoBrackets: true, NoComments: true},
	{NoBrackets: true, NoComments: true, Strict: true}, {NoBrackets: true, Comments: true}, {SQLParse: true}}

// checkScan fails t unless Scan(s, o) yields the tokens and the error of
// Lex(s, o) (on an error, tokens that end before the failing offset), and
// unless a Scan stopped after n tokens yielded Lex's first n.
func checkScan(t *testing.T, s string, o Options) {
	t.Helper()
	want, wantErr := Lex(s, o)
	var got []Token
	err := Scan(s, o, func(k Token) bool { got = append(got, k); return true })
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("Scan(%q, %+v) error %v; Lex's %v", s, o, err, wantErr)
	}
	if wantErr != nil {
		var le *Error
		if !errors.As(err, &le) {
			t.Fatalf("Scan(%q, %+v) error %v is no *Error", s, o, err)
		}
		for _, k := range got {
			if k.End > le.Offset {
				t.Fatalf("Scan(%q, %+v) yielded %+v past the error at %d", s, o, k, le.Offset)
			}
		}
		return
	}
	if !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
		t.Fatalf("Scan(%q, %+v) = %s; Lex = %s", s, o, show(got), show(want))
	}
	for n := 1; n < len(want); n++ {
		var first []Token
		err := Scan(s, o, func(k Token) bool { first = append(first, k); return len(first) < n })
		if err != nil || !reflect.DeepEqual(first, want[:n]) {
			t.Fatalf("Scan(%q, %+v) stopped after %d = %s, %v; want %s", s, o, n, show(first), err, show(want[:n]))
		}
	}
}

// TestScan: Scan yields what Lex returns, stops when told, and returns
// Lex's error.
func TestScan(t *testing.T) {
	for _, s := range []string{"", "  ", "SELECT `a``b`, \"c\", [d] FROM t -- x\n/* y */ WHERE a>=1e-5 AND b<>'it''s';",
		"a [b] [c]d 'e'[f] ([g]) [h", "SELECT 'open", "/* open", "x\xffy 'a\xc3'", "SELECT 1 /*! 40101 */; # c\n-- d",
		"{rel} AND {open", "1.2.3e+4e5 .5 a$b _x ||= !=< [[a]]", "\u00a0\u2003é中文 ‘q’ # c\n@v"} {
		for _, o := range scanOptions {
			checkScan(t, s, o)
		}
	}
}

// TestWordASCII: after a word's first letter, an ASCII byte continues the
// word exactly when wordPart's rule says so: Unicode letters and digits,
// '_' and '$' (Options{}), ASCII letters, digits, '_' and '$' (Bytes).
func TestWordASCII(t *testing.T) {
	for _, o := range []Options{{}, {Bytes: true}, {NoBrackets: true, Comments: true}} {
		for c := rune(0); c < 0x80; c++ {
			s := "x" + string(c) + "y"
			toks, err := Lex(s, o)
			part := unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '$'
			if got := err == nil && len(toks) > 0 && toks[0].Kind == Word && toks[0].Text == s; got != part {
				t.Errorf("Lex(%q, %+v) = %s: one word is %v; want %v", s, o, show(toks), got, part)
			}
		}
	}
}
