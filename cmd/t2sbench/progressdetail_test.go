package main

import (
	"strings"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/bench"
)

// TestProgressDetailTokRate: the progress line shows a token rate for real
// models (here 1,000 tokens in 2 s: 500 tok/s) and none for a run on the
// simulator, whose rate measures the harness, not a model.
func TestProgressDetailTokRate(t *testing.T) {
	t.Parallel()
	s := bench.Progress{Elapsed: 2 * time.Second, Calls: 4, PromptTokens: 800, CompletionTokens: 200}
	if got := progressDetail(s, false); !strings.Contains(got, " 500 tok/s ") {
		t.Errorf("real models: got %q; want it to contain \" 500 tok/s \"", got)
	}
	if got := progressDetail(s, true); strings.Contains(got, "tok/s") || !strings.HasPrefix(got, "2.0 calls/s cache") {
		t.Errorf("simulated: got %q; want no tok/s", got)
	}
}
