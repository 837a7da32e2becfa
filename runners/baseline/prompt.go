package baseline

import (
	"context"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
)

const systemPrompt = "You are an expert SQL assistant. Answer with one SQL query for the given database."

// Prompt builds the user prompt of the baselines: the database schema as
// CREATE TABLE statements, the question and, when withEvidence is set, the
// benchmark's evidence. With cot set the model is asked to reason step by
// step before the final ```sql block; otherwise to answer with the block only.
func Prompt(ctx context.Context, t runners.Task, cot, withEvidence bool) (string, error) {
	var b strings.Builder
	dialect := "SQLite"
	if t.DB != nil {
		if t.DB.Dialect() == "mysql" {
			dialect = "MySQL"
		}
		s, err := t.DB.Schema(ctx)
		if err != nil {
			return "", fmt.Errorf("schema of %s: %w", t.Example.DBID, err)
		}
		fmt.Fprintf(&b, "Database schema (%s):\n", dialect)
		b.WriteString(DDL(s))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Question: %s\n", t.Example.Question)
	if withEvidence && strings.TrimSpace(t.Example.Evidence) != "" {
		fmt.Fprintf(&b, "Evidence: %s\n", t.Example.Evidence)
	}
	if cot {
		fmt.Fprintf(&b, "\nThink step by step: identify the tables, the columns, the joins and the conditions the question needs. Then give the final %s query in a ```sql block.\n", dialect)
	} else {
		fmt.Fprintf(&b, "\nAnswer with only the %s query in a ```sql block.\n", dialect)
	}
	return b.String(), nil
}

// DDL renders a schema as CREATE TABLE statements with primary and foreign
// keys, and sample values as comments.
func DDL(s *datasets.Schema) string {
	var b strings.Builder
	for _, t := range s.Tables {
		fmt.Fprintf(&b, "CREATE TABLE %s (\n", quoteIdent(t.Name))
		var lines []string
		for _, c := range t.Columns {
			l := "  " + quoteIdent(c.Name)
			if c.Type != "" {
				l += " " + c.Type
			}
			var notes []string
			if c.Comment != "" {
				notes = append(notes, c.Comment)
			}
			if len(c.Examples) > 0 {
				ex := c.Examples
				if len(ex) > 3 {
					ex = ex[:3]
				}
				notes = append(notes, "examples: "+strings.Join(ex, ", "))
			}
			if len(notes) > 0 {
				l += " -- " + strings.ReplaceAll(strings.Join(notes, "; "), "\n", " ")
			}
			lines = append(lines, l)
		}
		if len(t.PrimaryKey) > 0 {
			qs := make([]string, len(t.PrimaryKey))
			for i, k := range t.PrimaryKey {
				qs[i] = quoteIdent(k)
			}
			lines = append(lines, "  PRIMARY KEY ("+strings.Join(qs, ", ")+")")
		}
		for _, fk := range s.ForeignKeys {
			if strings.EqualFold(fk.FromTable, t.Name) {
				lines = append(lines, fmt.Sprintf("  FOREIGN KEY (%s) REFERENCES %s(%s)", quoteIdent(fk.FromColumn), quoteIdent(fk.ToTable), quoteIdent(fk.ToColumn)))
			}
		}
		// Comments end at a newline, so a comma after a commented line
		// would be swallowed; put separators before the comment.
		for i, l := range lines {
			sep := ","
			if i == len(lines)-1 {
				sep = ""
			}
			if j := strings.Index(l, " -- "); j >= 0 {
				l = l[:j] + sep + l[j:]
			} else {
				l += sep
			}
			b.WriteString(l + "\n")
		}
		b.WriteString(");\n")
	}
	return b.String()
}

func quoteIdent(s string) string {
	simple := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
