package iesr

import (
	"strconv"
	"strings"
)

// Operators is the vocabulary of compute operators the understanding
// prompts offer and Table 4 measures: arithmetic, comparison, the
// aggregates, and the numeric functions of SQLite and MySQL a unit or
// formula question uses.
var Operators = []string{
	"+", "-", "*", "/", "%",
	"=", "<>", "<", ">", "<=", ">=", "BETWEEN", "LIKE", "IN",
	"COUNT", "SUM", "AVG", "MIN", "MAX",
	"ROUND", "ABS", "SQRT", "POWER", "EXP", "LN", "LOG", "CAST",
}

var operatorList = func() string {
	q := make([]string, len(Operators))
	for i, o := range Operators {
		q[i] = `"` + o + `"`
	}
	return strings.Join(q, ", ")
}()

// operatorWords maps the names models give operators to the vocabulary.
var operatorWords = map[string]string{
	"plus": "+", "add": "+", "addition": "+",
	"minus": "-", "subtract": "-", "subtraction": "-", "difference": "-",
	"times": "*", "multiply": "*", "multiplication": "*", "product": "*", "×": "*",
	"divide": "/", "division": "/", "divided by": "/", "ratio": "/", "÷": "/", "quotient": "/",
	"mod": "%", "modulo": "%",
	"==": "=", "equal": "=", "equals": "=", "equal to": "=", "eq": "=",
	"!=": "<>", "not equal": "<>", "not equal to": "<>", "ne": "<>", "≠": "<>",
	"greater than": ">", "more than": ">", "gt": ">", "above": ">",
	"less than": "<", "lt": "<", "below": "<", "fewer than": "<",
	"greater than or equal": ">=", "greater than or equal to": ">=", "at least": ">=", "≥": ">=", "=>": ">=", "gte": ">=",
	"less than or equal": "<=", "less than or equal to": "<=", "at most": "<=", "≤": "<=", "=<": "<=", "lte": "<=",
	"between": "BETWEEN", "like": "LIKE", "in": "IN",
	"count": "COUNT", "number of": "COUNT", "total number": "COUNT",
	"sum": "SUM", "total": "SUM",
	"avg": "AVG", "average": "AVG", "mean": "AVG",
	"min": "MIN", "minimum": "MIN", "smallest": "MIN", "lowest": "MIN",
	"max": "MAX", "maximum": "MAX", "largest": "MAX", "highest": "MAX",
	"round": "ROUND", "abs": "ABS", "absolute": "ABS", "sqrt": "SQRT", "square root": "SQRT",
	"power": "POWER", "pow": "POWER", "^": "POWER", "**": "POWER", "exp": "EXP", "ln": "LN", "log": "LOG", "cast": "CAST",
}

// CanonicalOperator maps an operator as a model writes it ("sum", "SUM()",
// "COUNT(*)", "divide", "≥", "!=") to the vocabulary (Operators), and
// reports whether it is one.
func CanonicalOperator(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i]) // SUM(), COUNT(*), AVG(x)
	}
	s = strings.Trim(s, "`'\" ")
	up := strings.ToUpper(s)
	for _, o := range Operators {
		if up == o {
			return o, true
		}
	}
	if o, ok := operatorWords[strings.ToLower(s)]; ok {
		return o, true
	}
	return "", false
}

// numberValue parses a number as models and SQL write it ("5,000", "3.6",
// "-2", "1e3", "50%"); ok is false for text that is not one.
func numberValue(s string) (float64, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, ",", ""))
	s = strings.TrimSuffix(s, "%")
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// sameNumber compares two values with a relative tolerance of 1e-9 (a
// value written 0.30 and 0.3 is one number).
func sameNumber(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := max(abs(a), abs(b), 1)
	return d <= 1e-9*m
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// cleanName normalises a schema name as a model writes it: quotes and
// backticks removed, spaces around a dot removed, lower case.
func cleanName(s string) string {
	s = strings.NewReplacer("`", "", `"`, "", "[", "", "]", "").Replace(strings.TrimSpace(s))
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + "." + strings.TrimSpace(s[i+1:])
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// Keywords are the four keyword sets of a semantic state that Table 4
// measures, normalised: tables and columns (cleanName), numbers with
// units ("value unit"), operators (canonical).
type Keywords struct {
	Tables, Columns, Numbers, Operators []string
}

// KeywordsOf extracts the keyword sets of s, each without duplicates, in
// the state's order.
func KeywordsOf(s SemanticState) Keywords {
	var k Keywords
	add := func(list *[]string, v string) {
		if v == "" {
			return
		}
		for _, x := range *list {
			if x == v {
				return
			}
		}
		*list = append(*list, v)
	}
	for _, t := range s.Tables {
		add(&k.Tables, cleanName(t))
	}
	for _, c := range s.FieldPatterns {
		add(&k.Columns, cleanName(c))
	}
	for _, n := range s.Numbers {
		add(&k.Numbers, strings.TrimSpace(n.Value+" "+n.Unit))
	}
	for _, o := range s.Operators {
		if c, ok := CanonicalOperator(o); ok {
			o = c
		}
		add(&k.Operators, o)
	}
	return k
}

// changes counts the items of the four keyword sets added or removed
// from a to b.
func changes(a, b Keywords) int {
	n := 0
	for _, p := range [][2][]string{{a.Tables, b.Tables}, {a.Columns, b.Columns}, {a.Numbers, b.Numbers}, {a.Operators, b.Operators}} {
		in := map[string]bool{}
		for _, x := range p[0] {
			in[x] = true
		}
		out := map[string]bool{}
		for _, x := range p[1] {
			out[x] = true
			if !in[x] {
				n++
			}
		}
		for x := range in {
			if !out[x] {
				n++
			}
		}
	}
	return n
}
