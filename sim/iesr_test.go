package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestIESRVerifyReadsShownState: the keyword-verification responder repairs
// the state the prompt shows to its profile's Verified row. Over 400
// samples per profile it always drops what the prompt's schema lacks
// (the ghost table, singer.nope) and keeps the shown intent; it adds the
// singer table of its reading, which the shown tables miss, at the share
// (Rv-Re)/(1-Re) that lifts the Extract recall Re to the Verified recall
// Rv; and it adds the > of "above" and the number 20, of kinds the shown
// state lists none of, at Rv (each within 4 binomial sd).
func TestIESRVerifyReadsShownState(t *testing.T) {
	q := "What are all distinct countries where singers above age 20 are from?"
	shown := "【Extracted keywords】\n```json\n{\"intent\": \"lookup\", \"entities\": [\"France\"], \"tables\": [\"ghost\", \"stadium\"], \"field_patterns\": [\"singer.nope\"], \"numbers\": [], \"operators\": []}\n```\n\n【Task】\nVerify the keywords."
	b := concertBenchmark(t, true)
	for _, name := range []string{"qwen2.5-7b", "gpt-4o"} {
		t.Run(name, func(t *testing.T) {
			m, err := New(b, Config{P: 0.6, Seed: 1, Profile: name})
			if err != nil {
				t.Fatal(err)
			}
			prof := Profiles[name]
			const reqs, per = 20, 20
			singer, gt, twenty := 0, 0, 0
			for a := range reqs {
				resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, fmt.Sprintf("%s\n(attempt %d)", shown, a)), Responder: "iesr/verify_keywords", N: per})
				if err != nil {
					t.Fatal(err)
				}
				for _, out := range resp.Choices {
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
						t.Fatalf("%v in %q", err, out)
					}
					if slices.Contains(st.Tables, "ghost") || slices.Contains(st.FieldPatterns, "singer.nope") {
						t.Fatalf("tables %v, field patterns %v; want no ghost table and no singer.nope (the schema lacks them)", st.Tables, st.FieldPatterns)
					}
					if st.Intent != "lookup" {
						t.Fatalf("intent %q; want the shown one kept", st.Intent)
					}
					if slices.Contains(st.Tables, "singer") {
						singer++
					}
					if slices.Contains(st.Operators, ">") {
						gt++
					}
					for _, n := range st.Numbers {
						if n.Value == "20" {
							twenty++
						}
					}
				}
			}
			n := float64(reqs * per)
			ext, ver := Rates(prof.Extract), Rates(prof.Verified)
			re, rv := ext[KindTable].R, ver[KindTable].R
			for _, c := range []struct {
				what string
				got  int
				want float64
			}{
				{"table singer", singer, (rv - re) / (1 - re)},
				{"operator >", gt, ver[KindOperator].R},
				{"number 20", twenty, ver[KindNumber].R},
			} {
				tol := math.Max(4*math.Sqrt(c.want*(1-c.want)/n), 0.01)
				if got := float64(c.got) / n; math.Abs(got-c.want) > tol {
					t.Errorf("%s added in %.3f of samples; want %.3f +- %.3f", c.what, got, c.want, tol)
				}
			}
		})
	}
}

// TestKeywordReadingHint: the reading takes numbers and operators from the
// question's wording and from the hint the prompt carries, and not from
// what is no formula: a unit written with a slash ("m/s") is no division,
// a quoted date no number.
func TestKeywordReadingHint(t *testing.T) {
	b := concertBenchmark(t, true)
	m, err := New(b, Config{P: 0.6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, q, hint    string
		wantNums, noNums []string
		wantOps, noOps   []string
	}{
		{"hint formula", "What is the stadium capacity in thousands?", "thousands = capacity / 1000",
			[]string{"1000"}, nil, []string{"/", "="}, nil},
		{"number word", "Which singers performed in at least four concerts?", "",
			[]string{"4"}, nil, []string{">="}, nil},
		{"unit and date", "What was the strongest wind at the stadium?", "km/h = m/s * 3.6; opened refers to date > '2015-01-01'",
			[]string{"3.6"}, []string{"2015", "1", "01"}, []string{"*", ">"}, []string{"/"}},
		{"difference", "What is the difference between the highest and lowest capacity?", "",
			nil, nil, []string{"-"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := prompt(tc.q, "Hint: "+tc.hint)
			c := &Sample{Prompt: ParsePrompt(msgs), Question: tc.q, Evidence: tc.hint, model: m}
			k := keywordReading(c)
			var nums []string
			for _, n := range k.numbers {
				nums = append(nums, n.Value)
			}
			for _, w := range tc.wantNums {
				if !slices.Contains(nums, w) {
					t.Errorf("numbers %v; want %s", nums, w)
				}
			}
			for _, w := range tc.noNums {
				if slices.Contains(nums, w) {
					t.Errorf("numbers %v; want no %s", nums, w)
				}
			}
			for _, w := range tc.wantOps {
				if !slices.Contains(k.operators, w) {
					t.Errorf("operators %v; want %s", k.operators, w)
				}
			}
			for _, w := range tc.noOps {
				if slices.Contains(k.operators, w) {
					t.Errorf("operators %v; want no %s", k.operators, w)
				}
			}
		})
	}
}
