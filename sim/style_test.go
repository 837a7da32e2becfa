package sim

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"github.com/t2sbench/t2sbench/runners/llm"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

func ptr(f float64) *float64 { return &f }

// TestSimCleanUnchanged: the clean style (the default, and explicit) gives
// byte for byte the answers and token counts the simulator gave before the
// style layer existed, and, for prompts that carry everything the gold
// needs, before the behaviour model read the prompt. The digest was
// computed by this same loop at commit 00794c8 (before the layer; 81289d4a
// with the old schema-less prompt helper) and again at 34c87e9 (the last
// commit before the behaviour model) with this prompt helper, which shows
// the concert schema: both give 274e1431. With rho = 0 (independent
// samples: every question's success probability is p, and no mistake
// repeats a modal one) the behaviour model draws exactly as it did then.
func TestSimCleanUnchanged(t *testing.T) {
	const want = "274e14310aacd51eaee72bd5bbc9a4ceb71044fb7056ba4c834ad4801646d062"
	b := concertBenchmark(t, true)
	for _, style := range []string{"", StyleClean} {
		s, err := New(b, Config{P: 0.5, Seed: 11, Style: style, Rho: ptr(0)})
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, g := range concertGold {
			for _, req := range []llm.Request{
				{Messages: prompt(g.q, ""), N: 3, Answer: llm.AnswerSQL},
				{Messages: prompt(g.q, "json"), N: 2, Answer: llm.AnswerJSON, Responder: "simtest/json"},
			} {
				resp, err := s.Complete(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				for i, c := range resp.Choices {
					fmt.Fprintf(h, "%d:%s\n", len(c), c)
					if resp.Finish(i) != llm.FinishStop || resp.ReasoningOf(i) != "" {
						t.Errorf("style %q sample %d: finish %q, reasoning %q; want stop and none", style, i, resp.Finish(i), resp.ReasoningOf(i))
					}
				}
				fmt.Fprintf(h, "tokens %d %d\n", resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
			}
		}
		if got := fmt.Sprintf("%x", h.Sum(nil)); got != want {
			t.Errorf("style %q: digest of clean answers = %s; want %s (the answers before the style layer)", style, got, want)
		}
	}
	if s, _ := New(b, Config{}); strings.Contains(s.Ident().Model, "style") {
		t.Errorf("clean identity %q names a style; want the identity of before the style layer", s.Ident().Model)
	}
}

// TestSimStyleConfig: bad style settings are refused with the key named.
func TestSimStyleConfig(t *testing.T) {
	b := concertBenchmark(t, false)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown style", Config{Style: "fancy"}, `style = "fancy" unknown`},
		{"cut rate above 1", Config{Style: StyleRealistic, CutRate: ptr(1.5)}, "cut_rate = 1.5 out of range [0, 1]"},
		{"reasoning rate NaN", Config{Style: StyleRealistic, ReasoningRate: ptr(math.NaN())}, "reasoning_rate = NaN out of range"},
		{"cut rate with clean", Config{CutRate: ptr(0.1)}, "cut_rate applies to style realistic only"},
		{"reasoning rate with clean", Config{Style: StyleClean, ReasoningRate: ptr(0.1)}, "reasoning_rate applies to style realistic only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(b, tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want containing %q", err, tt.want)
			}
		})
	}
}

// TestSimStyleDeterministic: the realistic style gives the same bytes for
// the same seed, in any order of samples, and other bytes for another seed;
// its cache identity names the style and its rates.
func TestSimStyleDeterministic(t *testing.T) {
	b := concertBenchmark(t, true)
	ctx := context.Background()
	mk := func(seed int64) *Model {
		s, err := New(b, Config{P: 0.5, Seed: seed, Style: StyleRealistic, CutRate: ptr(0.2), ReasoningRate: ptr(0.5)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s1, s1b, s2 := mk(1), mk(1), mk(2)
	if got := s1.Ident().Model; !strings.Contains(got, "style=realistic,cut_rate=0.2,reasoning_rate=0.5") {
		t.Errorf("identity %q; want it to name the style and both rates", got)
	}
	same := func(a, b *llm.Response) bool {
		return reflect.DeepEqual(a.Choices, b.Choices) && reflect.DeepEqual(a.Reasoning, b.Reasoning) &&
			reflect.DeepEqual(a.FinishReasons, b.FinishReasons) && a.Usage == b.Usage
	}
	diffSeed := 0
	for i, g := range concertGold {
		req := llm.Request{Messages: prompt(g.q, ""), N: 4, Answer: llm.AnswerSQL}
		a, err := s1.Complete(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Reasoning) != 4 || len(a.FinishReasons) != 4 {
			t.Fatalf("question %d: %d reasonings, %d finish reasons; want 4 each", i, len(a.Reasoning), len(a.FinishReasons))
		}
		if a2, _ := s1b.Complete(ctx, req); !same(a, a2) {
			t.Errorf("question %d: same seed gave different responses:\n%q\n%q", i, a.Choices, a2.Choices)
		}
		if c, _ := s2.Complete(ctx, req); !same(a, c) {
			diffSeed++
		}
		tail := req
		tail.N = 2
		part, _ := s1.CompleteFrom(ctx, tail, 2)
		if !reflect.DeepEqual(part.Choices, a.Choices[2:]) || !reflect.DeepEqual(part.Reasoning, a.Reasoning[2:]) || !reflect.DeepEqual(part.FinishReasons, a.FinishReasons[2:]) {
			t.Errorf("question %d: CompleteFrom(2) = %q; want %q", i, part.Choices, a.Choices[2:])
		}
	}
	if diffSeed < len(concertGold)/2 {
		t.Errorf("seed 2 differed from seed 1 on %d of %d questions; want most", diffSeed, len(concertGold))
	}
}

// TestSimStyleSameDraws: the style layer draws from its own generator, so
// that a realistic sample is correct exactly when the clean sample of the
// same seed is: with cuts off, the SQL recovered from every realistic
// sample whose style the extractor reads equals the clean sample's SQL.
func TestSimStyleSameDraws(t *testing.T) {
	b := concertBenchmark(t, true)
	ctx := context.Background()
	clean, _ := New(b, Config{P: 0.5, Seed: 5})
	real, _ := New(b, Config{P: 0.5, Seed: 5, Style: StyleRealistic, CutRate: ptr(0)})
	checked := 0
	for _, g := range concertGold {
		req := llm.Request{Messages: prompt(g.q, ""), N: 8, Answer: llm.AnswerSQL}
		c, _ := clean.Complete(ctx, req)
		r, err := real.Complete(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Choices {
			want := fencedSQL(t, c.Choices[i])
			got, ok := sqltext.Extract(r.Choices[i])
			if !ok || normSQL(got) != normSQL(want) {
				continue // a style the extractor does not read yet (TestSimStyleRecoversSQL)
			}
			checked++
			if r.Finish(i) != llm.FinishStop {
				t.Errorf("cut_rate 0: sample %d finish = %q; want stop", i, r.Finish(i))
			}
		}
	}
	// Most styles are read by the extractor: most samples are checked.
	if checked < len(concertGold)*8/2 {
		t.Errorf("realistic samples equal to the clean SQL: %d of %d; want most", checked, len(concertGold)*8)
	}
}

// normSQL compares SQL up to whitespace, trailing semicolons and leading
// comment lines.
func normSQL(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for len(lines) > 1 && strings.HasPrefix(strings.TrimSpace(lines[0]), "--") {
		lines = lines[1:]
	}
	return sqltext.Normalise(strings.Join(lines, "\n"))
}

const cleanSQLAnswer = "Reading the schema, the answer comes from table singer.\n\n```sql\nSELECT T1.name, count(*) FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.country = 'France' GROUP BY T1.name\n```"

const cleanJSONAnswer = "Columns the query needs:\n```json\n{\"columns\": [{\"column\": \"singer.name\", \"why\": \"the answer\"}, {\"column\": \"singer.age\", \"why\": \"filter\"}], \"limit\": 3, \"ratio\": 1.5, \"distinct\": false}\n```"

const cleanDSLAnswer = "Thought: build the query step by step and check it.\n```dsl\nt2_r1 = table_ref(\"singer\", as=\"T1\")\nt2_r2 = filter_expr(t2_r1, \"T1.country = 'France'\")\nt2_r3 = select_columns(t2_r2, [\"T1.name\"])\nexecute(t2_r3)\n```"

// styleCounts renders n samples of a clean answer with the default rates
// and counts each form drawn.
func styleCounts(kind llm.AnswerKind, clean string, n int) map[string]int {
	o := styleOpts{cutRate: DefaultCutRate, reasoningRate: DefaultReasoningRate}
	counts := map[string]int{}
	for i := range n {
		st := renderStyled(kind, clean, nil, o, rand.New(rand.NewPCG(uint64(i), 42)))
		for _, f := range st.forms {
			counts[f]++
		}
		if st.reasoning != "" || strings.Contains(strings.Join(st.forms, " "), "reasoning/") {
			counts["reasoning"]++
		}
	}
	return counts
}

// checkRate fails when count/n is more than 4 binomial standard deviations
// (sqrt(p(1-p)/n)) from p: over the ~60 rates checked here a correct
// implementation fails with probability under 0.5%.
func checkRate(t *testing.T, name string, count, n int, p float64) {
	t.Helper()
	got := float64(count) / float64(n)
	tol := 4 * math.Sqrt(p*(1-p)/float64(n))
	if math.Abs(got-p) > tol {
		t.Errorf("%s: rate %.4f over %d samples; want %.4f +- %.4f", name, got, n, p, tol)
	}
}

// TestSimStyleRates: every rendering occurs at its documented share, over
// 20,000 samples of each answer kind.
func TestSimStyleRates(t *testing.T) {
	const n = 20000
	sql := styleCounts(llm.AnswerSQL, cleanSQLAnswer, n)
	for _, f := range simSQLForms {
		checkRate(t, "sql/"+f.name, sql["sql/"+f.name], n, f.weight)
	}
	tagged := 0
	for _, tag := range simSQLTags {
		tagged += sql["tag/"+tag]
	}
	// Tagged fences: fence, prose, steps, unclosed, comment, and half of
	// template_token.
	checkRate(t, "tagged fences", tagged, n, 0.30+0.15+0.10+0.05+0.05+0.05/2)
	for _, tag := range simSQLTags {
		checkRate(t, "tag/"+tag+" among tagged fences", sql["tag/"+tag], tagged, 1/float64(len(simSQLTags)))
	}
	checkRate(t, "sql/layout", sql["sql/layout"], n, simLayoutRate)
	for _, c := range []struct {
		name string
		m    map[string]int
	}{{"sql", sql}, {"json", styleCounts(llm.AnswerJSON, cleanJSONAnswer, n)}, {"dsl", styleCounts(llm.AnswerDSL, cleanDSLAnswer, n)}, {"text", styleCounts(llm.AnswerText, "Known quantities: none.\nFormula: count(*)", n)}} {
		checkRate(t, c.name+" reasoning", c.m["reasoning"], n, DefaultReasoningRate)
		checkRate(t, c.name+" reasoning/field", c.m["reasoning/field"], n, DefaultReasoningRate*simReasoningFieldRate)
		checkRate(t, c.name+" reasoning/inline", c.m["reasoning/inline"], n, DefaultReasoningRate*simReasoningClosedRate)
		checkRate(t, c.name+" reasoning/orphan_close", c.m["reasoning/orphan_close"], n, DefaultReasoningRate*(1-simReasoningFieldRate-simReasoningClosedRate))
		checkRate(t, c.name+" cut", c.m["cut"], n, DefaultCutRate)
	}
	js := styleCounts(llm.AnswerJSON, cleanJSONAnswer, n)
	for _, f := range simJSONForms {
		checkRate(t, "json/"+f.name, js["json/"+f.name], n, f.weight)
	}
	checkRate(t, "json/shuffled", js["json/shuffled"], n, simShuffleRate)
	checkRate(t, "json/numbers_as_strings", js["json/numbers_as_strings"], n, simNumStrRate)
	dsl := styleCounts(llm.AnswerDSL, cleanDSLAnswer, n)
	for _, f := range simDSLForms {
		checkRate(t, "dsl/"+f.name, dsl["dsl/"+f.name], n, f.weight)
	}
	// Numbering is drawn for every form but backticks (always a list).
	checkRate(t, "dsl/numbered", dsl["dsl/numbered"], n, (1-0.15)*simNumberedRate)
	checkRate(t, "dsl/semicolon", dsl["dsl/semicolon"], n, simDSLSemiRate)
}

// TestSimStyleCut: cut samples end with finish_reason "length" and hold a
// strict prefix of what the model would have said; the others "stop". A
// request's max_tokens cuts every answer longer than it.
func TestSimStyleCut(t *testing.T) {
	b := concertBenchmark(t, true)
	ctx := context.Background()
	full, _ := New(b, Config{P: 1, Style: StyleRealistic, CutRate: ptr(0), ReasoningRate: ptr(0)})
	cut, _ := New(b, Config{P: 1, Style: StyleRealistic, CutRate: ptr(1), ReasoningRate: ptr(0)})
	for _, g := range concertGold {
		req := llm.Request{Messages: prompt(g.q, ""), N: 3, Answer: llm.AnswerSQL}
		f, _ := full.Complete(ctx, req)
		c, err := cut.Complete(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Choices {
			if f.Finish(i) != llm.FinishStop || !c.Cut(i) {
				t.Errorf("finish reasons %q (cut_rate 0) and %q (cut_rate 1); want stop and length", f.Finish(i), c.Finish(i))
			}
			// The same seed draws the same rendering; the cut one is a
			// strict prefix of it (20% to 90% of its length).
			if !strings.HasPrefix(f.Choices[i], c.Choices[i]) || len(c.Choices[i]) >= len(f.Choices[i]) || len(c.Choices[i]) < len(f.Choices[i])/5-1 {
				t.Errorf("cut answer %q; want a strict prefix of %q", c.Choices[i], f.Choices[i])
			}
			if c.Usage.CompletionTokens >= f.Usage.CompletionTokens {
				t.Errorf("cut answers cost %d tokens, full ones %d; want fewer", c.Usage.CompletionTokens, f.Usage.CompletionTokens)
			}
		}
		// max_tokens 8 is 32 characters at 4 characters a token.
		req.MaxTokens = 8
		m, _ := full.Complete(ctx, req)
		for i, a := range m.Choices {
			if !m.Cut(i) || len(a) > 32 {
				t.Errorf("max_tokens 8: answer %q (%d bytes), finish %q; want at most 32 bytes, length", a, len(a), m.Finish(i))
			}
		}
	}
}

// TestSimStyleReasoning: a reasoning block holds a draft that differs from
// the final answer; it reaches llm.Response.Reasoning whether the server split
// it (field) or the model wrote it inline (split by llm.SplitReasoning), and
// the answer never holds a reasoning tag.
func TestSimStyleReasoning(t *testing.T) {
	o := styleOpts{cutRate: 0, reasoningRate: 1}
	modes := map[string]int{}
	for _, c := range []struct {
		kind  llm.AnswerKind
		clean string
	}{{llm.AnswerSQL, cleanSQLAnswer}, {llm.AnswerJSON, cleanJSONAnswer}, {llm.AnswerDSL, cleanDSLAnswer}, {llm.AnswerText, "Known quantities: none.\nFormula: count(*)"}} {
		for i := range 300 {
			st := renderStyled(c.kind, c.clean, nil, o, rand.New(rand.NewPCG(uint64(i), 3)))
			if st.draft == "" || !strings.Contains(st.reasoning, st.draft) {
				t.Fatalf("%s sample %d: reasoning %q; want it to hold the draft %q", c.kind, i, st.reasoning, st.draft)
			}
			if strings.Contains(strings.ToLower(st.answer), "think>") {
				t.Errorf("%s sample %d: answer %q holds a reasoning tag", c.kind, i, st.answer)
			}
			for _, f := range st.forms {
				if strings.HasPrefix(f, "reasoning/") {
					modes[f]++
				}
			}
			var final, draft string
			switch c.kind {
			case llm.AnswerSQL:
				_, final, _, _ = lastFence(c.clean, "sql")
				_, draft, _, _ = lastFence(st.draft, "sql")
			case llm.AnswerDSL:
				_, final, _, _ = lastFence(c.clean, "dsl")
				_, draft, _, _ = lastFence(st.draft, "dsl")
			case llm.AnswerJSON:
				var a, b any
				_ = json.Unmarshal([]byte(st.draft), &a)
				_, body, _, _ := lastFence(c.clean, "json")
				_ = json.Unmarshal([]byte(body), &b)
				final, draft = fmt.Sprint(b), fmt.Sprint(a)
			default:
				final, draft = c.clean, st.draft
			}
			if draft == "" || normSQL(draft) == normSQL(final) {
				t.Errorf("%s sample %d: draft %q; want one that differs from the final %q", c.kind, i, draft, final)
			}
		}
	}
	for _, m := range []string{"reasoning/field", "reasoning/inline", "reasoning/orphan_close"} {
		if modes[m] == 0 {
			t.Errorf("reasoning mode %s never drawn over 1,200 samples", m)
		}
	}
}

// extractorPending lists the SQL renderings the current sqltext.Extract
// does not read back (it should); TestSimStyleRecoversSQL
// logs them instead of failing. Remove an entry once the extractor reads it.
var extractorPending = map[string]bool{}

// TestSimStyleRecoversSQL runs sqltext.Extract on every SQL rendering (with
// reasoning blocks, without cuts) and checks it recovers the clean SQL up to
// whitespace, a trailing semicolon and a leading comment line.
func TestSimStyleRecoversSQL(t *testing.T) {
	o := styleOpts{reasoningRate: DefaultReasoningRate}
	type tally struct {
		n, failed int
		example   string
	}
	byStyle := map[string]*tally{}
	for gi, g := range concertGold {
		clean := "Reading the schema.\n\n```sql\n" + g.sql + "\n```"
		for i := range 200 {
			st := renderStyled(llm.AnswerSQL, clean, nil, o, rand.New(rand.NewPCG(uint64(gi), uint64(i))))
			key := styleKey(st.forms)
			tl := byStyle[key]
			if tl == nil {
				tl = &tally{}
				byStyle[key] = tl
			}
			tl.n++
			got, ok := sqltext.Extract(st.answer)
			if !ok || normSQL(got) != normSQL(g.sql) {
				tl.failed++
				if tl.example == "" {
					tl.example = fmt.Sprintf("%q -> %q (ok=%v)", st.answer, got, ok)
				}
			}
		}
	}
	keys := make([]string, 0, len(byStyle))
	for k := range byStyle {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tl := byStyle[k]
		switch {
		case tl.failed > 0 && extractorPending[k]:
			t.Logf("pending: the extractor fails %d of %d %s, e.g. %s", tl.failed, tl.n, k, tl.example)
		case tl.failed > 0:
			t.Errorf("style %s: the extractor fails %d of %d, e.g. %s", k, tl.failed, tl.n, tl.example)
		case extractorPending[k]:
			t.Logf("style %s now recovered in all %d samples: remove it from extractorPending", k, tl.n)
		}
	}
}

// styleKey names a SQL rendering by its form and variant (a failure on
// one fence tag or template token alone shows in the example).
func styleKey(forms []string) string {
	var parts []string
	for _, f := range forms {
		if strings.HasPrefix(f, "sql/") && f != "sql/layout" || strings.HasPrefix(f, "variant/") {
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, " ")
}

// TestSimStyleRecoversJSON decodes every JSON rendering with
// jsontext.Decode (the runners' JSON reader) and compares it with the clean
// object, numbers compared as their text (a rendering may write 3 as "3").
func TestSimStyleRecoversJSON(t *testing.T) {
	var want any
	_, body, _, _ := lastFence(cleanJSONAnswer, "json")
	if err := json.Unmarshal([]byte(body), &want); err != nil {
		t.Fatal(err)
	}
	o := styleOpts{reasoningRate: DefaultReasoningRate}
	for i := range 2000 {
		st := renderStyled(llm.AnswerJSON, cleanJSONAnswer, nil, o, rand.New(rand.NewPCG(uint64(i), 9)))
		var got any
		if err := jsontext.Decode(st.answer, &got); err != nil {
			t.Fatalf("%v: jsontext.Decode(%q): %v", st.forms, st.answer, err)
		}
		if fmt.Sprint(numbersAsText(got)) != fmt.Sprint(numbersAsText(want)) {
			t.Fatalf("%v: decoded %v; want %v", st.forms, got, want)
		}
	}
}

func numbersAsText(v any) any {
	switch x := v.(type) {
	case float64:
		return fmt.Sprint(x)
	case string:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbersAsText(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = numbersAsText(e)
		}
		return out
	}
	return v
}
