package sim

import (
	"slices"
	"testing"
)

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
