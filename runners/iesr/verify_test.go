package iesr

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/sim"
)

// TestParseStateRealAnswers reads extraction and verification answers as
// real models write them.
func TestParseStateRealAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      Keywords
		wantErr   error
	}{
		{
			name: "prose around a fence, keys in other cases",
			out:  "Sure, here is the state.\n```json\n{\"Intent\": \"max\", \"TABLES\": [\"reading\"], \"fieldPatterns\": [\"reading.value\"], \"Numbers\": [{\"Value\": \"3.6\", \"Unit\": \"km/h\"}], \"operators\": [\"MAX\"]}\n```\nLet me know if you need more.",
			want: Keywords{Tables: []string{"reading"}, Columns: []string{"reading.value"}, Numbers: []string{"3.6 km/h"}, Operators: []string{"MAX"}},
		},
		{
			name: "numbers as numbers and strings, null unit, operator names",
			out:  `{"tables": ["station"], "numbers": [5, "10 km", {"value": 2.5, "unit": null}, {"value": null}], "operators": ["sum()", "divide", "≥", "COUNT(*)", "divide"]}`,
			want: Keywords{Tables: []string{"station"}, Numbers: []string{"5", "10 km", "2.5"}, Operators: []string{"SUM", "/", ">=", "COUNT"}},
		},
		{
			name: "a draft inside <think>, the final object after it",
			out:  "<think>Maybe {\"tables\": [\"ghost\"]}? No, the schema has station.</think>\n{\"tables\": [\"station\"], \"operators\": [\">\"]}",
			want: Keywords{Tables: []string{"station"}, Operators: []string{">"}},
		},
		{
			name: "the shown state echoed, then the corrected one",
			out:  "You gave: {\"tables\": [\"a\"]}\nCorrected:\n```json\n{\"tables\": [\"a\", \"b\"], \"field_patterns\": [\"b.x\"]}\n```",
			want: Keywords{Tables: []string{"a", "b"}, Columns: []string{"b.x"}},
		},
		{
			name: "missing fields and an unknown operator kept as written",
			out:  `{"intent": "lookup", "operators": ["ORDER BY"]}`,
			want: Keywords{Operators: []string{"ORDER BY"}},
		},
		{
			name:    "truncated mid-object",
			out:     "```json\n{\"tables\": [\"station\"], \"numbers\": [{\"value\": \"5\", \"unit\": \"k",
			wantErr: jsontext.ErrNoJSON,
		},
		{
			name:    "prose only",
			out:     "The question needs the station table and a comparison.",
			wantErr: jsontext.ErrNoJSON,
		},
	} {
		st, err := ParseState(tc.out)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: err %v; want %v", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := KeywordsOf(st); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

// understandScript answers the understanding requests from a list (extraction
// first, then each verification round; the last repeats) and every other
// request with the France query; it keeps the verification prompts.
type understandScript struct {
	mu       sync.Mutex
	extract  string
	verify   []string
	rounds   int
	prompts  []string
	requests map[string]int
}

func (s *understandScript) Complete(_ context.Context, r llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.requests == nil {
		s.requests = map[string]int{}
	}
	s.requests[r.Responder]++
	resp := &llm.Response{}
	for i := 0; i < r.Samples(); i++ {
		out := "```sql\n" + franceSQL + "\n```"
		switch r.Responder {
		case RespUnderstand:
			out = s.extract
		case RespVerify:
			out = s.verify[min(s.rounds, len(s.verify)-1)]
			s.rounds++
			s.prompts = append(s.prompts, r.Messages[len(r.Messages)-1].Content)
		case RespSchema, RespColumns, RespEntities:
			out = `{"tables": ["singer"], "columns": [], "entities": []}`
		case RespEquation:
			out = "Count the rows."
		}
		resp.Choices = append(resp.Choices, out)
	}
	return resp, nil
}

// TestVerifyKeywordsSwitch: verify_keywords and understanding_rounds change
// the understanding calls and the trace. The extraction misses the table
// and the operators; round 1 repairs them (4 keyword changes: the table,
// the column, COUNT and =), round 2 changes nothing and ends the rounds.
func TestVerifyKeywordsSwitch(t *testing.T) {
	db := robustDB(t)
	extract := "```json\n{\"intent\": \"count\", \"entities\": [\"France\"], \"tables\": [], \"field_patterns\": [], \"operators\": []}\n```"
	repaired := "```json\n{\"intent\": \"count\", \"entities\": [\"France\"], \"tables\": [\"singer\"], \"field_patterns\": [\"singer.country\"], \"operators\": [\"COUNT\", \"=\"]}\n```"
	for _, tc := range []struct {
		params        runners.Params
		wantCalls     int // understand requests
		wantRounds    int
		wantChanged   int
		wantVerified  bool
		wantFinalTabs []string
	}{
		{runners.Params{"verify_keywords": false}, 1, 0, 0, false, []string{}},
		{runners.Params{}, 3, 2, 4, true, []string{"singer"}},
		{runners.Params{"understanding_rounds": 1}, 2, 1, 4, true, []string{"singer"}},
	} {
		tc.params["n_rollout"] = 2
		tc.params["stage_discriminator"] = false
		r, err := New(tc.params)
		if err != nil {
			t.Fatal(err)
		}
		m := &understandScript{extract: extract, verify: []string{repaired}}
		res, err := r.Run(context.Background(), robustTask(m, db))
		if err != nil {
			t.Fatal(err)
		}
		c := res.Trace.Counters
		if got := res.Usage[runners.RoleUnderstand].Calls; got != tc.wantCalls || m.requests[RespUnderstand]+m.requests[RespVerify] != tc.wantCalls {
			t.Errorf("%v: understand calls %d (requests %v); want %d", tc.params, got, m.requests, tc.wantCalls)
		}
		if int(c["understand_rounds"]) != tc.wantRounds || int(c["keywords_changed"]) != tc.wantChanged {
			t.Errorf("%v: understand_rounds %v, keywords_changed %v; want %d, %d", tc.params, c["understand_rounds"], c["keywords_changed"], tc.wantRounds, tc.wantChanged)
		}
		steps := 0
		for _, s := range res.Trace.Steps {
			if s.Action == "verify_keywords" {
				steps++
			}
		}
		if steps != tc.wantRounds {
			t.Errorf("%v: %d verify_keywords steps; want %d", tc.params, steps, tc.wantRounds)
		}
		ex, _ := res.Trace.Data["extraction"].(SemanticState)
		vs, _ := res.Trace.Data["semantic_state"].(ValidatedState)
		if len(ex.Tables) != 0 {
			t.Errorf("%v: extraction tables %v; want none (the extraction before Ve)", tc.params, ex.Tables)
		}
		if !reflect.DeepEqual(vs.State.Tables, tc.wantFinalTabs) {
			t.Errorf("%v: final tables %v; want %v", tc.params, vs.State.Tables, tc.wantFinalTabs)
		}
		// The gold analysis: the extraction found no table of the gold's
		// one (singer); after Ve it found it.
		ex2 := robustTask(m, db).Example
		ex2.GoldSQL = franceSQL
		if err := r.(*Runner).AnalyzeGold(context.Background(), ex2, db, &res); err != nil {
			t.Fatal(err)
		}
		if c["table4.extract.table.gold"] != 1 || c["table4.extract.table.gold_hit"] != 0 {
			t.Errorf("%v: extract table gold %v, hit %v; want 1, 0", tc.params, c["table4.extract.table.gold"], c["table4.extract.table.gold_hit"])
		}
		if _, has := c["table4.verified.table.gold_hit"]; has != tc.wantVerified || tc.wantVerified && c["table4.verified.table.gold_hit"] != 1 {
			t.Errorf("%v: verified table hit %v (present %v); want 1 exactly with Ve", tc.params, c["table4.verified.table.gold_hit"], has)
		}
		if tc.wantVerified {
			// Each round shows the schema, the question and the state.
			p := m.prompts[0]
			for _, want := range []string{"# Table: singer", "How many singers are from France?", "【Extracted keywords】", `"intent": "count"`} {
				if !strings.Contains(p, want) {
					t.Errorf("%v: verification prompt lacks %q", tc.params, want)
				}
			}
			if len(m.prompts) > 1 && !strings.Contains(m.prompts[1], `"singer.country"`) {
				t.Errorf("%v: round 2 prompt does not show round 1's repair", tc.params)
			}
		}
	}
}

// TestVerifyRoundFailures: a verification answer that does not parse
// keeps the state it was shown and ends the rounds.
func TestVerifyRoundFailures(t *testing.T) {
	db := robustDB(t)
	extract := "```json\n{\"intent\": \"count\", \"tables\": [\"singer\"]}\n```"
	r, err := New(runners.Params{"n_rollout": 1, "stage_discriminator": false})
	if err != nil {
		t.Fatal(err)
	}
	m := &understandScript{extract: extract, verify: []string{"I checked everything and it looks right, but I ran out of"}}
	res, err := r.Run(context.Background(), robustTask(m, db))
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := res.Trace.Data["semantic_state"].(ValidatedState)
	if !reflect.DeepEqual(vs.State.Tables, []string{"singer"}) || res.Trace.Counters["understand_rounds"] != 1 {
		t.Errorf("tables %v, rounds %v; want [singer] kept after 1 failed round", vs.State.Tables, res.Trace.Counters["understand_rounds"])
	}
	for _, s := range res.Trace.Steps {
		if s.Action == "verify_keywords" && s.Info["parse_error"] == nil {
			t.Errorf("verify step info %v; want a parse_error", s.Info)
		}
	}
}

// TestExpansionSwitch: expansion changes the search (under the simulator
// on mini): the paper policy records the tried actions on nodes and makes
// another number of reasoning calls; the estimate follows the switch.
func TestExpansionSwitch(t *testing.T) {
	e := newMiniEnv(t, sim.Config{P: 0.5, Seed: 3})
	ex := e.b.Examples[0]
	calls := map[string]int{}
	for _, policy := range []string{ExpansionAllActions, ExpansionPaper} {
		r, err := New(runners.Params{"n_rollout": 8, "expansion": policy, "stage_discriminator": false})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), e.task(t, ex, e.sim))
		if err != nil {
			t.Fatal(err)
		}
		calls[policy] = res.Usage[runners.RoleReason].Calls
		tree, _ := res.Trace.Data["tree"].(*mcts.Tree)
		tried := 0
		for _, n := range tree.Nodes {
			tried += len(n.Tried)
		}
		if (tried > 0) != (policy == ExpansionPaper) {
			t.Errorf("%s: %d tried actions recorded; want some exactly under paper", policy, tried)
		}
		if got := res.Trace.Data["config"].(map[string]any)["expansion"]; got != policy {
			t.Errorf("config expansion %v; want %s", got, policy)
		}
		if policy == ExpansionPaper {
			// One untried action per visit: the root tried at most one
			// action per rollout.
			if n := len(tree.Root().Tried); n < 1 || n > 8 {
				t.Errorf("paper: root tried %d actions in 8 rollouts; want 1..8", n)
			}
		} else if n := len(tree.Root().Children); n < len(Transitions[mcts.RootAction]) {
			t.Errorf("all-actions: root has %d children; want at least %d (every action expanded)", n, len(Transitions[mcts.RootAction]))
		}
	}
	if calls[ExpansionAllActions] == calls[ExpansionPaper] {
		t.Errorf("reason calls %v; want the policies to differ", calls)
	}
	all := mustEstimate(t, runners.Params{"expansion": ExpansionAllActions})
	paper := mustEstimate(t, runners.Params{"expansion": ExpansionPaper})
	if all[runners.RoleReason] == paper[runners.RoleReason] {
		t.Errorf("estimated reason calls %g for both policies; want them to differ", all[runners.RoleReason])
	}
	if _, err := New(runners.Params{"expansion": "greedy"}); err == nil || !strings.Contains(err.Error(), "expansion") {
		t.Errorf("expansion: greedy: err %v; want an error naming the parameter", err)
	}
	if _, err := New(runners.Params{"understanding_rounds": 0}); err == nil || !strings.Contains(err.Error(), "understanding_rounds") {
		t.Errorf("understanding_rounds: 0: err %v; want an error naming the parameter", err)
	}
}
