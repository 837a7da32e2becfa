package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
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
			ops := k.rank[KindOperator].items()
			for _, w := range tc.wantOps {
				if !slices.Contains(ops, w) {
					t.Errorf("operators %v; want %s", ops, w)
				}
			}
			for _, w := range tc.noOps {
				if slices.Contains(ops, w) {
					t.Errorf("operators %v; want no %s", ops, w)
				}
			}
		})
	}
}

// TestSpelledNumbersDeterministic: the numbers a question spells out are
// read in the order the question uses them, so that one request gives one
// answer: repeated identical understanding and verification requests
// (four samples each) on questions spelling out several numbers answer
// alike, and the reading lists the numbers in question order.
func TestSpelledNumbersDeterministic(t *testing.T) {
	t.Parallel()
	b := concertBenchmark(t, true)
	cases := []struct {
		q    string
		want []string
	}{
		{"Which singers performed in at least two concerts at three stadiums, or in five or six or seven shows?", []string{"2", "3", "5", "6", "7"}},
		{"Which singers gave seven shows in two stadiums or four concerts?", []string{"7", "2", "4"}},
	}
	for _, tc := range cases {
		b.Examples = append(b.Examples, datasets.Example{ID: "n" + tc.q[:20], Index: len(b.Examples), DBID: "concert_singer", Question: tc.q,
			GoldSQL: "SELECT name FROM singer"})
	}
	m, err := New(b, Config{P: 0.6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c := &Sample{Prompt: ParsePrompt(drawMessages(prompt(tc.q, ""))), Question: tc.q, model: m}
			var nums []string
			for _, n := range keywordReading(c).numbers {
				nums = append(nums, n.Value)
			}
			if !slices.Equal(nums, tc.want) {
				t.Errorf("numbers %v; want %v (question order)", nums, tc.want)
			}
			shown := `{"intent": "lookup", "tables": ["singer"], "field_patterns": [], "numbers": [{"value": "2", "unit": ""}, {"value": "7", "unit": ""}], "operators": []}`
			for _, rq := range []llm.Request{
				{Messages: prompt(tc.q, ""), Responder: "iesr/understand", N: 4},
				{Messages: prompt(tc.q, "【Extracted keywords】\n```json\n"+shown+"\n```\n\n【Task】\nVerify the keywords."), Responder: "iesr/verify_keywords", N: 4},
			} {
				var first []string
				for call := range 10 {
					resp, err := m.Complete(context.Background(), rq)
					if err != nil {
						t.Fatal(err)
					}
					if call == 0 {
						first = resp.Choices
					} else if !slices.Equal(resp.Choices, first) {
						t.Fatalf("%s call %d: got %q; want the first call's %q", rq.Responder, call, resp.Choices, first)
					}
				}
			}
		})
	}
}

// TestReadingTiers: the reading ranks an item by how the prompt states
// it. Operators: MAX named as "maximum" with the intent, the MAX of a
// superlative (more often the row that has it) below the joins' "=",
// "at least" a comparison and no MIN, "after" and "between" comparisons
// only before a number, a bound on a number of rows a COUNT, a duration
// a difference and no COUNT, the SQL words, function calls and unit
// conversions of a hint in the hint's tier, its English "between" none.
// Numbers: one the question or the hint writes as text (a date, a time,
// a year the hint quotes, the 1 defining a unit) in the last tier.
// Columns: the one naming a table's rows for a question that lists rows,
// not for one that asks for a count only.
func TestReadingTiers(t *testing.T) {
	t.Parallel()
	b := concertBenchmark(t, false)
	m, err := New(b, Config{P: 0.6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, q, hint string
		kind          int
		want          map[string]int // item -> tier
		no            []string
	}{
		{"maximum named", "What is the maximum capacity of the stadiums?", "", KindOperator,
			map[string]int{"MAX": tierOperatorIntent}, nil},
		{"superlative", "Which stadium has the highest capacity?", "", KindOperator,
			map[string]int{"MAX": tierOperatorSuperlative}, nil},
		{"at least", "Which singers are at least 30 years old?", "", KindOperator,
			map[string]int{">=": tierOperatorWording}, []string{"MIN", "COUNT"}},
		{"counted", "Which stadiums hosted more than two concerts?", "", KindOperator,
			map[string]int{">": tierOperatorWording, "COUNT": tierOperatorWording}, nil},
		{"comparative", "Which singers are taller than 180?", "", KindOperator,
			map[string]int{">": tierOperatorWording}, nil},
		{"duration", "How many years passed between the first and the last concert?", "", KindOperator,
			map[string]int{"-": tierOperatorWording}, []string{"COUNT"}},
		{"hint words", "Which concerts took place in 2014?", "in 2014 refers to year LIKE '2014%'; age = CAST(age AS REAL); 1 km = 1000 m", KindOperator,
			map[string]int{"LIKE": tierOperatorHint, "CAST": tierOperatorHint, "*": tierOperatorHint}, nil},
		{"hint prose", "How many days passed between the first and the last concert?", "days between = julianday(last) - julianday(first)", KindOperator,
			map[string]int{"-": tierOperatorWording}, []string{"BETWEEN"}},
		{"bound", "Which concerts took place after 2013 or between 2001 and 2003?", "", KindOperator,
			map[string]int{">": tierOperatorWording, "BETWEEN": tierOperatorWording}, nil},
		{"no bound", "What did the stadiums earn after costs, between concerts?", "", KindOperator,
			nil, []string{">", "BETWEEN"}},
		{"named value", "How many singers come from 'France'?", "", KindOperator,
			map[string]int{"COUNT": tierOperatorIntent, "=": tierOperatorValue}, nil},
		{"negation", "Which singers did not sing in any concert?", "", KindOperator,
			map[string]int{"IN": tierOperatorLoose}, nil},
		{"dates and times", "How many concerts took place in July 2014 or on 15 March 2015 at 12:00?", "", KindNumber,
			map[string]int{"2014": tierNumberText, "15": tierNumberText, "2015": tierNumberText, "12": tierNumberText}, nil},
		{"quoted year", "Which singers older than 30 sang in concerts during 2014?", "during 2014 refers to year LIKE '2014%'", KindNumber,
			map[string]int{"30": tierNumberQuestion, "2014": tierNumberText}, nil},
		{"unit definition", "What is the capacity of the stadiums in thousands?", "1 k = 1000 seats; thousands = capacity / 1000", KindNumber,
			map[string]int{"1000": tierNumberHint, "1": tierNumberText}, nil},
		{"year compared", "Which concerts took place after 2013?", "", KindNumber,
			map[string]int{"2013": tierNumberQuestion}, nil},
		{"rows listed", "Which singers are from France?", "", KindColumn,
			map[string]int{"singer.name": tierColumnDisplay}, nil},
		{"rows counted", "How many singers are from France?", "", KindColumn,
			nil, []string{"singer.name"}},
		{"rows counted per group", "For each country, how many singers are there?", "", KindColumn,
			map[string]int{"singer.name": tierColumnDisplay}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Sample{Prompt: ParsePrompt(prompt(tc.q, "Hint: "+tc.hint)), Question: tc.q, Evidence: tc.hint, model: m}
			r := keywordReading(c).rank[tc.kind]
			tierOf := func(item string) int {
				return slices.IndexFunc(r.tiers, func(items []string) bool { return containsFold(items, item) })
			}
			for item, tier := range tc.want {
				if got := tierOf(item); got != tier {
					t.Errorf("%s in tier %d; want %d (tiers %v)", item, got, tier, r.tiers)
				}
			}
			for _, item := range tc.no {
				if got := tierOf(item); got >= 0 {
					t.Errorf("%s in tier %d; want none (tiers %v)", item, got, r.tiers)
				}
			}
		})
	}
}

// TestStemPlurals: a plural shares its singular's stem, "-ies" plurals
// included, and different words keep different stems.
func TestStemPlurals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{{"cities", "city", true}, {"categories", "category", true}, {"singers", "singer", true},
		{"departments", "department", true}, {"city", "cite", false}} {
		if got := stem(tc.a) == stem(tc.b); got != tc.same {
			t.Errorf("stem(%q) = %q, stem(%q) = %q; want same %v", tc.a, stem(tc.a), tc.b, stem(tc.b), tc.same)
		}
	}
}
