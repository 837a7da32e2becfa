package alphasql

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Sim responders: every prompt kind of this runner answers, under the sim
// backend, in the format its parser expects. Structured answers are
// derived from the sample's SQL (the gold SQL when the sample is correct,
// a corruption of it otherwise) and the schema.
func init() {
	llm.RegisterResponder(RespKeywords, simKeywords)
	llm.RegisterResponder(RespRephrase, simRephrase)
	llm.RegisterResponder(RespSchema, simSchema)
	llm.RegisterResponder(RespValues, simValues)
	llm.RegisterResponder(RespFunctions, simFunctions)
	llm.RegisterResponder(RespSQL, simSQL)
	llm.RegisterResponder(RespRevise, simRevise)
}

var (
	literalRe   = regexp.MustCompile(`'((?:[^']|'')*)'|"((?:[^"]|"")*)"`)
	conditionRe = regexp.MustCompile(`(?i)([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)?)\s*(=|!=|<>|>=|<=|>|<|\bLIKE\b|\bNOT\s+LIKE\b)\s*('(?:[^']|'')*'|"(?:[^"]|"")*"|-?\d+(?:\.\d+)?)`)
	functionRe  = regexp.MustCompile(`(?i)\b(COUNT|SUM|AVG|MIN|MAX|STRFTIME|SUBSTR|LENGTH|ABS|ROUND|CAST|IIF|UPPER|LOWER|DATE|JULIANDAY|INSTR|REPLACE|COALESCE|IFNULL)\s*\(`)
	fromRe      = regexp.MustCompile("(?i)\\b(?:FROM|JOIN)\\s+([`\"\\[]?)([A-Za-z_]\\w*)([`\"\\]]?)")
	identRe     = regexp.MustCompile(`[A-Za-z_]\w*`)
	capWordRe   = regexp.MustCompile(`\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*\b`)
)

func fenceJSON(v any) string {
	b, _ := json.Marshal(v)
	return "```json\n" + string(b) + "\n```"
}

// simKeywords: the string literals of the sample's SQL and the
// capitalised phrases of the question (past its first word).
func simKeywords(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	kw := []string{}
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(strings.Trim(s, "%"))
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			kw = append(kw, s)
		}
	}
	for _, m := range literalRe.FindAllStringSubmatch(sql, -1) {
		if m[1] != "" {
			add(strings.ReplaceAll(m[1], "''", "'"))
		} else {
			add(strings.ReplaceAll(m[2], `""`, `"`))
		}
	}
	q := c.Example.Question
	if i := strings.IndexByte(q, ' '); i > 0 {
		q = q[i:]
	}
	for _, m := range capWordRe.FindAllString(q, -1) {
		add(m)
	}
	return "The question mentions these values.\n" + fenceJSON(map[string]any{"keywords": kw}), nil
}

// simRephrase: conditions from the SQL's predicates, then the question.
func simRephrase(c *llm.SimContext) (string, error) {
	var b strings.Builder
	b.WriteString("Conditions:\n")
	conds := conditionRe.FindAllString(c.SQL(), -1)
	if len(conds) == 0 {
		b.WriteString("- none beyond the question itself\n")
	}
	for _, m := range conds {
		b.WriteString("- " + m + "\n")
	}
	b.WriteString("Question: " + c.Example.Question)
	return b.String(), nil
}

// simSchema: the tables of the SQL with the columns of each that the SQL
// names (all of a table's columns matched case-insensitively).
func simSchema(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	sch := simSchemaOf(c)
	sel := map[string][]string{}
	idents := map[string]bool{}
	for _, id := range identRe.FindAllString(sql, -1) {
		idents[strings.ToLower(id)] = true
	}
	for _, m := range fromRe.FindAllStringSubmatch(sql, -1) {
		name := m[2]
		cols := []string{}
		if sch != nil {
			t, ok := sch.Table(name)
			if !ok {
				continue
			}
			name = t.Name
			for _, col := range t.Columns {
				if idents[strings.ToLower(col.Name)] {
					cols = append(cols, col.Name)
				}
			}
		}
		if _, dup := sel[name]; !dup {
			sel[name] = cols
		}
	}
	names := make([]string, 0, len(sel))
	for n := range sel {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprintf("The question needs table(s) %s.\n", strings.Join(names, ", ")) + fenceJSON(map[string]any{"tables": sel}), nil
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

// simValues: the SQL's column-literal comparisons.
func simValues(c *llm.SimContext) (string, error) {
	vals := []ValueCondition{}
	for _, m := range conditionRe.FindAllStringSubmatch(c.SQL(), -1) {
		v := m[3]
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') {
			v = v[1 : len(v)-1]
		}
		vals = append(vals, ValueCondition{Column: m[1], Op: strings.ToUpper(strings.Join(strings.Fields(m[2]), " ")), Value: v})
	}
	return "Filters the question implies:\n" + fenceJSON(map[string]any{"values": vals}), nil
}

// simFunctions: the SQL's function calls, with balanced arguments.
func simFunctions(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	fs := []string{}
	for _, loc := range functionRe.FindAllStringIndex(sql, -1) {
		depth, end := 0, -1
		for i := loc[1] - 1; i < len(sql); i++ {
			if sql[i] == '(' {
				depth++
			} else if sql[i] == ')' {
				depth--
				if depth == 0 {
					end = i + 1
					break
				}
			}
		}
		if end > 0 {
			fs = append(fs, sql[loc[0]:end])
		}
	}
	return "Functions the query needs:\n" + fenceJSON(map[string]any{"functions": fs}), nil
}

// simSQL answers SQL generation (and the reward's resampling) with
// divide-and-conquer reasoning and the sample's SQL.
func simSQL(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	tables := []string{}
	for _, m := range fromRe.FindAllStringSubmatch(sql, -1) {
		if !contains(tables, m[2]) {
			tables = append(tables, m[2])
		}
	}
	return fmt.Sprintf("Sub-question 1: which rows of %s are relevant?\nSub-question 2: what does the question ask of them?\nAssembling the pseudo SQL of both gives the final query.\n\n```sql\n%s\n```",
		strings.Join(tables, ", "), sql), nil
}

// simRevise answers SQL revision with the sample's SQL.
func simRevise(c *llm.SimContext) (string, error) {
	return "Checking the execution feedback against the question, the corrected query is:\n\n```sql\n" + c.SQL() + "\n```", nil
}
