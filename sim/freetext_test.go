package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/alphasql"
	"github.com/t2sbench/t2sbench/runners/iesr"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/sim"
)

// TestFreeTextSamplesDiffer: the samples of one free-text request
// (Alpha-SQL's rephrasing, IESR's equation analysis; n = 3 as at the
// runners' defaults) are worded differently at temperature 0.8, so the
// runners' keys (alphasql.ParseRephrase; IESR keys A1 by its words) make
// three children, and coincide at temperature 0, as a real model's would.
// Their content stays the question's: every sample ends with the question.
func TestFreeTextSamplesDiffer(t *testing.T) {
	b := loadMini(t)
	model, err := sim.New(b, sim.Config{P: 0.6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]func(string) string{
		alphasql.RespRephrase: func(s string) string { k, _ := alphasql.ParseRephrase(s); return k },
		iesr.RespEquation:     func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") },
	}
	for _, ex := range b.Examples[:10] {
		for kind, key := range keys {
			for _, tt := range []struct {
				temp float64
				want int
			}{{0.8, 3}, {0, 1}} {
				resp, err := model.Complete(context.Background(), llm.Request{Responder: kind, N: 3, Temperature: tt.temp,
					Messages: []llm.Message{{Role: "user", Content: "Question: " + ex.Question}}})
				if err != nil {
					t.Fatal(err)
				}
				distinct := map[string]bool{}
				for _, c := range resp.Choices {
					distinct[key(c)] = true
					if kind == alphasql.RespRephrase && !strings.HasSuffix(c, ex.Question) {
						t.Errorf("%s: rephrasing %q; want it to end with the question", ex.ID, c)
					}
				}
				if len(distinct) != tt.want {
					t.Errorf("%s %s at T=%v: %d distinct keys among %q; want %d", ex.ID, kind, tt.temp, len(distinct), resp.Choices, tt.want)
				}
			}
		}
	}
}
