package runners

import (
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// HasValue reports whether rs holds at least one non-NULL value: with
// "executes", Alpha-SQL's validity of a result (empty and all-NULL results
// are invalid), which IESR's Exec term reuses.
func HasValue(rs *datasets.ResultSet) bool {
	if rs == nil {
		return false
	}
	for _, r := range rs.Rows {
		for _, v := range r {
			if v != nil {
				return true
			}
		}
	}
	return false
}

// ExecFeedback describes an execution for a revision prompt: the error, an
// empty or all-NULL result, or the row count, columns and first five rows
// (values cut at 60 bytes).
func ExecFeedback(rs *datasets.ResultSet, err error) string {
	switch {
	case err != nil:
		return "Execution error: " + err.Error()
	case rs == nil || len(rs.Rows) == 0:
		return "The query executed but returned no rows."
	case !HasValue(rs):
		return "The query executed but every returned value is NULL."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The query returned %d row(s) with columns %s. First rows:\n", len(rs.Rows), strings.Join(rs.Columns, ", "))
	for i, r := range rs.Rows {
		if i == 5 {
			break
		}
		parts := make([]string, len(r))
		for j, v := range r {
			s := fmt.Sprint(v)
			if v == nil {
				s = "NULL"
			}
			if len(s) > 60 {
				s = s[:60] + "..."
			}
			parts[j] = s
		}
		b.WriteString("(" + strings.Join(parts, ", ") + ")\n")
	}
	return b.String()
}
