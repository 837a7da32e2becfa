package sim

import "testing"

// FuzzTokenize: the tokens of any text are not empty and join back into
// it, so that a corruption that edits tokens leaves the rest byte for byte.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"SELECT T1.a$, \"b\"\"c\", `d`, [e f] FROM t AS T1 WHERE x >= 1e5 AND y <> 'it''s' -- no\n/* c */ || z == 2.5.1",
		"a\fb\vc\u00a0d caf\u00e9 \xff 1x .5 $a !=< 'open", "[open", "x -- y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := tokenize(s)
		for _, k := range toks {
			if k.text == "" {
				t.Fatalf("tokenize(%q): an empty token in %+v", s, toks)
			}
		}
		if got := joinTokens(toks); got != s {
			t.Fatalf("tokenize(%q) joins into %q", s, got)
		}
	})
}

// TestTokenizeKinds: the kinds tokenize gives, on the text where its
// dialect is narrower than SQLite's: no exponents, no comments, ASCII
// operators and only space, tab, newline and carriage return as white
// space.
func TestTokenizeKinds(t *testing.T) {
	var got []string
	for _, k := range tokenize("a$1>=1e5--'x'\f[y z]") {
		got = append(got, string("swnsip"[k.kind])+":"+k.text)
	}
	want := []string{"w:a$1", "p:>=", "n:1", "w:e5", "p:-", "p:-", "s:'x'", "p:\f", "i:[y z]"}
	if len(got) != len(want) {
		t.Fatalf("tokens %q; want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("token %d = %q; want %q", i, got[i], want[i])
		}
	}
}
