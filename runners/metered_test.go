package runners

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestMetered checks that Metered accounts the calls run makes through
// its Task by role and sets Wall, on success and on an error, and keeps
// run's Result otherwise.
func TestMetered(t *testing.T) {
	errDown := errors.New("endpoint down")
	tests := []struct {
		name    string
		err     error
		wantSQL string
	}{
		{"success", nil, "SELECT 1"},
		{"error", errDown, "SELECT 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &scripted{resps: []*llm.Response{
				{Choices: []string{"a"}, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 3}},
				{Choices: []string{"b", "c"}, Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 5}},
			}}
			res, err := Metered(context.Background(), Task{LLM: c}, func(ctx context.Context, t Task) (Result, error) {
				for _, role := range []string{"reason", "discriminator"} {
					if _, err := t.LLM.Complete(ctx, llm.Request{Role: role}); err != nil {
						return Result{}, err
					}
				}
				time.Sleep(time.Millisecond)
				return Result{SQL: "SELECT 1", Usage: map[string]RoleUsage{"stale": {Calls: 9}}}, tt.err
			})
			if !errors.Is(err, tt.err) {
				t.Errorf("err = %v; want %v", err, tt.err)
			}
			if res.SQL != tt.wantSQL {
				t.Errorf("SQL = %q; want %q", res.SQL, tt.wantSQL)
			}
			want := map[string]RoleUsage{
				"reason":        {Calls: 1, PromptTokens: 10, CompletionTokens: 3, Samples: 1},
				"discriminator": {Calls: 1, PromptTokens: 7, CompletionTokens: 5, Samples: 2},
			}
			if len(res.Usage) != len(want) {
				t.Errorf("usage = %+v; want %+v", res.Usage, want)
			}
			for role, w := range want {
				if res.Usage[role] != w {
					t.Errorf("usage[%s] = %+v; want %+v", role, res.Usage[role], w)
				}
			}
			if res.Wall < time.Millisecond {
				t.Errorf("Wall = %v; want at least the 1ms run slept", res.Wall)
			}
		})
	}
}
