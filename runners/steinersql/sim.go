package steinersql

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

func init() {
	llm.RegisterResponder(ResponderDecompose, SimDecompose)
	llm.RegisterResponder(ResponderGenerate, SimGenerate)
}

// goldTables returns the tables the gold SQL reads: from SQLite's bytecode
// when the database is SQLite, else by name.
func goldTables(ctx context.Context, db datasets.Database, s *datasets.Schema, sql string) []string {
	if db != nil && db.Dialect() == "sqlite" {
		if v, err := NewValidator(ctx, db, s); err == nil {
			if rs, err := v.ReadSet(ctx, sql); err == nil {
				return rs.Tables
			}
		}
	}
	return readSetLexical(s, sql).Tables
}

var temporalRe = regexp.MustCompile(`(?i)\b(strftime|julianday|date|datetime|year|month)\s*\(|'\d{4}(-\d{2})?(-\d{2})?[^']*'`)

// SimDecompose is the sim responder for Stage 1 ("steinersql/decompose").
// It derives the decomposition from the gold SQL: terminal tables are the
// tables the gold reads, operations its aggregate calls (with the argument
// as target), quantities its numeric literals, aggregations its GROUP BY
// items, temporal its date functions and date-like literals. An incorrect
// sample (probability 1-p) perturbs the terminals the way models err: one
// terminal dropped (when there are several), an unneeded table added, or
// a terminal misspelled (which Stage 1's correction repairs).
func SimDecompose(c *llm.SimContext) (string, error) {
	gold := c.Example.GoldSQL
	var s *datasets.Schema
	if c.DB != nil {
		s, _ = c.DB.Schema(context.Background())
	}
	if s == nil {
		s = &datasets.Schema{}
	}
	d := Decomposition{Operations: []Operation{}, Quantities: []Quantity{}, Aggregations: []string{}, Temporal: []string{}}
	d.Terminals = goldTables(context.Background(), c.DB, s, gold)
	toks := scanTokens(gold)
	for i, t := range toks {
		if t.kind == tWord && aggregateFuncs[strings.ToUpper(t.text)] && i+1 < len(toks) && toks[i+1].text == "(" {
			// The argument up to the matching parenthesis.
			depth, j := 0, i+1
			for ; j < len(toks); j++ {
				if toks[j].text == "(" {
					depth++
				} else if toks[j].text == ")" {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			d.Operations = append(d.Operations, Operation{Function: strings.ToUpper(t.text), Target: exprText(toks[i+2 : min(j, len(toks))])})
		}
		if t.kind == tNumber {
			op := ""
			if i > 0 && toks[i-1].kind == tPunct {
				op = toks[i-1].text
			}
			d.Quantities = append(d.Quantities, Quantity{Value: t.text, Operator: op})
		}
	}
	for _, core := range cores(toks) {
		for _, g := range core.groupBy {
			d.Aggregations = append(d.Aggregations, "group by "+exprText(g))
		}
	}
	for _, m := range temporalRe.FindAllString(gold, -1) {
		d.Temporal = append(d.Temporal, strings.TrimSuffix(strings.TrimSpace(m), "("))
	}
	if !c.Correct && len(s.Tables) > 0 {
		switch k := c.Rand.IntN(3); {
		case k == 0 && len(d.Terminals) > 1:
			i := c.Rand.IntN(len(d.Terminals))
			d.Terminals = slices.Delete(slices.Clone(d.Terminals), i, i+1)
		case k == 2 && len(d.Terminals) > 0:
			i := c.Rand.IntN(len(d.Terminals))
			d.Terminals = slices.Clone(d.Terminals)
			name := d.Terminals[i]
			if len(name) > 4 {
				d.Terminals[i] = name[:len(name)-1] // "enrollment" -> "enrollmen"
			}
		default:
			extra := s.Tables[c.Rand.IntN(len(s.Tables))].Name
			if !slices.Contains(d.Terminals, extra) {
				d.Terminals = append(slices.Clone(d.Terminals), extra)
			}
		}
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	return "```json\n" + string(raw) + "\n```", nil
}

// ddlTableRe finds the tables a prompt's schema shows: the CREATE TABLE
// statements of datasets.RenderDDL.
var ddlTableRe = regexp.MustCompile("(?m)^CREATE TABLE `((?:[^`]|``)+)`")

// shownTables returns the tables whose CREATE TABLE statement the
// messages show (nil when they show none).
func shownTables(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, g := range ddlTableRe.FindAllStringSubmatch(m.Content, -1) {
			out = append(out, strings.ReplaceAll(g[1], "``", "`"))
		}
	}
	return out
}

// SimGenerate is the sim responder for SQL generation
// ("steinersql/generate"). It answers like the default sim (the gold SQL
// with probability p, else a corruption) but plays a model that can only
// write what the prompt shows it: the schema part of the prompt renders the
// scaffold's tables (all tables without navigation), and when a table the
// gold SQL needs is not among them the answer is a corruption even on a
// "correct" draw. A re-planned prompt is a new request and gets a fresh
// draw.
func SimGenerate(c *llm.SimContext) (string, error) {
	sql := c.SQL()
	if c.Correct && c.DB != nil && c.Corrupt != nil {
		if shown := shownTables(c.Request.Messages); shown != nil {
			s, err := c.DB.Schema(context.Background())
			if err == nil {
				for _, t := range goldTables(context.Background(), c.DB, s, c.Example.GoldSQL) {
					if !slices.ContainsFunc(shown, func(x string) bool { return strings.EqualFold(x, t) }) {
						sql = c.Corrupt(c.Example.GoldSQL)
						break
					}
				}
			}
		}
	}
	return "Following the scaffold and the plan:\n\n```sql\n" + sql + "\n```", nil
}
