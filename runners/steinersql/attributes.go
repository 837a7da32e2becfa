package steinersql

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// CheckAttributes is the name of level 2's attribute check: the paper's
// "confirming that attributes in the SELECT, WHERE, and HAVING clauses
// correctly map to the entities mentioned in the natural language
// question" (Section 3.4, Level 2; Table 9, 3b).
const CheckAttributes = "attribute-mismatch"

// Question is what the validator knows of the question: its text and the
// benchmark's evidence (BIRD's hints define what words mean: "female
// refers to gender = 'F'").
type Question struct {
	Text     string
	Evidence string
}

// stopWords are question words that name no entity.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to for from by with and or not no is are was were be been
		what which who whom whose when where why how many much list show give find return tell all each every any some
		than more less most least that this these those there their its it do does did have has had please per as into
		over under between among about after before during also only other same such both either can could would should
		will may might must me we you they he she them his her our your`) {
		stopWords[w] = true
	}
}

// descriptorWords name a row of their table rather than a property of it:
// student.name maps to the entity "students" of "List the students".
var descriptorWords = map[string]bool{"name": true, "names": true, "title": true, "id": true, "code": true, "label": true, "no": true, "number": true}

// wordStem is the form two words must share to count as the same word:
// lower case, a plural or -ing/-ed ending removed ("salaries" ~ "salary",
// "courses" ~ "course", "classes" ~ "class", "opening" ~ "opened"), at
// most 6 letters ("enrolled" ~ "enrollment").
func wordStem(w string) string {
	w = strings.ToLower(w)
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2] // classes ~ class
	case len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		w = w[:len(w)-1]
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3] // opening ~ opened
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	}
	if len(w) > 6 {
		w = w[:6]
	}
	return w
}

// identWords splits an identifier or text into lower-case words.
func identWords(s string) []string {
	return strings.FieldsFunc(datasets.SpacedName(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r > 127)
	})
}

// entityIndex is what the question and the decomposition name: the word
// stems of the question and evidence, the attributes the decomposition
// names, the question's text (for values) and numbers.
type entityIndex struct {
	stems   map[string]bool
	attrs   map[string]bool // "table.column", lower case
	columns map[string]bool // bare column names the decomposition names
	funcs   map[string]bool // aggregate functions of the decomposition's operations
	text    string          // question and evidence, lower case
	numbers []float64
	numText []string // the numbers as written, for dates in string literals
	words   []string // the question's and evidence's words, lower case
}

func newEntityIndex(q Question, dec *Decomposition) *entityIndex {
	ix := &entityIndex{stems: map[string]bool{}, attrs: map[string]bool{}, columns: map[string]bool{}, funcs: map[string]bool{}}
	text := q.Text + " " + q.Evidence
	ix.text = strings.ToLower(text)
	for _, w := range identWords(text) {
		if stopWords[w] {
			continue
		}
		ix.words = append(ix.words, w)
		ix.stems[wordStem(w)] = true
		// A verb form may drop its stem's final e: "hired" and "hiring"
		// name hire_date.
		switch {
		case len(w) > 4 && strings.HasSuffix(w, "ed"):
			ix.stems[wordStem(w[:len(w)-1])] = true
		case len(w) > 5 && strings.HasSuffix(w, "ing"):
			ix.stems[wordStem(w[:len(w)-3]+"e")] = true
		}
	}
	for _, n := range questionNumbers(text) {
		ix.numText = append(ix.numText, n.Text)
		ix.numbers = append(ix.numbers, n.Value)
		if n.Percent {
			ix.numbers = append(ix.numbers, n.Value/100)
		}
	}
	if dec == nil {
		return ix
	}
	var named []string
	for _, op := range dec.Operations {
		named = append(named, op.Target)
		ix.funcs[strings.ToUpper(strings.TrimSpace(op.Function))] = true
	}
	for _, qt := range dec.Quantities {
		named = append(named, qt.Attribute)
	}
	for _, d := range dec.Dependencies {
		named = append(named, d.Requires...)
	}
	for _, n := range named {
		n = strings.ToLower(strings.Trim(strings.TrimSpace(n), "`\"[]"))
		if n == "" || n == "*" {
			continue
		}
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			tab := n[:i]
			if j := strings.LastIndexByte(tab, '.'); j >= 0 {
				tab = tab[j+1:] // schema.table.column
			}
			ix.attrs[tab+"."+n[i+1:]] = true
		} else {
			ix.columns[n] = true
		}
	}
	return ix
}

// mentionsLiteral reports whether a predicate's literal is a value the
// question states: a string literal (single- or double-quoted, without
// LIKE wildcards) the question
// or evidence contains, or one that contains a number of 3 or more
// digits it states ('2015-01-01' for "in 2015"), or a number it states (a
// percentage also as a fraction).
func (ix *entityIndex) mentionsLiteral(pred []token) bool {
	for _, t := range pred {
		switch t.Kind {
		case tString, tIdent: // SQLite reads "USA" as a string when no column has that name
			s := strings.ToLower(strings.Trim(t.Text, "%_ "))
			if s != "" && strings.Contains(ix.text, s) {
				return true
			}
			for _, n := range ix.numText {
				if len(n) >= 3 && strings.Contains(s, n) {
					return true
				}
			}
		case tNumber:
			if v, err := strconv.ParseFloat(t.Text, 64); err == nil && hasValue(ix.numbers, v) {
				return true
			}
		}
	}
	return false
}

// maps reports whether column col of table t maps to an entity of the
// question: it is a key (an identity or join column, which names its
// row), the decomposition names it, one of its words is a word of the
// question or evidence (hasWord), or it is its table's descriptor (name,
// title, id) and the question names the table.
func (ix *entityIndex) maps(t *datasets.Table, col string, fks []datasets.ForeignKey) bool {
	lc := strings.ToLower(col)
	if t != nil {
		if isKey(t, col) || slices.ContainsFunc(fks, func(fk datasets.ForeignKey) bool {
			return strings.EqualFold(fk.FromTable, t.Name) && strings.EqualFold(fk.FromColumn, col) ||
				strings.EqualFold(fk.ToTable, t.Name) && strings.EqualFold(fk.ToColumn, col)
		}) {
			return true
		}
		if ix.attrs[strings.ToLower(t.Name)+"."+lc] {
			return true
		}
	}
	if ix.columns[lc] {
		return true
	}
	words := identWords(col)
	descriptor := len(words) > 0
	for _, w := range words {
		if w == "id" || ix.hasWord(w) {
			return true
		}
		if !descriptorWords[w] {
			descriptor = false
		}
	}
	if descriptor && t != nil {
		for _, w := range identWords(t.Name) {
			if ix.hasWord(w) {
				return true
			}
		}
	}
	return false
}

// hasWord reports whether the question or evidence uses schema word w:
// the same stem (wordStem), one stem a prefix of the other when the
// shorter has at least 4 letters ("weigh" ~ "weight"), or w abbreviates
// a word pair by the first one or two letters of the first ("fname" for
// "first name", "lname" for "last name").
func (ix *entityIndex) hasWord(w string) bool {
	st := wordStem(w)
	if ix.stems[st] {
		return true
	}
	for q := range ix.stems {
		short, long := q, st
		if len(short) > len(long) {
			short, long = long, short
		}
		if len(short) >= 4 && strings.HasPrefix(long, short) {
			return true
		}
	}
	for k := 1; k <= 2 && len(w)-k >= 3; k++ {
		if !ix.stems[wordStem(w[k:])] {
			continue
		}
		for _, q := range ix.words {
			if strings.HasPrefix(q, w[:k]) && len(q) > k {
				return true
			}
		}
	}
	return false
}

// unaggregated returns toks without the calls of aggregate functions the
// decomposition's operations name: the attribute of "AVG(r.value)" maps
// to the operation entity the question asks for ("the mean
// temperature"); whether the function and its column match the request
// is level 3's check (Section 3.4, Level 3 (2)).
func (ix *entityIndex) unaggregated(toks []token) []token {
	if len(ix.funcs) == 0 {
		return toks
	}
	var out []token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind == tWord && ix.funcs[strings.ToUpper(t.Text)] && i+1 < len(toks) && toks[i+1].Text == "(" {
			d := toks[i+1].Depth
			j := i + 2
			for j < len(toks) && !(toks[j].Text == ")" && toks[j].Kind == tPunct && toks[j].Depth == d) {
				j++
			}
			i = j // skip the call up to its closing parenthesis
			continue
		}
		out = append(out, t)
	}
	return out
}

// predicates splits a WHERE or HAVING clause at the AND and OR of the
// core's depth (the AND of BETWEEN x AND y stays inside its predicate).
func predicates(toks []token, depth int) [][]token {
	var out [][]token
	var cur []token
	between := false
	for _, t := range toks {
		if t.Depth == depth && t.Kind == tWord {
			switch {
			case t.Is("BETWEEN"):
				between = true
			case t.Is("AND") && between:
				between = false
				cur = append(cur, t)
				continue
			case t.Is("AND") || t.Is("OR"):
				if len(cur) > 0 {
					out = append(out, cur)
				}
				cur = nil
				continue
			}
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// resolveRef finds the schema table of a column reference in a core: the
// table of its qualifier (an alias or a table name), else the one FROM
// table that has the column, else the one schema table that has it. It
// returns nil when the reference is no schema column (a SELECT alias) or
// is ambiguous.
func (v *Validator) resolveRef(r colRef, c selectCore) *datasets.Table {
	has := func(t *datasets.Table) bool {
		return slices.ContainsFunc(t.Columns, func(col datasets.Column) bool { return strings.EqualFold(col.Name, r.name) })
	}
	if r.qual != "" {
		name := r.qual
		if a, ok := c.aliases[r.qual]; ok {
			name = a
		}
		if t, ok := v.Schema.Table(name); ok && has(t) {
			return t
		}
		return nil
	}
	var found *datasets.Table
	for _, name := range slices.Compact(slices.Sorted(maps.Values(c.aliases))) {
		if t, ok := v.Schema.Table(name); ok && has(t) {
			if found != nil && found.Name != t.Name {
				return nil
			}
			found = t
		}
	}
	if found != nil {
		return found
	}
	for i := range v.Schema.Tables {
		if t := &v.Schema.Tables[i]; has(t) {
			if found != nil {
				return nil
			}
			found = t
		}
	}
	return found
}

// attributes is level 2's attribute check (CheckAttributes): every column
// the top-level SELECT list, WHERE and HAVING clauses use must map to an
// entity of the question (entityIndex.maps), where a WHERE or HAVING
// predicate whose literal the question states ("country = 'France'",
// "age > 20") maps all its columns. Columns that are no schema column (a
// SELECT alias) or are ambiguous are not judged. It returns at most one
// violation, listing the unmapped attributes with their clause.
func (v *Validator) attributes(sql string, q Question, dec *Decomposition) []Violation {
	ix := newEntityIndex(q, dec)
	var bad []string
	seen := map[string]bool{}
	judge := func(c selectCore, clause string, toks []token) {
		toks = ix.unaggregated(toks)
		for _, r := range columnRefs(toks) {
			t := v.resolveRef(r, c)
			if t == nil {
				continue
			}
			col := r.name // lower case: the schema's spelling keeps camelCase words
			for _, sc := range t.Columns {
				if strings.EqualFold(sc.Name, r.name) {
					col = sc.Name
				}
			}
			if ix.maps(t, col, v.Schema.ForeignKeys) {
				continue
			}
			k := fmt.Sprintf("%s.%s (%s)", t.Name, col, clause)
			if !seen[k] {
				seen[k] = true
				bad = append(bad, k)
			}
		}
	}
	for _, c := range cores(scanTokens(sql)) {
		for _, it := range c.items {
			if isSubquery(it) {
				continue
			}
			expr, _ := stripAlias(it)
			judge(c, "SELECT", expr)
		}
		for _, cl := range []struct {
			name string
			toks []token
		}{{"WHERE", c.where}, {"HAVING", c.having}} {
			for _, p := range predicates(cl.toks, c.depth) {
				if ix.mentionsLiteral(p) {
					continue
				}
				judge(c, cl.name, p)
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return []Violation{{Level: 2, Check: CheckAttributes,
		Detail: fmt.Sprintf("attribute(s) %s map to no entity of the question (the question, the evidence and the decomposition name none of them)", strings.Join(bad, ", "))}}
}
