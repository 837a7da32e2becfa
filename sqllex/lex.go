package sqllex

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a SQL token.
type Kind int

// Token kinds.
const (
	Word        Kind = iota // bare word: keyword or identifier
	Ident                   // quoted identifier ("x", `x`, [x])
	String                  // 'text'
	Number                  // 12, 3.5, 1e-5
	Punct                   // ( ) , . * = < <= || ...
	Comment                 // -- ..., /* ... */ (only with Options.Comments)
	Placeholder             // {name} (only with Options.Braces)
)

// Token is one token of a SQL statement.
type Token struct {
	Kind Kind
	// Text is the token as written; quoted identifiers and strings are
	// unquoted, a doubled quote read as one, and a placeholder is the
	// text between its braces. Invalid UTF-8 reads as U+FFFD, one per
	// byte.
	Text string
	// Depth is the parenthesis depth before the token.
	Depth int
	// Start and End are the token's byte offsets: sql[Start:End] is the
	// token as written, quotes included.
	Start, End int
}

// Is reports whether t is the bare word kw, letter case ignored.
func (t Token) Is(kw string) bool { return t.Kind == Word && strings.EqualFold(t.Text, kw) }

// DepthAfter is the parenthesis depth after the token, that of the white
// space and comments up to the next token: Depth, but one more after a
// '(' (a ')' has the depth it closes to as its Depth already).
func (t Token) DepthAfter() int {
	if t.Kind == Punct && t.Text == "(" {
		return t.Depth + 1
	}
	return t.Depth
}

// Options are the dialect details on which Lex differs from Tokens.
type Options struct {
	// MySQL lexes MySQL's dialect (MariaDB's too): '#' and "-- " (two
	// dashes then white space or the end) start a line comment, "--"
	// otherwise is two minus signs; a backslash escapes the next byte in
	// '...' and "..." (Text keeps it as written); '[' is punctuation; an
	// executable comment (/*! ... */, /*M! ... */) is an error, unless
	// Executable. MySQL's identifiers are WordChars "_$@".
	MySQL bool
	// Executable, with MySQL, reads an executable comment as a comment
	// (kept with Comments), as a splitter of scripts does that passes a
	// statement's text on to the server, which runs what the comment
	// holds (mysqldump's /*!40101 SET ... */).
	Executable bool
	// WordChars, when set, reads words as SQLite's and MySQL's own
	// tokenizers read identifiers, byte by byte: a word is a run of ASCII
	// letters and digits, non-ASCII characters and the bytes of WordChars,
	// so it may start with a digit (a Number when all digits: 12, but 1st
	// and 1e5 are words); white space is ASCII (space, \t, \n, \v, \f,
	// \r). Without it a word is Unicode letters, digits, '_' and '$',
	// numbers are lexed as such and white space is Unicode's.
	WordChars string
	// Qualified, with WordChars, runs a word on through dots: t1.name
	// (and 1.5) is one word, so that a keyword after a dot is a name.
	Qualified bool
	// Strict makes an unterminated quote or block comment an error;
	// without it the token runs to the end of the text. MySQL rejects
	// such text, so a MySQL lexer wants Strict too.
	Strict bool
	// NoComments reads comment markers as punctuation ("--" is two
	// minus signs, "/*" a slash and a star), as a tokenizer that knows
	// no comments does (the Spider evaluator's process_sql.tokenize).
	NoComments bool
	// NoBrackets reads '[' as punctuation, not the start of a quoted
	// identifier, as a scanner of SQL in running text does, where
	// brackets are markdown's or JSON's.
	NoBrackets bool
	// NoBlockComments reads "/*" as a slash and a star, as a scanner
	// that knows only "--" comments does.
	NoBlockComments bool
	// Comments keeps comments as tokens of kind Comment, Text as
	// written, where Tokens skips them.
	Comments bool
	// Bytes reads words and white space byte by byte, as a hand-written
	// lexer of ASCII SQL does: a word starts with an ASCII letter, '_' or
	// a non-ASCII byte and runs on through those, ASCII digits and '$';
	// white space is ASCII (space, \t, \n, \v, \f, \r). Numbers are lexed
	// as without it. WordChars and SQLParse override it.
	Bytes bool
	// Spaces, when set, are the bytes of white space; any other byte
	// is part of a token (a lone \f is punctuation with Spaces " \t\n\r").
	Spaces string
	// NoExponent reads a number as ASCII digits and dots only, as a lexer
	// that knows no exponents does: 1e5 is the number 1 and the word e5.
	NoExponent bool
	// Operators, when set, are the operators of more than one character
	// that are one Punct token, tried in order (so longest first); any
	// other punctuation is a token a character. Without it the
	// comparison and concatenation operators are: a character of "<>=!|"
	// and one of "<>=|" after it.
	Operators []string
	// Braces reads {name} as one token of kind Placeholder, up to the
	// first '}': the placeholders of templated SQL (the ReAct DSL's
	// relation references). An unterminated one runs to the end, or is
	// an error with Strict.
	Braces bool
	// SQLParse lexes as python-sqlparse's lexer splits text, as far as
	// test-suite-sql-eval's remove_distinct sees it: a "--" comment takes
	// its newline; a word is Unicode letters, digits and '_', then '$'
	// and '#' too, so it may start with a digit (a Number when all ASCII
	// digits); a backslash escapes the next byte in '...', "..." and
	// `...`; '[' opens a quoted identifier only where no name ends before
	// it (not right after a word, a quoted name or string, ')' or ']')
	// and when "]" follows, after at least one byte and before any other
	// '['; otherwise it is punctuation. Its words override WordChars'.
	SQLParse bool
}

// Error is what Lex returns for text it rejects.
type Error struct {
	// Offset is the byte offset of the opening delimiter.
	Offset int
	// Delim is the opening delimiter: ', ", `, [, { or /*.
	Delim string
	// Executable is set for a MySQL executable comment; otherwise the
	// quote or comment is unterminated.
	Executable bool
}

func (e *Error) Error() string {
	if e.Executable {
		return fmt.Sprintf("sqllex: executable comment at byte %d", e.Offset)
	}
	return fmt.Sprintf("sqllex: unterminated %s at byte %d", e.Delim, e.Offset)
}

// Tokens splits sql into tokens: words, quoted identifiers, string
// literals, numbers (with an exponent, its sign included) and punctuation
// (the two-character comparison and concatenation operators as one token).
// Comments ("--" to the end of the line, /* ... */) are skipped; an
// unterminated quote or comment runs to the end. It is Lex with the zero
// Options, which never fails.
func Tokens(sql string) []Token {
	toks, _ := Lex(sql, Options{})
	return toks
}

// Lex is Tokens with the dialect details of o. It fails only as o says
// (Strict, MySQL's executable comments), with an *Error.
func Lex(sql string, o Options) ([]Token, error) {
	// A token per 5 bytes fits most SQL: one allocation.
	l := lexer{s: sql, o: o}
	out := make([]Token, 0, len(sql)/5+4)
	for l.i < len(l.s) {
		if err := l.next(); err != nil {
			return nil, err
		}
		if l.emitted {
			l.emitted = false
			out = append(out, l.tok)
		}
	}
	return out, nil
}

// Scan calls yield with the tokens Lex(sql, o) returns, in order, until
// yield returns false, without building a slice of them: for a caller
// that looks at each token once, or only for the first few. It returns
// Lex's error, having yielded the tokens before the one that failed; when
// yield stops it, it lexes no further and returns nil.
func Scan(sql string, o Options, yield func(Token) bool) error {
	l := lexer{s: sql, o: o}
	for l.i < len(l.s) {
		if err := l.next(); err != nil {
			return err
		}
		if l.emitted {
			l.emitted = false
			if !yield(l.tok) {
				return nil
			}
		}
	}
	return nil
}

type lexer struct {
	s     string
	o     Options
	i     int // byte offset of the next rune
	depth int
	// tok is the last token lexed, lexed that there is one and emitted that
	// next lexed it (a call of next lexes at most one token).
	tok     Token
	lexed   bool
	emitted bool
}

// at returns the rune at byte offset i and its size; 0, 0 past the end.
func (l *lexer) at(i int) (rune, int) {
	if i >= len(l.s) {
		return 0, 0
	}
	if c := l.s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(l.s[i:])
}

func (l *lexer) digit(i int) bool { return i < len(l.s) && l.s[i] >= '0' && l.s[i] <= '9' }

func (l *lexer) space(r rune) bool {
	if l.o.Spaces != "" {
		return r < utf8.RuneSelf && strings.IndexByte(l.o.Spaces, byte(r)) >= 0
	}
	if l.o.WordChars != "" || l.o.Bytes {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
	}
	return unicode.IsSpace(r)
}

// wordStart and wordPart tell the characters of bare words.
func (l *lexer) wordStart(r rune) bool {
	if l.o.SQLParse {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
	}
	if l.o.WordChars != "" {
		return r >= utf8.RuneSelf || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(l.o.WordChars, r)
	}
	if l.o.Bytes {
		return r >= utf8.RuneSelf || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_'
	}
	return unicode.IsLetter(r) || r == '_'
}

func (l *lexer) wordPart(r rune) bool {
	if l.o.SQLParse {
		return l.wordStart(r) || r == '$' || r == '#'
	}
	if l.o.WordChars != "" {
		return l.wordStart(r) || r == '.' && l.o.Qualified
	}
	if l.o.Bytes {
		return l.wordStart(r) || '0' <= r && r <= '9' || r == '$'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$'
}

// text is s[a:b] as the token's Text: invalid UTF-8 reads as U+FFFD.
func (l *lexer) text(a, b int) string {
	if t := l.s[a:b]; utf8.ValidString(t) {
		return t
	}
	return string([]rune(l.s[a:b]))
}

func (l *lexer) emit(k Kind, text string, start int) {
	l.tok = Token{Kind: k, Text: text, Depth: l.depth, Start: start, End: l.i}
	l.lexed, l.emitted = true, true
}

func (l *lexer) next() error {
	s, i := l.s, l.i
	c, size := l.at(i)
	switch {
	case l.space(c):
		l.i += size
	case !l.o.NoComments && l.lineComment(i):
		for l.i < len(s) && s[l.i] != '\n' {
			l.i++
		}
		if l.o.SQLParse && l.i < len(s) {
			l.i++ // sqlparse's comment takes its newline
		}
		l.comment(i)
	case c == '/' && strings.HasPrefix(s[i:], "/*") && !l.o.NoComments && !l.o.NoBlockComments:
		if l.o.MySQL && !l.o.Executable && (strings.HasPrefix(s[i:], "/*!") || strings.HasPrefix(s[i:], "/*M!")) {
			return &Error{Offset: i, Delim: "/*", Executable: true}
		}
		end := strings.Index(s[i+2:], "*/")
		if end < 0 {
			if l.o.Strict {
				return &Error{Offset: i, Delim: "/*"}
			}
			l.i = len(s)
		} else {
			l.i = i + 2 + end + 2
		}
		l.comment(i)
	case c == '[' && l.o.SQLParse:
		if j := strings.IndexAny(s[i+1:], "[]"); j > 0 && s[i+1+j] == ']' && !l.afterName(i) {
			l.i = i + 2 + j
			l.emit(Ident, l.text(i+1, i+1+j), i)
		} else {
			l.punct(c, size)
		}
	case c == '\'' || c == '"' || c == '`' || c == '[' && !l.o.MySQL && !l.o.NoBrackets:
		return l.quoted(byte(c))
	case c == '{' && l.o.Braces:
		end := strings.IndexByte(s[i+1:], '}')
		if end < 0 {
			if l.o.Strict {
				return &Error{Offset: i, Delim: "{"}
			}
			end = len(s) - i - 1
			l.i = len(s)
		} else {
			l.i = i + 2 + end
		}
		l.emit(Placeholder, l.text(i+1, i+1+end), i)
	case (l.o.WordChars != "" || l.o.SQLParse) && l.wordStart(c):
		// A word may start with digits (1st): the run of word characters
		// is one token, a Number when all digits.
		kind := Number
		if !l.digit(i) {
			kind = Word
		}
		l.i += size
		l.word(i, kind)
	case l.o.WordChars == "" && !l.o.SQLParse && (l.digit(i) || c == '.' && l.digit(i+1)):
		l.number()
	case l.wordStart(c):
		l.i += size
		l.word(i, Word)
	default:
		l.punct(c, size)
	}
	return nil
}

// punct emits the punctuation c (size bytes) at l.i, with the bytes
// after it when they make an operator.
func (l *lexer) punct(c rune, size int) {
	s, i := l.s, l.i
	if c == ')' {
		l.depth = max(0, l.depth-1)
	}
	l.i += size
	switch {
	case l.o.Operators != nil:
		for _, op := range l.o.Operators {
			if strings.HasPrefix(s[i:], op) {
				l.i = i + max(len(op), size)
				break
			}
		}
	case l.i < len(s) && strings.ContainsRune("<>=!|", c) && strings.IndexByte("<>=|", s[l.i]) >= 0:
		l.i++
	}
	l.emit(Punct, l.text(i, l.i), i)
	if c == '(' {
		l.depth++
	}
}

// comment emits the comment from start to l.i when Options.Comments asks.
func (l *lexer) comment(start int) {
	if l.o.Comments {
		l.emit(Comment, l.s[start:l.i], start)
	}
}

// afterName reports whether the token before i ends at i and is a word,
// a number, a quoted name or string, ')' or ']'.
func (l *lexer) afterName(i int) bool {
	if !l.lexed {
		return false
	}
	t := l.tok
	if t.End != i {
		return false
	}
	switch t.Kind {
	case Word, Number, Ident, String:
		return true
	case Punct:
		return t.Text == ")" || t.Text == "]"
	}
	return false
}

// lineComment reports whether a line comment starts at i.
func (l *lexer) lineComment(i int) bool {
	s := l.s
	if !strings.HasPrefix(s[i:], "--") {
		return l.o.MySQL && s[i] == '#'
	}
	return !l.o.MySQL || i+2 == len(s) || strings.IndexByte(" \t\n\r\f\v", s[i+2]) >= 0
}

// word extends the word started at start through its word characters and
// emits it as kind k, or as a Word when a Number runs on into letters.
func (l *lexer) word(start int, k Kind) {
	// Without SQLParse and WordChars an ASCII byte continues a word when
	// it is a letter, a digit, '_' or '$' (wordPart), read here without
	// decoding it.
	ascii := !l.o.SQLParse && l.o.WordChars == ""
	for {
		if c := byte(0); ascii && l.i < len(l.s) {
			if c = l.s[l.i]; c < utf8.RuneSelf {
				if !asciiWordPart[c] {
					break
				}
				if c < '0' || c > '9' {
					k = Word
				}
				l.i++
				continue
			}
		}
		r, size := l.at(l.i)
		if size == 0 || !l.wordPart(r) {
			break
		}
		if r < '0' || r > '9' {
			k = Word
		}
		l.i += size
	}
	l.emit(k, l.text(start, l.i), start)
}

// asciiWordPart marks the ASCII letters, digits, '_' and '$'.
var asciiWordPart = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$'
	}
	return t
}()

func (l *lexer) number() {
	s, start := l.s, l.i
	for l.digit(l.i) || l.i < len(s) && s[l.i] == '.' {
		l.i++
	}
	if j := l.i; !l.o.NoExponent && j < len(s) && (s[j] == 'e' || s[j] == 'E') && (l.digit(j+1) || j+2 < len(s) && (s[j+1] == '-' || s[j+1] == '+') && l.digit(j+2)) {
		l.i += 2
		for l.digit(l.i) {
			l.i++
		}
	}
	l.emit(Number, s[start:l.i], start)
}

// quoted lexes a string literal or quoted identifier opened by q at l.i.
func (l *lexer) quoted(q byte) error {
	s, start := l.s, l.i
	end := q
	if q == '[' {
		end = ']'
	}
	escapes := l.o.MySQL && q != '`' || l.o.SQLParse
	// b holds the text up to from when a doubled quote was read as one;
	// otherwise Text is a slice of s.
	var b strings.Builder
	j := start + 1
	from := j
	closed := false
	for j < len(s) {
		if escapes && s[j] == '\\' {
			j += 2
			continue
		}
		if s[j] == end {
			if end != ']' && j+1 < len(s) && s[j+1] == end {
				b.WriteString(s[from : j+1])
				j += 2
				from = j
				continue
			}
			closed = true
			break
		}
		j++
	}
	if !closed && l.o.Strict {
		return &Error{Offset: start, Delim: string(q)}
	}
	k := Ident
	if q == '\'' {
		k = String
	}
	l.i = min(j+1, len(s))
	text := s[from:min(j, len(s))]
	if b.Len() > 0 {
		b.WriteString(text)
		text = b.String()
	}
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	l.emit(k, text, start)
	return nil
}
