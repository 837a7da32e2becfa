package datasets

import (
	"runtime"
	"sync"
	"weak"
)

// ddlTexts holds the DDL text (RenderDDL with the default options) of
// each schema SchemaDDL rendered, keyed by a weak pointer to the schema
// and dropped when the schema is collected.
var ddlTexts sync.Map

// SchemaDDL returns RenderDDL(s, RenderOptions{}), rendered once per
// schema: every question of a database shares the schema its handle
// introspected once (Database.Schema), which nothing changes afterwards,
// so a runner's prompt of each question reuses the text.
func SchemaDDL(s *Schema) string {
	k := weak.Make(s)
	if v, ok := ddlTexts.Load(k); ok {
		return v.(string)
	}
	text := RenderDDL(s, RenderOptions{})
	if _, loaded := ddlTexts.LoadOrStore(k, text); !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[Schema]) { ddlTexts.Delete(k) }, k)
	}
	return text
}
