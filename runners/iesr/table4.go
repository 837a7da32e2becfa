package iesr

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/readset"
	"github.com/t2sbench/t2sbench/sqllex"
)

// Table 4 of the paper: the precision and recall of the extracted
// keywords (tables, columns, numbers with units, operators) against what
// the gold query uses, per understanding model, with and without keyword
// verification (Ve). AnalyzeGold measures both stages of one item: the
// extraction (the state before Ve: the "model" row) and the verified
// state (the "model+Ve" row, when verify_keywords ran), and stores, per
// stage and field, four trace counters
//
//	table4.<stage>.<field>.pred      extracted items
//	table4.<stage>.<field>.pred_hit  extracted items the gold uses
//	table4.<stage>.<field>.gold      items the gold uses
//	table4.<stage>.<field>.gold_hit  gold items extracted
//
// with stage "extract" or "verified" and field one of Table4Fields, so
// that a report sums them over items (micro-averaged P = pred_hit/pred,
// R = gold_hit/gold) without decoding traces.

// Table4Fields are the paper's Table 4 columns, in its order.
var Table4Fields = []string{"table", "column", "unit_num", "operator"}

// Table4Stages are the rows of one model: without and with Ve.
var Table4Stages = []string{"extract", "verified"}

// GoldUse is what a gold query uses, as Table 4 counts it: the tables and
// "table.column" names it reads (the engine's own read set:
// runners/readset, lower case), its numeric constants and its operators
// (from its tokens: GoldConstants).
type GoldUse struct {
	Tables, Columns []string
	Numbers         []float64
	Operators       []string
	// Method is the read set's method ("bytecode" or "lexical").
	Method string
}

// PR is one field's counts for one item.
type PR struct {
	Pred, PredHit, Gold, GoldHit int
}

// GoldUseOf reads what sql uses on db: tables and columns from the
// engine (SQLite's bytecode; elsewhere, or when EXPLAIN fails, the
// lexical scan), constants and operators from the tokens.
func GoldUseOf(ctx context.Context, db datasets.Database, s *datasets.Schema, sql string) (GoldUse, error) {
	rd, err := readset.NewReader(ctx, db, s)
	if err != nil {
		return GoldUse{}, fmt.Errorf("read set: %w", err)
	}
	rs, err := rd.Read(ctx, sql)
	if err != nil {
		rs = readset.Lexical(s, sql)
	}
	u := GoldUse{Method: rs.Method}
	for _, t := range rs.Tables {
		u.Tables = append(u.Tables, strings.ToLower(t))
	}
	for _, c := range rs.Columns {
		u.Columns = append(u.Columns, strings.ToLower(c))
	}
	u.Numbers, u.Operators = GoldConstants(sql)
	return u, nil
}

// ScoreKeywords counts, per field of Table4Fields, the extracted items the
// gold uses and the gold items extracted. Tables match by name and columns
// as "table.column" (case-insensitive; a bare column name matches that
// column of any table); a number matches a gold constant of the same value
// (its unit is not checked: a query holds no units); operators match in
// their canonical form (CanonicalOperator).
func ScoreKeywords(k Keywords, g GoldUse) map[string]PR {
	out := map[string]PR{}
	colMatch := func(x, gold string) bool {
		if strings.Contains(x, ".") {
			return x == gold
		}
		_, c, _ := strings.Cut(gold, ".")
		return x == c
	}
	out["table"] = count(k.Tables, g.Tables, func(x, y string) bool { return x == y })
	out["column"] = count(k.Columns, g.Columns, colMatch)
	var vals []float64
	for _, n := range k.Numbers {
		v, _, _ := strings.Cut(n, " ")
		f, ok := numberValue(v)
		if !ok {
			f = nan()
		}
		if !containsNumber(vals, f) || f != f {
			vals = append(vals, f)
		}
	}
	out["unit_num"] = count(vals, g.Numbers, sameNumber)
	out["operator"] = count(k.Operators, g.Operators, func(x, y string) bool { return x == y })
	return out
}

func count[T any](pred, gold []T, match func(p, g T) bool) PR {
	r := PR{Pred: len(pred), Gold: len(gold)}
	for _, p := range pred {
		for _, g := range gold {
			if match(p, g) {
				r.PredHit++
				break
			}
		}
	}
	for _, g := range gold {
		for _, p := range pred {
			if match(p, g) {
				r.GoldHit++
				break
			}
		}
	}
	return r
}

func nan() float64 {
	var z float64
	return z / z
}

func containsNumber(xs []float64, f float64) bool {
	for _, x := range xs {
		if sameNumber(x, f) {
			return true
		}
	}
	return false
}

// AnalyzeGold implements runners.GoldAnalyzer: the Table 4 counters of
// the item's extraction and, when keyword verification ran, of its
// verified state. An item without understanding gets none.
func (r *Runner) AnalyzeGold(ctx context.Context, ex datasets.Example, db datasets.Database, res *runners.Result) error {
	if res.Trace.Data == nil || strings.TrimSpace(ex.GoldSQL) == "" {
		return nil
	}
	extract, ok := stateOf(res.Trace.Data["extraction"])
	if !ok {
		return nil
	}
	stages := map[string]SemanticState{"extract": extract}
	if res.Trace.Counters["understand_rounds"] > 0 {
		var v ValidatedState
		if b, err := json.Marshal(res.Trace.Data["semantic_state"]); err == nil && json.Unmarshal(b, &v) == nil {
			stages["verified"] = v.State
		}
	}
	sch, err := db.Schema(ctx)
	if err != nil {
		return fmt.Errorf("iesr: table 4: schema: %w", err)
	}
	g, err := GoldUseOf(ctx, db, sch, ex.GoldSQL)
	if err != nil {
		return fmt.Errorf("iesr: table 4: %w", err)
	}
	for stage, st := range stages {
		for field, pr := range ScoreKeywords(KeywordsOf(st), g) {
			pre := runners.CounterTable4(stage, field, "")
			res.Trace.Count(pre+"pred", float64(pr.Pred))
			res.Trace.Count(pre+"pred_hit", float64(pr.PredHit))
			res.Trace.Count(pre+"gold", float64(pr.Gold))
			res.Trace.Count(pre+"gold_hit", float64(pr.GoldHit))
		}
	}
	res.Trace.Data["table4_gold"] = g
	return nil
}

// stateOf reads a semantic state stored in a trace, typed or decoded.
func stateOf(v any) (SemanticState, bool) {
	switch s := v.(type) {
	case nil:
		return SemanticState{}, false
	case SemanticState:
		return s, true
	case *SemanticState:
		return *s, s != nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return SemanticState{}, false
	}
	var s SemanticState
	return s, json.Unmarshal(b, &s) == nil
}

// sqlKeywords are the words after which '*' is a star, not a product, and
// '-' a sign, not a difference.
var sqlKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`SELECT DISTINCT ALL FROM WHERE AND OR NOT ON BY GROUP ORDER HAVING LIMIT OFFSET
		AS JOIN INNER LEFT RIGHT OUTER CROSS NATURAL USING UNION INTERSECT EXCEPT CASE WHEN THEN ELSE END
		IN IS NULL LIKE BETWEEN EXISTS ASC DESC WITH RETURN`) {
		sqlKeywords[w] = true
	}
}

// functionOps are the functions Table 4 counts as operators (written
// before "(" in the query), by canonical name.
var functionOps = map[string]string{"COUNT": "COUNT", "SUM": "SUM", "AVG": "AVG", "MIN": "MIN", "MAX": "MAX",
	"ROUND": "ROUND", "ABS": "ABS", "SQRT": "SQRT", "POWER": "POWER", "POW": "POWER", "EXP": "EXP", "LN": "LN",
	"LOG": "LOG", "LOG10": "LOG", "CAST": "CAST"}

// operand reports whether t ends an operand (so that a following '*' is a
// product and '-' a difference).
func operand(t sqllex.Token) bool {
	switch t.Kind {
	case sqllex.Number, sqllex.String, sqllex.Ident:
		return true
	case sqllex.Word:
		return !sqlKeywords[strings.ToUpper(t.Text)]
	}
	return t.Text == ")"
}

// GoldConstants reads the numeric constants and the operators of a query
// from its tokens (Table 4's unit_num and operator against the gold):
// numbers outside string literals, a sign before a number that follows no
// operand included, except the 1 of LIMIT 1 (a superlative's artefact, not
// a number of the question); operators in the vocabulary of Operators:
// arithmetic signs between operands (so COUNT(*), SELECT * and t.* are no
// product), comparisons (!= and == as <> and =), BETWEEN, LIKE, IN, and
// the aggregates and numeric functions written before "(". Each distinct
// once.
func GoldConstants(sql string) (numbers []float64, operators []string) {
	toks := sqllex.Tokens(sql)
	addOp := func(o string) {
		for _, x := range operators {
			if x == o {
				return
			}
		}
		operators = append(operators, o)
	}
	for i, t := range toks {
		var prev sqllex.Token
		if i > 0 {
			prev = toks[i-1]
		}
		switch t.Kind {
		case sqllex.Number:
			f, ok := numberValue(t.Text)
			if !ok {
				continue
			}
			if i > 0 && prev.Kind == sqllex.Punct && prev.Text == "-" && (i < 2 || !operand(toks[i-2])) {
				f = -f
			}
			if i > 0 && prev.Kind == sqllex.Word && strings.EqualFold(prev.Text, "LIMIT") && f == 1 {
				continue
			}
			if !containsNumber(numbers, f) {
				numbers = append(numbers, f)
			}
		case sqllex.Word:
			up := strings.ToUpper(t.Text)
			next := ""
			if i+1 < len(toks) {
				next = toks[i+1].Text
			}
			switch {
			case functionOps[up] != "" && next == "(":
				addOp(functionOps[up])
			case up == "BETWEEN" || up == "LIKE":
				addOp(up)
			case up == "IN" && next == "(":
				addOp("IN")
			}
		case sqllex.Punct:
			switch t.Text {
			case "=", "==":
				addOp("=")
			case "<>", "!=":
				addOp("<>")
			case "<", ">", "<=", ">=":
				addOp(t.Text)
			case "+", "/", "%":
				if i > 0 && operand(prev) {
					addOp(t.Text)
				}
			case "*", "-":
				if i > 0 && operand(prev) && i+1 < len(toks) && toks[i+1].Text != ")" && toks[i+1].Text != "," {
					addOp(t.Text)
				}
			}
		}
	}
	return numbers, operators
}
