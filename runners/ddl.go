package runners

import (
	"runtime"
	"sync"
	"weak"

	"github.com/t2sbench/t2sbench/datasets"
)

// ddlTexts holds the DDL text (datasets.RenderDDL with the default
// options) of each schema SchemaDDL rendered, keyed by a weak pointer to
// the schema and dropped when the schema is collected.
var ddlTexts sync.Map

// SchemaDDL returns datasets.RenderDDL(s, datasets.RenderOptions{}),
// rendered once per schema: every question of a database shares the
// schema its handle introspected once (Database.Schema), which nothing
// changes afterwards.
func SchemaDDL(s *datasets.Schema) string {
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
