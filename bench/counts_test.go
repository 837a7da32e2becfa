package bench

import (
	"math"
	"testing"
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
