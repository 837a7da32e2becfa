package reactdsl

import (
	"regexp"
	"strconv"
	"strings"
)

// Value is a call argument: a string, a number, a name (a relation, or
// true/false), or a list of values.
type Value struct {
	Kind string // "str", "num", "name", "list"
	Str  string // the text of str, num and name values
	List []Value
}

// Arg is one argument; Name is empty for positional arguments.
type Arg struct {
	Name string
	Val  Value
}

// Call is one DSL call: `[Target =] Op(Args...)`.
type Call struct {
	Line   int // 1-based line in the text it was parsed from
	Target string
	Op     string
	Args   []Arg
	Text   string // the call as written
}

// String formats the call in canonical DSL syntax.
func (c Call) String() string {
	var b strings.Builder
	if c.Target != "" {
		b.WriteString(c.Target)
		b.WriteString(" = ")
	}
	b.WriteString(c.Op)
	b.WriteByte('(')
	for i, a := range c.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		if a.Name != "" {
			b.WriteString(a.Name)
			b.WriteByte('=')
		}
		b.WriteString(a.Val.String())
	}
	b.WriteByte(')')
	return b.String()
}

// String formats v in DSL syntax. Strings holding a double quote but no
// single quote are written in single quotes, so SQL text reads naturally.
func (v Value) String() string {
	switch v.Kind {
	case "str":
		return quoteDSL(v.Str)
	case "list":
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return v.Str
}

func quoteDSL(s string) string {
	q := byte('"')
	if strings.Contains(s, `"`) && !strings.Contains(s, `'`) {
		q = '\''
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Str returns a value holding s.
func Str(s string) Value { return Value{Kind: "str", Str: s} }

// Name returns a value naming a relation (or true/false).
func Name(s string) Value { return Value{Kind: "name", Str: s} }

// ParseCalls extracts DSL calls from a model's answer (the text without
// its reasoning). Real models wrap their calls in several ways, and each is
// read:
//
//   - fenced blocks labelled dsl or react: every line is a call, and a
//     line that does not parse is a SyntaxError;
//   - fenced blocks labelled python (or py) or unlabelled: the lines that
//     are calls (other lines, such as prose or print statements, are
//     skipped); blocks of any other label (sql, json, ...) are never read;
//   - when no fenced block holds a call: every line of the text that is a
//     call.
//
// A call line may carry list numbering ("1. ", "2) ", "- ", "* "), an
// "Action:" label, inline backticks around the call (with prose after the
// closing backtick), and a trailing ";". Lines starting with # or // are
// comments. Calls span lines while brackets are open. An unclosed fence
// (an answer cut at the token limit) runs to the end of the text. It
// returns the calls that parsed and a typed SyntaxError for each that did
// not.
func ParseCalls(text string) ([]Call, []*Error) {
	lines := strings.Split(text, "\n")
	blocks := fences(lines)
	anyCalls := false
	for i := range blocks {
		b := &blocks[i]
		switch b.lang {
		case "dsl", "react":
			b.read, b.strict = true, true
		case "python", "py", "":
			for _, l := range lines[b.from:b.to] {
				if t, _ := callLine(l); looksLikeCall(t) {
					b.read = true
					break
				}
			}
		}
		anyCalls = anyCalls || b.read
	}
	var calls []Call
	var errs []*Error
	parse := func(from, to int, strict bool) {
		for i := from; i < to; i++ {
			t, inline := callLine(lines[i])
			if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
				continue
			}
			if !strict && !looksLikeCall(t) {
				continue
			}
			start := i
			src := t
			for bracketDepth(src) > 0 && i+1 < to {
				i++
				src += "\n" + strings.TrimSpace(lines[i])
			}
			c, err := parseCall(src, inline)
			if err != nil {
				err.Line = start + 1
				errs = append(errs, err)
				continue
			}
			c.Line = start + 1
			calls = append(calls, c)
		}
	}
	if anyCalls {
		for _, b := range blocks {
			if b.read {
				parse(b.from, b.to, b.strict)
			}
		}
		return calls, errs
	}
	// No fenced block holds calls: read the call lines outside fences.
	at := 0
	for _, b := range blocks {
		parse(at, b.from-1, false)
		at = b.to + 1
	}
	parse(at, len(lines), false)
	return calls, errs
}

// fence is a fenced code block: its label (lower case) and the lines
// [from, to) between its fence lines.
type fence struct {
	lang         string
	from, to     int
	read, strict bool
}

// fences finds the fenced blocks of lines. A fence line starts with ```
// (after indentation); an unclosed block runs to the end. A line that
// opens and closes a fence ("```answer(r3)```") is inline code, not a
// fence.
func fences(lines []string) []fence {
	var out []fence
	open := -1
	lang := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "```") || open < 0 && len(t) > 6 && strings.HasSuffix(t, "```") {
			continue
		}
		if open >= 0 {
			out = append(out, fence{lang: lang, from: open, to: i})
			open = -1
			continue
		}
		open = i + 1
		lang = strings.ToLower(strings.TrimSpace(strings.Trim(t, "`")))
		if f := strings.Fields(lang); len(f) > 0 {
			lang = f[0]
		}
	}
	if open >= 0 {
		out = append(out, fence{lang: lang, from: open, to: len(lines)})
	}
	return out
}

// listMarkRe matches the list numbering and labels models put before a
// call: "1. ", "2) ", "- ", "* ", "+ ", "• ", "Action: ", "Action 2: ",
// "**Action:** ".
var listMarkRe = regexp.MustCompile(`^(?:(?:\d{1,3}[.)]|[-*+]|•)\s+)?(?:(?:\*\*|__)?(?i:action)(?:\s*\d{1,3})?\s*:\s*(?:\*\*|__)?\s*)?`)

// callLine trims a line to the call it may hold: list numbering, an
// Action: label and an opening inline backtick are removed. inline is true
// when the call was opened by a backtick (so prose may follow its closing
// backtick).
func callLine(l string) (string, bool) {
	t := strings.TrimSpace(l)
	if t == "" {
		return t, false
	}
	t = strings.TrimSpace(t[len(listMarkRe.FindString(t)):])
	if strings.HasPrefix(t, "`") {
		return strings.TrimSpace(strings.TrimLeft(t, "`")), true
	}
	return t, false
}

// looksLikeCall reports whether a line starts like `ident = ident(` or
// `ident(` with a known operation name.
func looksLikeCall(t string) bool {
	j := 0
	for j < len(t) && isIdentPart(t[j]) {
		j++
	}
	if j == 0 {
		return false
	}
	first := t[:j]
	rest := strings.TrimLeft(t[j:], " \t")
	if strings.HasPrefix(rest, "(") {
		_, ok := ops[first]
		return ok
	}
	if !strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "==") {
		return false
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	k := 0
	for k < len(rest) && isIdentPart(rest[k]) {
		k++
	}
	return k > 0 && strings.HasPrefix(strings.TrimLeft(rest[k:], " \t"), "(")
}

// bracketDepth returns the open-bracket depth at the end of s, ignoring
// brackets inside strings. It reads the DSL's call syntax, not SQL:
// '...' and "..." strings with backslash escapes, a backquote no quote.
func bracketDepth(s string) int {
	d := 0
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if q != 0 {
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			q = c
		case '(', '[':
			d++
		case ')', ']':
			d--
		}
	}
	return d
}

// callLexer reads a DSL call, byte by byte: its strings are the call
// syntax's ('...' and "..." with backslash escapes), not SQL's, so it is
// its own lexer; the SQL inside a string argument is read by lex.
type callLexer struct {
	s string
	i int
}

func (l *callLexer) skip() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t' || l.s[l.i] == '\n' || l.s[l.i] == '\r') {
		l.i++
	}
}

func (l *callLexer) errf(format string, args ...any) *Error {
	return syntaxErr(l.i, format, args...)
}

func (l *callLexer) ident() string {
	l.skip()
	j := l.i
	for j < len(l.s) && isIdentPart(l.s[j]) && (j > l.i || isIdentStart(l.s[j])) {
		j++
	}
	id := l.s[l.i:j]
	l.i = j
	return id
}

func (l *callLexer) accept(c byte) bool {
	l.skip()
	if l.i < len(l.s) && l.s[l.i] == c {
		l.i++
		return true
	}
	return false
}

// parseCall parses one call. After the closing parenthesis it accepts a
// ";", a # comment and, when the call was opened by an inline backtick
// (inline), the closing backtick and any prose after it.
func parseCall(src string, inline bool) (Call, *Error) {
	l := &callLexer{s: src}
	c := Call{Text: src}
	name := l.ident()
	if name == "" {
		return c, l.errf("expected an operation name")
	}
	if l.accept('=') {
		c.Target = name
		if name = l.ident(); name == "" {
			return c, l.errf("expected an operation name after %q =", c.Target)
		}
	}
	c.Op = name
	if !l.accept('(') {
		return c, l.errf("expected '(' after %s", name)
	}
	if !l.accept(')') {
		for {
			l.skip()
			a := Arg{}
			save := l.i
			if id := l.ident(); id != "" && l.accept('=') {
				a.Name = id
			} else {
				l.i = save
			}
			v, err := l.value(0)
			if err != nil {
				return c, err
			}
			a.Val = v
			c.Args = append(c.Args, a)
			if l.accept(')') {
				break
			}
			if !l.accept(',') {
				return c, l.errf("expected ',' or ')' in the arguments of %s", name)
			}
		}
	}
	l.accept(';')
	l.skip()
	rest := l.s[l.i:]
	switch {
	case rest == "", strings.HasPrefix(rest, "#"), strings.HasPrefix(rest, "//"):
	case inline && strings.HasPrefix(rest, "`"):
		c.Text = strings.TrimSpace(l.s[:l.i])
	default:
		return c, l.errf("unexpected text after the call: %q", rest)
	}
	return c, nil
}

func (l *callLexer) value(depth int) (Value, *Error) {
	if depth > 20 {
		return Value{}, l.errf("lists nested too deeply")
	}
	l.skip()
	if l.i >= len(l.s) {
		return Value{}, l.errf("expected a value")
	}
	c := l.s[l.i]
	switch {
	case c == '"' || c == '\'':
		var b strings.Builder
		j := l.i + 1
		for j < len(l.s) {
			d := l.s[j]
			if d == '\\' && j+1 < len(l.s) {
				switch e := l.s[j+1]; e {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(e)
				}
				j += 2
				continue
			}
			if d == c {
				l.i = j + 1
				return Str(b.String()), nil
			}
			b.WriteByte(d)
			j++
		}
		return Value{}, l.errf("unterminated string")
	case c == '[':
		l.i++
		v := Value{Kind: "list", List: []Value{}}
		if l.accept(']') {
			return v, nil
		}
		for {
			e, err := l.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.List = append(v.List, e)
			if l.accept(']') {
				return v, nil
			}
			if !l.accept(',') {
				return Value{}, l.errf("expected ',' or ']' in a list")
			}
		}
	case c == '-' || isDigit(c):
		j := l.i + 1
		for j < len(l.s) && (isDigit(l.s[j]) || l.s[j] == '.') {
			j++
		}
		txt := l.s[l.i:j]
		if _, err := strconv.ParseFloat(txt, 64); err != nil {
			return Value{}, l.errf("bad number %q", txt)
		}
		l.i = j
		return Value{Kind: "num", Str: txt}, nil
	case isIdentStart(c):
		return Name(l.ident()), nil
	}
	return Value{}, l.errf("unexpected %q: want a string, number, name or [list]", string(c))
}
