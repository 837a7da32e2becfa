package baseline

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
)

const systemPrompt = "You are an expert SQL assistant. Answer with one SQL query for the given database."

// Prompt builds the user prompt of the baselines: the database schema as
// CREATE TABLE statements (datasets.RenderDDL), the question and, when withEvidence is set, the
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
		b.WriteString(schemaDDL(s))
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

// ddlTexts holds the DDL text (datasets.RenderDDL with the default
// options) of each schema Prompt rendered, keyed by a weak pointer to the
// schema and dropped when the schema is collected.
var ddlTexts sync.Map

// schemaDDL returns datasets.RenderDDL(s, datasets.RenderOptions{}),
// rendered once per schema: every question of a database shares the
// schema its handle introspected once (Database.Schema), which nothing
// changes afterwards.
func schemaDDL(s *datasets.Schema) string {
	k := weak.Make(s)
	if v, ok := ddlTexts.Load(k); ok {
		return v.(string)
	}
	text := datasets.RenderDDL(s, datasets.RenderOptions{})
	if _, loaded := ddlTexts.LoadOrStore(k, text); !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[datasets.Schema]) { ddlTexts.Delete(k) }, k)
	}
	return text
}
