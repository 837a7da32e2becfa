package sim

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestIESRVerifyReadsShownState: the keyword-verification responder repairs
// the state the prompt shows. At p = 1 it drops every table and column the
// prompt's schema lacks (ghost, singer.nope) and every item its reading of
// the question does not support (stadium), and adds what its reading finds
// (the singer table, the > of "above", the number 20); at p = 0
// (1e-9) it still drops what the schema lacks, and keeps the unsupported
// stadium.
func TestIESRVerifyReadsShownState(t *testing.T) {
	q := "What are all distinct countries where singers above age 20 are from?"
	shown := "【Extracted keywords】\n```json\n{\"intent\": \"lookup\", \"entities\": [\"France\"], \"tables\": [\"ghost\", \"stadium\"], \"field_patterns\": [\"singer.nope\"], \"numbers\": [], \"operators\": []}\n```\n\n【Task】\nVerify the keywords."
	for _, tc := range []struct {
		p            float64
		wantTables   []string
		wantNoTables []string
		wantOps      []string
	}{
		{1, []string{"singer"}, []string{"ghost", "stadium"}, []string{">"}},
		{1e-9, []string{"stadium"}, []string{"ghost"}, nil}, // 0 would mean DefaultP
	} {
		m, err := New(concertBenchmark(t, true), Config{P: tc.p, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, shown), Responder: "iesr/verify_keywords", N: 1})
		if err != nil {
			t.Fatal(err)
		}
		out := resp.Choices[0]
		body := out[strings.Index(out, "{") : strings.LastIndex(out, "}")+1]
		var st struct {
			Intent        string   `json:"intent"`
			Tables        []string `json:"tables"`
			FieldPatterns []string `json:"field_patterns"`
			Operators     []string `json:"operators"`
			Numbers       []struct {
				Value string `json:"value"`
			} `json:"numbers"`
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("p=%g: %v in %q", tc.p, err, out)
		}
		for _, w := range tc.wantTables {
			if !slices.Contains(st.Tables, w) {
				t.Errorf("p=%g: tables %v; want %s", tc.p, st.Tables, w)
			}
		}
		for _, w := range tc.wantNoTables {
			if slices.Contains(st.Tables, w) {
				t.Errorf("p=%g: tables %v; want no %s", tc.p, st.Tables, w)
			}
		}
		if slices.Contains(st.FieldPatterns, "singer.nope") {
			t.Errorf("p=%g: field patterns %v keep a column the schema lacks", tc.p, st.FieldPatterns)
		}
		for _, w := range tc.wantOps {
			if !slices.Contains(st.Operators, w) {
				t.Errorf("p=%g: operators %v; want %s", tc.p, st.Operators, w)
			}
		}
		if tc.p == 1 && (len(st.Numbers) != 1 || st.Numbers[0].Value != "20") {
			t.Errorf("p=1: numbers %v; want the question's 20", st.Numbers)
		}
		if st.Intent != "lookup" {
			t.Errorf("p=%g: intent %q; want the shown one kept", tc.p, st.Intent)
		}
	}
}
