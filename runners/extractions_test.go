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

// TestExtractionsExtract: Extract returns what sqltext.Extract returns and
// notes the reason of each response that held SQL.
func TestExtractionsExtract(t *testing.T) {
	var x Extractions
	tests := []struct {
		name, out string
		want      string
		reason    sqltext.Reason
	}{
		{"a label", "SQL: SELECT city FROM singer", "SELECT city FROM singer", sqltext.ReasonSingle},
		{"a final marker", "```sql\nSELECT 1\n```\nFinal SQL:\n```sql\nSELECT age FROM singer\n```", "SELECT age FROM singer", sqltext.ReasonFinalMarker},
		{"no SQL", "I do not know.", "", sqltext.ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sql, ok := x.Extract(tt.out)
			wantSQL, wantOK := sqltext.Extract(tt.out)
			if sql != tt.want || sql != wantSQL || ok != wantOK {
				t.Errorf("got %q, %v; want %q, %v", sql, ok, tt.want, wantOK)
			}
			if got := x.Of(sql); got != tt.reason {
				t.Errorf("got reason %q; want %q", got, tt.reason)
			}
		})
	}
}
