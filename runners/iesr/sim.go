package iesr

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Sim responders: every request kind of this runner answers, under the
// sim backend, in the shape its parser expects. Structured answers are
// derived from the sample's SQL (the gold SQL when the sample is drawn
// correct, a corruption otherwise), the question and the schema; the
// runner itself never sees the gold SQL.
func init() {
	llm.RegisterResponder(RespUnderstand, simUnderstand)
	llm.RegisterResponder(RespEquation, simEquation)
	llm.RegisterResponder(RespSchema, simSchema)
	llm.RegisterResponder(RespColumns, simColumns)
	llm.RegisterResponder(RespEntities, simEntities)
	llm.RegisterResponder(RespSQL, simSQL)
	llm.RegisterResponder(RespRevise, simRevise)
	llm.RegisterResponder(RespDiscriminator, simDiscriminator)
}

var (
	simLiteralRe = regexp.MustCompile(`'((?:[^']|'')*)'`)
	simCondRe    = regexp.MustCompile(`(?i)([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)?)\s*(=|!=|<>|>=|<=|>|<|\bLIKE\b)\s*('(?:[^']|'')*'|-?\d+(?:\.\d+)?)`)
	simFromRe    = regexp.MustCompile("(?i)\\b(?:FROM|JOIN)\\s+([`\"\\[]?)([A-Za-z_][\\w]*)([`\"\\]]?)")
	simIdentRe   = regexp.MustCompile(`[A-Za-z_][\w]*`)
	simAggRe     = regexp.MustCompile(`(?i)\b(COUNT|SUM|AVG|MIN|MAX)\s*\(([^()]*)\)`)
	simCapRe     = regexp.MustCompile(`\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*\b`)
	simNumRe     = regexp.MustCompile(`(?:^|[^\w.])(\d+(?:\.\d+)?)`)
	simSelectRe  = regexp.MustCompile(`(?is)^\s*SELECT\s+(?:DISTINCT\s+)?(.*?)\s+FROM\s`)
)

var simAggNames = map[string]string{"COUNT": "count", "SUM": "total", "AVG": "average", "MIN": "minimum", "MAX": "maximum"}

func fenceJSON(v any) string {
	b, _ := json.Marshal(v)
	return "```json\n" + string(b) + "\n```"
}

func simSchemaOf(c *llm.SimContext) *datasets.Schema {
	if c.DB == nil {
		return nil
	}
	s, err := c.DB.Schema(context.Background())
	if err != nil {
		return nil
	}
	return s
}

// simColumnsOf returns the table.column names the SQL mentions, in schema
// order.
func simColumnsOf(sql string, sch *datasets.Schema) []string {
	if sch == nil {
		return nil
	}
	idents := map[string]bool{}
	for _, id := range simIdentRe.FindAllString(sql, -1) {
		idents[strings.ToLower(id)] = true
	}
	var out []string
	for _, tb := range simTablesOf(sql, sch) {
		t, _ := sch.Table(tb)
		for _, col := range t.Columns {
			if idents[strings.ToLower(col.Name)] {
				out = append(out, t.Name+"."+col.Name)
			}
		}
	}
	return out
}

// simTablesOf returns the schema tables named after FROM or JOIN.
func simTablesOf(sql string, sch *datasets.Schema) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range simFromRe.FindAllStringSubmatch(sql, -1) {
		name := m[2]
		if sch != nil {
			t, ok := sch.Table(name)
			if !ok {
				continue
			}
			name = t.Name
		}
		if !seen[strings.ToLower(name)] {
			seen[strings.ToLower(name)] = true
			out = append(out, name)
		}
	}
	return out
}

// simUnitsIn finds the rule base's units named in text (names and symbols
// of at least three characters, or containing '/', to avoid one-letter
// false hits).
func simUnitsIn(text string) []string {
	rb := simRules()
	low := " " + strings.ToLower(text) + " "
	var out []string
	seen := map[string]bool{}
	for _, u := range rb.Units {
		for _, s := range append([]string{u.Name}, u.Symbols...) {
			s = strings.ToLower(s)
			if len(s) < 3 && !strings.Contains(s, "/") {
				continue
			}
			i := strings.Index(low, s)
			if i < 0 || isWordByte(low[i-1]) || i+len(s) < len(low) && isWordByte(low[i+len(s)]) {
				continue
			}
			if !seen[u.Name] {
				seen[u.Name] = true
				out = append(out, s)
			}
			break
		}
	}
	return out
}

var simRules = sync.OnceValue(DefaultRules)

// simUnderstand derives the semantic state from the sample's SQL and the
// question: aggregates and arithmetic become relations, literals entities
// and numbers, named units units, referenced columns field patterns.
func simUnderstand(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	sch := simSchemaOf(c)
	q := c.Example.Question
	st := SemanticState{Entities: []string{}, Relations: []Relation{}, Numbers: []Number{}, Units: simUnitsIn(q + " " + c.Example.Evidence), FieldPatterns: simColumnsOf(sql, sch)}
	unit := ""
	if len(st.Units) > 0 {
		unit = st.Units[0]
	}
	up := strings.ToUpper(sql)
	switch {
	case strings.Contains(up, "COUNT("):
		st.Intent = "count"
	case strings.Contains(up, "AVG("):
		st.Intent = "average"
	case strings.Contains(up, "MAX(") || strings.Contains(up, "DESC LIMIT 1"):
		st.Intent = "maximum"
	case strings.Contains(up, "MIN(") || strings.Contains(up, "ASC LIMIT 1"):
		st.Intent = "minimum"
	case strings.Contains(up, "SUM("):
		st.Intent = "total"
	default:
		st.Intent = "lookup"
	}
	seen := map[string]bool{}
	addEntity := func(s string) {
		s = strings.TrimSpace(strings.Trim(s, "%"))
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			st.Entities = append(st.Entities, s)
		}
	}
	for _, m := range simLiteralRe.FindAllStringSubmatch(sql, -1) {
		addEntity(strings.ReplaceAll(m[1], "''", "'"))
	}
	if i := strings.IndexByte(q, ' '); i > 0 {
		for _, m := range simCapRe.FindAllString(q[i:], -1) {
			addEntity(m)
		}
	}
	tables := simTablesOf(sql, sch)
	obj := strings.Join(tables, ", ")
	for _, m := range simAggRe.FindAllStringSubmatch(sql, -1) {
		arg := strings.TrimSpace(m[2])
		subject := spaced(lastIdent(arg))
		if arg == "*" {
			subject = "rows"
		}
		st.Relations = append(st.Relations, Relation{Subject: subject, Predicate: simAggNames[strings.ToUpper(m[1])], Object: obj,
			Unit: unit, Formula: strings.ToUpper(m[1]) + "(" + arg + ")"})
	}
	if sel := simSelectRe.FindStringSubmatch(sql); sel != nil && strings.ContainsAny(sel[1], "*/+-") && !strings.Contains(sel[1], "(*)") {
		st.Relations = append(st.Relations, Relation{Subject: spaced(lastIdent(sel[1])), Predicate: "computed as", Object: "result",
			Unit: unit, Formula: strings.TrimSpace(sel[1])})
	}
	for _, m := range simNumRe.FindAllStringSubmatch(q, -1) {
		n := Number{Value: m[1]}
		if unit != "" {
			n.Unit = unit
		}
		st.Numbers = append(st.Numbers, n)
	}
	return "The question's latent semantic state:\n" + fenceJSON(st), nil
}

func lastIdent(expr string) string {
	ids := simIdentRe.FindAllString(expr, -1)
	for i := len(ids) - 1; i >= 0; i-- {
		switch strings.ToUpper(ids[i]) {
		case "AS", "CAST", "INTEGER", "REAL", "TEXT", "DISTINCT":
			continue
		}
		return ids[i]
	}
	return expr
}

// simEquation states the select expression of the sample's SQL as the
// formula.
func simEquation(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	formula := "the requested column values"
	if m := simSelectRe.FindStringSubmatch(sql); m != nil {
		formula = strings.Join(strings.Fields(m[1]), " ")
	}
	var b strings.Builder
	b.WriteString("Known quantities: ")
	if us := simUnitsIn(c.Example.Question + " " + c.Example.Evidence); len(us) > 0 {
		b.WriteString("values in " + strings.Join(us, ", ") + "; ")
	}
	b.WriteString("the filters stated in the question.\n")
	b.WriteString("Formula: " + formula)
	return b.String(), nil
}

// simSchema selects the tables of the SQL with the columns it names.
func simSchema(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	sch := simSchemaOf(c)
	sel := map[string][]string{}
	for _, t := range simTablesOf(sql, sch) {
		sel[t] = []string{}
	}
	for _, tc := range simColumnsOf(sql, sch) {
		i := strings.IndexByte(tc, '.')
		sel[tc[:i]] = append(sel[tc[:i]], tc[i+1:])
	}
	names := make([]string, 0, len(sel))
	for n := range sel {
		names = append(names, n)
	}
	sort.Strings(names)
	type entry struct {
		Table   string   `json:"table"`
		Columns []string `json:"columns"`
	}
	list := make([]entry, 0, len(names))
	for _, n := range names {
		list = append(list, entry{Table: n, Columns: sel[n]})
	}
	return fmt.Sprintf("The question needs table(s) %s.\n", strings.Join(names, ", ")) + fenceJSON(map[string]any{"tables": list}), nil
}

// simColumns describes the columns the SQL names.
func simColumns(c *llm.SimContext) (string, error) {
	sch := simSchemaOf(c)
	notes := []ColumnNote{}
	for _, tc := range simColumnsOf(c.SQL(), sch) {
		i := strings.IndexByte(tc, '.')
		typ := ""
		if t, ok := sch.Table(tc[:i]); ok {
			for _, col := range t.Columns {
				if strings.EqualFold(col.Name, tc[i+1:]) {
					typ = col.Type
				}
			}
		}
		notes = append(notes, ColumnNote{Column: tc, Meaning: strings.TrimSpace(spaced(tc[i+1:]) + " of " + tc[:i] + " " + strings.ToLower(typ))})
	}
	return "Columns the query needs:\n" + fenceJSON(map[string]any{"columns": notes}), nil
}

// simEntities lists the SQL's column-literal comparisons.
func simEntities(c *llm.SimContext) (string, error) {
	ents := []EntityValue{}
	for _, m := range simCondRe.FindAllStringSubmatch(c.SQL(), -1) {
		v := m[3]
		if len(v) >= 2 && v[0] == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		}
		ents = append(ents, EntityValue{Mention: v, Column: m[1], Value: v})
	}
	return "Entities grounded in the database:\n" + fenceJSON(map[string]any{"entities": ents}), nil
}

// simSQL answers SQL generation and the reward's resampling.
func simSQL(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	return fmt.Sprintf("Using the tables %s and the analysis above, the query is:\n\n```sql\n%s\n```",
		strings.Join(simTablesOf(sql, nil), ", "), sql), nil
}

// simRevise answers SQL revision.
func simRevise(c *llm.SimContext) (string, error) {
	return "Known conditions, formulas and units checked against the execution feedback; the corrected query is:\n\n```sql\n" + c.SQL() + "\n```", nil
}

// simDiscriminator completes a masked trajectory.
func simDiscriminator(c *llm.SimContext) (string, error) {
	return "Continuing the reasoning from the last kept step, the remaining steps lead to:\n\n```sql\n" + c.SQL() + "\n```", nil
}
