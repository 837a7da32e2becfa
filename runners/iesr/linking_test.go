package iesr

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestLinkRecallMini measures how often lexical linking (question and
// evidence only, no semantic state) keeps every table of the gold SQL on
// the mini benchmark; 37 of 42 when written (misses are paraphrases such
// as "measured" for table reading). The test guards that level.
func TestLinkRecallMini(t *testing.T) {
	e := newMiniEnv(t, llm.SimConfig{P: 0.5})
	hit, n := 0, 0
	for _, ex := range e.b.Examples {
		db := e.db(t, ex.DBID)
		s, _ := db.Schema(context.Background())
		l := LinkSchema(s, QueryTerms(ex.Question, ex.Evidence, nil), DefaultLinkLSH, DefaultLinkThreshold, DefaultLinkMaxTables)
		n++
		ok := true
		for _, tb := range simTablesOf(ex.GoldSQL, s) {
			found := l.Fallback
			for k := range l.Tables {
				if strings.EqualFold(k, tb) {
					found = true
				}
			}
			ok = ok && found
		}
		if ok {
			hit++
		} else {
			t.Logf("miss %q: kept %v", ex.Question, l.Tables)
		}
	}
	t.Logf("gold-table recall of linking: %d/%d", hit, n)
	if hit < 37 {
		t.Errorf("gold-table recall %d/%d; want at least 37/42", hit, n)
	}
}
