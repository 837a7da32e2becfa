package steinersql

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttributeCheckGoldMini runs the attribute check on the gold query of
// every question of the bundled mini benchmark, with the question and its
// evidence and no decomposition: a gold query answers its question, so
// every firing is a false alarm of the lexical mapping.
func TestAttributeCheckGoldMini(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mini", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct {
		DB       string `json:"db_id"`
		Question string `json:"question"`
		Evidence string `json:"evidence"`
		SQL      string `json:"SQL"`
	}
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	vals := map[string]*Validator{}
	fired := 0
	for _, q := range qs {
		v := vals[q.DB]
		if v == nil {
			db := miniDB(t, q.DB)
			s, err := db.Schema(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			v = &Validator{DB: db, Schema: s}
			vals[q.DB] = v
		}
		if vs := v.attributes(q.SQL, Question{Text: q.Question, Evidence: q.Evidence}, nil); len(vs) > 0 {
			fired++
			t.Logf("fires on gold: %s | %s | %s", q.Question, q.SQL, vs[0].Detail)
		}
	}
	t.Logf("attribute check fires on %d of %d gold queries", fired, len(qs))
	_ = strings.TrimSpace
}
