package sim

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
)

// dslTestAnswer is a clean DSL turn as the reactdsl responder writes it.
const dslTestAnswer = "Thought: build the query step by step and check it.\n```dsl\nt2_r1 = table_ref(\"singer\", as=\"T1\")\nt2_r2 = filter_expr(t2_r1, \"T1.country = 'France'\")\nt2_r3 = aggregate(t2_r2, group_by=[], aggs=[\"count(*) AS n\"])\nexecute(t2_r3)\n```"

func init() {
	responders["simtest/dsl"] = func(*Sample) (string, error) { return dslTestAnswer, nil }
}

// parserPending lists the DSL renderings the current reactdsl.ParseCalls
// does not read back (it should); TestSimStyleRecoversDSL
// logs them instead of failing. Remove an entry once the parser reads it.
var parserPending = map[string]bool{}

var numberedRe = regexp.MustCompile(`(?m)^\d+\. `)

// dslStyle names a rendering by what its text shows.
func dslStyle(a string) string {
	var k string
	switch {
	case strings.Contains(a, "```python"):
		k = "python"
	case strings.Contains(a, "```dsl"):
		k = "dsl"
	case strings.Contains(a, "```\n"):
		k = "untagged"
	case strings.Contains(a, "`"):
		k = "backticks"
	default:
		k = "bare"
	}
	if k != "backticks" && numberedRe.MatchString(a) {
		k += " numbered"
	}
	if strings.Contains(a, ";\n") || strings.Contains(a, ";`") || strings.HasSuffix(a, ";") {
		k += " semicolon"
	}
	return k
}

// TestSimStyleRecoversDSL runs reactdsl.ParseCalls on every realistic
// rendering of a DSL turn (through the sim backend, reasoning blocks
// included, no cuts) and checks it parses the clean turn's calls.
func TestSimStyleRecoversDSL(t *testing.T) {
	q := "How many singers from France do we have?"
	b := &datasets.Benchmark{Name: "t", Split: "dev", Examples: []datasets.Example{{ID: "0", Question: q, GoldSQL: "SELECT count(*) FROM singer WHERE country = 'France'"}}}
	zero := 0.0
	s, err := New(b, Config{Style: StyleRealistic, CutRate: &zero})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	calls, _ := reactdsl.ParseCalls(dslTestAnswer)
	for _, c := range calls {
		want = append(want, c.String())
	}
	if len(want) != 4 {
		t.Fatalf("clean turn parses to %q; want 4 calls", want)
	}
	resp, err := s.Complete(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: "user", Content: "Question: " + q}}, N: 600, Answer: llm.AnswerDSL, Responder: "simtest/dsl"})
	if err != nil {
		t.Fatal(err)
	}
	type tally struct {
		n, failed int
		example   string
	}
	by := map[string]*tally{}
	for i, a := range resp.Choices {
		if resp.Finish(i) != llm.FinishStop {
			t.Fatalf("cut_rate 0: sample %d finish %q", i, resp.Finish(i))
		}
		k := dslStyle(a)
		tl := by[k]
		if tl == nil {
			tl = &tally{}
			by[k] = tl
		}
		tl.n++
		calls, errs := reactdsl.ParseCalls(a)
		var got []string
		for _, c := range calls {
			got = append(got, c.String())
		}
		if len(errs) > 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			tl.failed++
			if tl.example == "" {
				tl.example = a + " -> " + strings.Join(got, "; ")
			}
		}
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tl := by[k]
		switch {
		case tl.failed > 0 && parserPending[k]:
			t.Logf("pending: ParseCalls fails %d of %d %s, e.g. %q", tl.failed, tl.n, k, tl.example)
		case tl.failed > 0:
			t.Errorf("style %s: ParseCalls fails %d of %d, e.g. %q", k, tl.failed, tl.n, tl.example)
		case parserPending[k]:
			t.Logf("style %s now parsed in all %d samples: remove it from parserPending", k, tl.n)
		}
	}
	for _, k := range []string{"dsl", "python", "untagged", "bare", "backticks"} {
		if by[k] == nil {
			t.Errorf("rendering %s never drawn over 600 samples", k)
		}
	}
}
