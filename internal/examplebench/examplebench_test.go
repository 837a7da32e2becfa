package examplebench_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/examplebench"
)

// TestLoadErrors checks that bad question files fail with an error naming
// the file, the line and the field.
func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"bad json", `{"id": "q1", "db_id": "d", "question": "q", "sql": "SELECT 1"}` + "\n{\"id\": \n", "questions.jsonl:2: "},
		{"missing field", `{"id": "q1", "db_id": "d", "question": "q"}`, `questions.jsonl:1: missing or empty field "sql"`},
		{"unknown field", `{"id": "q1", "db_id": "d", "question": "q", "sql": "SELECT 1", "gold": "x"}`, `questions.jsonl:1: json: unknown field "gold"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, examplebench.QuestionsFile), []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := datasets.Open(examplebench.Name, dir, datasets.LoadOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestBag checks the rule against the cases that tell it from BIRD's set
// rule and from a typeless comparison.
func TestBag(t *testing.T) {
	rs := func(rows ...[]any) *datasets.ResultSet { return &datasets.ResultSet{Rows: rows} }
	tests := []struct {
		name       string
		gold, pred *datasets.ResultSet
		want       bool
	}{
		{"same rows, other order", rs([]any{int64(1)}, []any{int64(2)}), rs([]any{int64(2)}, []any{int64(1)}), true},
		{"a repeated row", rs([]any{"a"}), rs([]any{"a"}, []any{"a"}), false},
		{"int against float", rs([]any{int64(1)}), rs([]any{float64(1)}), false},
		{"columns swapped", rs([]any{"a", int64(1)}), rs([]any{int64(1), "a"}), false},
		{"both empty", rs(), rs(), true},
		{"null", rs([]any{nil}), rs([]any{nil}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := examplebench.Bag(tt.gold, tt.pred)
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
