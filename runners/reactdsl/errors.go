package reactdsl

import (
	"fmt"
	"strings"
)

// Code classifies a DSL error. Codes are stable strings: the loop counts them
// in Trace.Counters as "dsl_error.<Code>" and the model sees them verbatim.
type Code string

// The error codes. Each Error carries a message telling the model what to fix.
const (
	SyntaxError        Code = "SyntaxError"        // the call or expression does not parse
	UnknownOperation   Code = "UnknownOperation"   // no such DSL operation
	UndefinedRelation  Code = "UndefinedRelation"  // a relation name used before it was defined
	RelationExists     Code = "RelationExists"     // a relation name assigned twice
	UnknownTable       Code = "UnknownTable"       // no such table in the database
	UnknownColumn      Code = "UnknownColumn"      // no such column in the relation
	AmbiguousColumn    Code = "AmbiguousColumn"    // an unqualified name matches several columns
	ArityMismatch      Code = "ArityMismatch"      // wrong number of columns (set_op, IN, scalar use)
	TypeMismatch       Code = "TypeMismatch"       // a value of the wrong type for the place it is used
	BadArgument        Code = "BadArgument"        // missing, unknown or ill-typed call argument
	MisplacedAggregate Code = "MisplacedAggregate" // an aggregate where none is allowed
	NotGrouped         Code = "NotGrouped"         // having() on a relation without aggregate()
	ExecutionError     Code = "ExecutionError"     // a probe's compiled SQL failed on the database
	NotLiftableCode    Code = "NotLiftable"        // SQL outside the subset the lifter covers
)

// Error is a typed DSL error. Line is the 1-based line of the call in the
// model's batch (0 when unknown); Pos a byte offset inside an expression or
// call (-1 when unknown).
type Error struct {
	Code        Code
	Line        int
	Pos         int
	Op          string   // the operation being applied
	Rel         string   // the relation involved
	Name        string   // the table, column or argument involved
	Suggestions []string // close names that exist
	Msg         string
	// Cause is the underlying DSL error of a NotLiftable error raised when
	// the lifted program failed its own type check.
	Cause *Error
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error {
	if e.Cause == nil {
		return nil
	}
	return e.Cause
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(string(e.Code))
	if e.Op != "" {
		fmt.Fprintf(&b, " in %s", e.Op)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if len(e.Suggestions) > 0 {
		fmt.Fprintf(&b, " (did you mean: %s?)", strings.Join(e.Suggestions, ", "))
	}
	return b.String()
}

func syntaxErr(pos int, format string, args ...any) *Error {
	return &Error{Code: SyntaxError, Pos: pos, Msg: fmt.Sprintf(format, args...) + fmt.Sprintf(" at offset %d", pos)}
}

func notLiftable(what string) *Error {
	return &Error{Code: NotLiftableCode, Pos: -1, Msg: what + " is outside the DSL subset"}
}

func rawSubqueryErr(pos int) *Error {
	return &Error{Code: BadArgument, Pos: pos, Msg: "raw subqueries are not allowed in DSL expressions: build the subquery as a relation rN and write {rN}"}
}

func newErr(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Pos: -1, Msg: fmt.Sprintf(format, args...)}
}

// suggest returns up to 3 candidates closest to name by edit distance
// (case-insensitive), keeping only reasonably close ones.
func suggest(name string, cands []string) []string {
	type sc struct {
		s string
		d int
	}
	var best []sc
	ln := strings.ToLower(name)
	seen := map[string]bool{}
	for _, c := range cands {
		lc := strings.ToLower(c)
		if seen[lc] {
			continue
		}
		seen[lc] = true
		d := editDistance(ln, lc)
		limit := max(2, len(ln)/2)
		if d <= limit || strings.Contains(lc, ln) || (len(lc) >= 3 && strings.Contains(ln, lc)) {
			best = append(best, sc{c, d})
		}
	}
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && (best[j].d < best[j-1].d || (best[j].d == best[j-1].d && best[j].s < best[j-1].s)); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var out []string
	for i := 0; i < len(best) && i < 3; i++ {
		out = append(out, best[i].s)
	}
	return out
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
