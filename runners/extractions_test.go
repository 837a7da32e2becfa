package runners

import (
	"testing"

	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// TestExtractions: the reason of a statement is that of the first
// response that gave it (whatever its layout), an empty answer reads
// none and a statement no response gave reads "".
func TestExtractions(t *testing.T) {
	var x Extractions
	x.Note(sqltext.ExtractSQL("Here it is:\n```sql\nSELECT name\nFROM singer;\n```"))
	x.Note(sqltext.ExtractSQL("Final SQL: SELECT name FROM singer"))
	x.Note(sqltext.ExtractSQL("```sql\nSELECT 1\n```\nWait, that is wrong. Corrected query:\n```sql\nSELECT age FROM singer\n```"))
	x.Note(sqltext.ExtractSQL("I do not know."))
	tests := []struct {
		name, sql string
		want      sqltext.Reason
	}{
		{"first response wins, layout aside", "SELECT name FROM singer", sqltext.ReasonSingle},
		{"a correction", "SELECT age FROM singer", sqltext.ReasonLastCorrection},
		{"no answer", "", sqltext.ReasonNone},
		{"never given", "SELECT 2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := x.Of(tt.sql); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}
