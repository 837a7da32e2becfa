package runstore

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestEndpointStatsSaturate adds endpoint counters at 2^63-1 twice (as
// merged shards or resumed sessions add them): the sum saturates at
// 2^63-1 instead of failing with SQLite's "integer overflow".
func TestEndpointStatsSaturate(t *testing.T) {
	t.Parallel()
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := EndpointStat{Model: "m", Endpoint: "http://a", Calls: 1, PromptTokens: math.MaxInt64, CompletionTokens: math.MaxInt64 - 1}
	for i := 0; i < 2; i++ {
		if err := st.AddEndpointStats([]EndpointStat{e}); err != nil {
			t.Fatalf("add %d: %v; want no error", i, err)
		}
	}
	got, err := readEndpointStats(st.db)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].PromptTokens != math.MaxInt64 || got[0].CompletionTokens != math.MaxInt64 || got[0].Calls != 2 {
		t.Errorf("endpoint stats = %+v; want calls 2, both token counts %d", got, int64(math.MaxInt64))
	}
}

// TestBadCounts writes token counts no server may send (2^63-1 and -7)
// into twelve of a call log's thirteen rows with SQL, as a store written
// before counts were validated holds them: the totals count them clamped
// (12 x llm.MaxTokenCount + 5 prompt tokens, 0 + 3 completion tokens),
// CallTotals.Bad counts the twelve, and BadCounts names the first
// maxBadCounts and then how many more, alike from ReadRun and
// SummarizeDir. A store without such rows has no line.
func TestBadCounts(t *testing.T) {
	t.Parallel()
	line := func(q string, id int) string {
		return fmt.Sprintf("item t/%s: call %d (role reason) has prompt_tokens 9223372036854775807, completion_tokens -7, outside [0, 1000000000]; counted as 1000000000 and 0", q, id)
	}
	tests := []struct {
		name      string
		bad       int
		wantTotal CallTotals
		wantLines []string
	}{
		{name: "none", bad: 0, wantTotal: CallTotals{Calls: 13, Loose: 13, PromptTokens: 13 * 5, CompletionTokens: 13 * 3}},
		{name: "twelve", bad: 12, wantTotal: CallTotals{Calls: 13, Loose: 13, PromptTokens: 12*llm.MaxTokenCount + 5, CompletionTokens: 3, Bad: 12},
			wantLines: []string{line("q01", 1), line("q02", 2), line("q03", 3), line("q04", 4), line("q05", 5),
				line("q06", 6), line("q07", 7), line("q08", 8), line("q09", 9), line("q10", 10),
				"and 2 more calls with token counts outside [0, 1000000000]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			st, err := OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 13; i++ {
				c := Call{Role: "reason", N: 1}
				id, err := st.CallStarted("t", fmt.Sprintf("q%02d", i), c)
				if err != nil {
					t.Fatal(err)
				}
				c.PromptTokens, c.CompletionTokens = 5, 3
				if err := st.CallFinished(id, c); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.db.Exec(`UPDATE model_calls SET prompt_tokens = 9223372036854775807, completion_tokens = -7 WHERE id <= ?`, tt.bad); err != nil {
				t.Fatal(err)
			}
			st.Close()
			r, err := ReadRun(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			sr, _, err := SummarizeDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string]*RunData{"ReadRun": r, "SummarizeDir": sr} {
				if got.CallLog != tt.wantTotal {
					t.Errorf("%s: call log %+v; want %+v", name, got.CallLog, tt.wantTotal)
				}
				if !slices.Equal(got.BadCounts, tt.wantLines) {
					t.Errorf("%s: bad counts\n%s\nwant\n%s", name, strings.Join(got.BadCounts, "\n"), strings.Join(tt.wantLines, "\n"))
				}
			}
		})
	}
}
