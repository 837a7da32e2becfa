package iesr

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

// rewardDB holds constructed execution results: empty, all-NULL, 1 (as
// an integer and as a float, equal values) and 2; any other SQL fails.
func rewardDB() *mapDB {
	return &mapDB{rows: map[string][][]any{
		"E1": {}, "E2": {}, "E3": {},
		"N1": {{nil}}, "N2": {{nil}},
		"ONE": {{int64(1)}}, "ONE2": {{int64(1)}}, "ONEF": {{float64(1)}},
		"TWO": {{int64(2)}},
	}}
}

// TestRewardRules works the terminal reward by hand on constructed
// results, K = 5 samples drawn, of which those listed came back with SQL
// (a missing one was cut): paper is Algorithm 2's EvaluateReward ("if
// Execute(y, D) fails then return 0", else the share of the K samples
// whose execution equals y's), alphasql is 0 unless y's result is valid
// (non-empty, non-NULL).
func TestRewardRules(t *testing.T) {
	tests := []struct {
		name             string
		term             string
		samples          []string
		paper, alphasql  float64
		paperAg, alphaAg int
	}{
		// y fails: 0 under both, whatever the samples.
		{"terminal fails", "BAD", []string{"ONE", "ONE2"}, 0, 0, 0, 0},
		// y empty: E2 and E3 are the same (empty) result, ONE differs, BAD
		// fails, one sample cut: paper 2/5 = 0.4; alphasql 0.
		{"empty result", "E1", []string{"E2", "E3", "ONE", "BAD"}, 0.4, 0, 2, 0},
		// y all-NULL: N2 equal, ONE and E2 not: paper 1/5 = 0.2; alphasql 0.
		{"NULL result", "N1", []string{"N2", "ONE", "E2"}, 0.2, 0, 1, 0},
		// y = {1}: ONE2 and ONEF (1.0 == 1) agree, TWO, E2 and BAD do not:
		// 2/5 = 0.4 under both.
		{"valid result", "ONE", []string{"ONE2", "ONEF", "TWO", "E2", "BAD"}, 0.4, 0.4, 2, 2},
		// Every sample agrees: 5/5 = 1.
		{"all agree", "ONE", []string{"ONE", "ONE2", "ONEF", "ONE", "ONE2"}, 1, 1, 5, 5},
		// Every sample cut: 0/5.
		{"no sample", "ONE", nil, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := runners.NewExecutions(rewardDB())
			ctx := context.Background()
			var samples []*runners.Execution
			for _, s := range tt.samples {
				samples = append(samples, x.Run(ctx, s))
			}
			for _, rc := range []struct {
				rule  string
				want  float64
				agree int
			}{{RewardPaper, tt.paper, tt.paperAg}, {RewardAlphaSQL, tt.alphasql, tt.alphaAg}} {
				got, agree := RewardOf(rc.rule, x.Run(ctx, tt.term), samples, 5)
				if math.Abs(got-rc.want) > 1e-12 || agree != rc.agree {
					t.Errorf("%s: reward %g, agree %d; want %g, %d", rc.rule, got, agree, rc.want, rc.agree)
				}
			}
		})
	}
}

// sqlScript answers every request with one fenced SQL per sample, in
// turn from sqls, and records the requests.
type sqlScript struct {
	sqls []string
	reqs []llm.Request
}

func (s *sqlScript) Complete(_ context.Context, r llm.Request) (*llm.Response, error) {
	s.reqs = append(s.reqs, r)
	out := make([]string, r.Samples())
	for i := range out {
		out[i] = "```sql\n" + s.sqls[i%len(s.sqls)] + "\n```"
	}
	return &llm.Response{Choices: out, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 3}}, nil
}

// rewardOfTerminal scores the path root -> A5 (sql) -> END with the
// runner's Reward under params p, the K samples answered by samples.
func rewardOfTerminal(t *testing.T, p runners.Params, sql string, samples []string) (float64, int) {
	t.Helper()
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg := r.(*Runner).Config()
	db := rewardDB()
	s := &sqlScript{sqls: samples}
	q := &question{cfg: &cfg, t: runners.Task{DB: db, Seed: 1}, llm: s, header: "HEADER\n", exec: runners.NewExecutions(db)}
	tree := &mcts.Tree{Nodes: []*mcts.Node{
		{ID: 0, Parent: -1, Action: mcts.RootAction, Children: []int{1}},
		{ID: 1, Parent: 0, Depth: 1, Action: A5, Info: map[string]any{"sql": sql}, Children: []int{2}},
		{ID: 2, Parent: 1, Depth: 2, Action: END, Terminal: true},
	}}
	got, err := q.Reward(context.Background(), tree, tree.Nodes[2])
	if err != nil {
		t.Fatal(err)
	}
	return got, len(s.reqs)
}

// TestRewardSwitch: the runner's reward follows the reward switch. An
// empty terminal result with K = 5 samples E2, E3, ONE, E2, BAD: paper
// (the default) 3/5 = 0.6 (E2, E3, E2 give the same empty result);
// alphasql 0. A failing terminal: 0 under both, and the paper's reward
// draws no samples ("if Execute(y, D) fails then return 0" comes first)
// while alphasql's still makes its request.
func TestRewardSwitch(t *testing.T) {
	samples := []string{"E2", "E3", "ONE", "E2", "BAD"}
	for _, tc := range []struct {
		name     string
		p        runners.Params
		sql      string
		want     float64
		wantReqs int
	}{
		{"paper empty", nil, "E1", 0.6, 1},
		{"alphasql empty", runners.Params{"reward": "alphasql"}, "E1", 0, 1},
		{"paper fails", nil, "BAD", 0, 0},
		{"alphasql fails", runners.Params{"reward": "alphasql"}, "BAD", 0, 1},
		{"paper NULL", nil, "N1", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reqs := rewardOfTerminal(t, tc.p, tc.sql, samples)
			if math.Abs(got-tc.want) > 1e-12 || reqs != tc.wantReqs {
				t.Errorf("reward %g with %d requests; want %g with %d", got, reqs, tc.want, tc.wantReqs)
			}
		})
	}
}

// onlySQL is a run with A5 (SQL generation) as the only reasoning action
// and every stage but the search off, on rewardDB.
func onlySQL(t *testing.T, p runners.Params, c llm.Client) runners.Result {
	t.Helper()
	params := runners.Params{"disable_actions": []any{"A1", "A2", "A3", "A4", "A6"}, "stage_understanding": false,
		"stage_linking": false, "stage_discriminator": false}
	for k, v := range p {
		params[k] = v
	}
	r, err := New(params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), runners.Task{Example: datasets.Example{DBID: "db", Question: "how many?"}, DB: rewardDB(), LLM: c})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPaperExpansionOneChildPerStep: under expansion: paper, an expansion
// step is one request for one sample and adds one child (Algorithm 2),
// whatever n_expansion is; all-actions asks for n_expansion samples and
// keeps the distinct ones. One rollout with only A5 valid at the root,
// n_expansion 3 and a model whose samples differ (ONE, TWO, E1): paper
// makes 1 A5 request with n = 1 and 1 A5 child; all-actions 1 request
// with n = 3 and 3 children.
func TestPaperExpansionOneChildPerStep(t *testing.T) {
	for _, tc := range []struct {
		expansion           string
		wantN, wantChildren int
	}{
		{"paper", 1, 1},
		{"all-actions", 3, 3},
	} {
		t.Run(tc.expansion, func(t *testing.T) {
			s := &sqlScript{sqls: []string{"ONE", "TWO", "E1"}}
			res := onlySQL(t, runners.Params{"expansion": tc.expansion, "n_rollout": 1, "n_expansion": 3}, s)
			var ns []int // samples asked for by each A5 request
			for _, r := range s.reqs {
				if r.Responder == RespSQL && strings.Contains(r.Messages[1].Content, instructions[A5]) {
					ns = append(ns, r.Samples())
				}
			}
			if len(ns) != 1 || ns[0] != tc.wantN {
				t.Fatalf("A5 requests asked for n = %v; want one request with n = %d", ns, tc.wantN)
			}
			sum := res.Trace.Data["tree_summary"].(mcts.Summary)
			if sum.ByAction[A5] != tc.wantChildren || res.Trace.Counters["expand_requests"] != 1 {
				t.Errorf("A5 children %d, expand requests %v; want %d, 1", sum.ByAction[A5], res.Trace.Counters["expand_requests"], tc.wantChildren)
			}
		})
	}
}

// TestPaperRescoresTerminal: under expansion: paper a terminal reached
// again is scored again with fresh samples (Algorithm 2 evaluates every
// rollout's terminal); all-actions backs up its mean Q/N. With only A5
// valid and n_expansion 1 the tree is one path root -> A5 -> END, so
// three rollouts reach the same terminal three times: paper makes 3
// reward requests (seeds differing per scoring), all-actions 1.
func TestPaperRescoresTerminal(t *testing.T) {
	for _, tc := range []struct {
		expansion   string
		wantRewards int
	}{
		{"paper", 3},
		{"all-actions", 1},
	} {
		t.Run(tc.expansion, func(t *testing.T) {
			s := &sqlScript{sqls: []string{"ONE"}}
			res := onlySQL(t, runners.Params{"expansion": tc.expansion, "n_rollout": 3, "n_expansion": 1, "n_reward": 2}, s)
			seeds := map[int64]bool{}
			for _, r := range s.reqs {
				if strings.Contains(r.Messages[1].Content, rewardInstruction) {
					seeds[*r.Seed] = true
				}
			}
			c := res.Trace.Counters
			if int(c["reward_requests"]) != tc.wantRewards || len(seeds) != tc.wantRewards || int(c["trajectories"]) != 1 {
				t.Errorf("reward requests %v with %d distinct seeds, trajectories %v; want %d, %d, 1",
					c["reward_requests"], len(seeds), c["trajectories"], tc.wantRewards, tc.wantRewards)
			}
		})
	}
}

// TestMaskPaperVsRStar: under mask paper the discriminator sees at most
// d-2 of a trajectory's d steps (Algorithm 3: "randomly choose i < d, mask
// s_i, ..., s_d"), so a path ending [A5, A6] never shows it a SQL of its
// own; under mask rstar the rendered steps are cut by words, ceil(f * W).
func TestMaskPaperVsRStar(t *testing.T) {
	cuts := DefaultCuts
	paths := [][]mcts.Action{{A5, A6}, {A2, A5, A6}, {A1, A2, A5, A6}, {A1, A2, A3, A5, A6}, {A1, A2, A3, A4, A5, A6}}
	// Paper: floor(f*d), at least 1, at most d-2:
	//	d=2: cap 0 -> 0 0 0 0;  d=3: floor(.6,.9,1.2,1.5) -> 1 1 1 1 (cap 1)
	//	d=4: floor(.8,1.2,1.6,2.0) -> 1 1 1 2;  d=5: floor(1,1.5,2,2.5) -> 1 1 2 2
	//	d=6: floor(1.2,1.8,2.4,3.0) -> 1 1 2 3
	wantPaper := [][]int{{0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 3}}
	for i, path := range paths {
		var steps []step
		for _, a := range path {
			steps = append(steps, step{Action: a, Text: "TEXT-" + string(a)})
		}
		shown, texts := MaskPrefixes(steps, cuts, MaskPaper)
		if !reflect.DeepEqual(shown, wantPaper[i]) {
			t.Errorf("paper d=%d: shown %v; want %v", len(path), shown, wantPaper[i])
		}
		for ci, txt := range texts {
			if shown[ci] > len(path)-2 || strings.Contains(txt, "TEXT-A5") || strings.Contains(txt, "TEXT-A6") {
				t.Errorf("paper d=%d cut %g: %d steps shown, text %q; want at most %d and neither A5 nor A6", len(path), cuts[ci], shown[ci], txt, len(path)-2)
			}
		}
	}
	// rstar on [A5 "X1", A6 "Y1 ... Y10"]: the rendered text
	//	"\n【Reasoning so far】\nStep 1 (SQL Generation):\nX1\nStep 2 (SQL Revision):\nY1 Y2 ... Y10\n"
	// splits at spaces into W = 18 words: "\n【Reasoning", "so", "far】\nStep",
	// "1", "(SQL", "Generation):\nX1\nStep", "2", "(SQL", "Revision):\nY1",
	// "Y2", ..., "Y10\n". Cuts keep ceil(18 * .2, .3, .4, .5) = 4, 6, 8, 9
	// words: 4 shows no step text, 6 reaches X1 (step 1), 8 still step 1,
	// 9 reaches Y1 (step 2): shown 0 1 1 2, where paper shows 0 0 0 0.
	steps := []step{{Action: A5, Text: "X1"}, {Action: A6, Text: "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10"}}
	shown, texts := MaskPrefixes(steps, cuts, MaskRStar)
	if want := []int{0, 1, 1, 2}; !reflect.DeepEqual(shown, want) {
		t.Errorf("rstar [A5, A6]: shown %v; want %v", shown, want)
	}
	wantWords := []int{4, 6, 8, 9}
	for ci, txt := range texts {
		if n := len(strings.Split(txt, " ")); n != wantWords[ci] {
			t.Errorf("rstar cut %g: %d words %q; want %d", cuts[ci], n, txt, wantWords[ci])
		}
	}
	if !strings.HasSuffix(texts[3], "Y1") || !strings.Contains(texts[1], "X1") {
		t.Errorf("rstar texts %q; want the 50%% cut to end at Y1 and the 30%% cut to show X1", texts)
	}
}

// TestMaskSwitchReachesDiscriminator: the mask switch decides what the
// discriminator is shown. The trajectory [A5 "SELECT a", A6 "SELECT a"]
// (d = 2): paper shows no step in any of the 4 prompts; rstar shows step
// 1 in the later cuts.
func TestMaskSwitchReachesDiscriminator(t *testing.T) {
	for _, tc := range []struct {
		mask      string
		wantShown bool
	}{
		{"paper", false},
		{"rstar", true},
	} {
		t.Run(tc.mask, func(t *testing.T) {
			db := &mapDB{rows: map[string][][]any{"SELECT a": {{int64(1)}}}}
			r, err := New(runners.Params{"mask": tc.mask})
			if err != nil {
				t.Fatal(err)
			}
			cfg := r.(*Runner).Config()
			s := &scripted{answers: []string{"```sql\nSELECT a\n```"}}
			q := &question{cfg: &cfg, t: runners.Task{DB: db, Seed: 9}, llm: s, header: "HEADER\n", exec: runners.NewExecutions(db)}
			steps := []step{{Action: A5, Text: "GEN-STEP ```sql\nSELECT a\n```"}, {Action: A6, Text: "REV-STEP ```sql\nSELECT a\n```"}}
			e := q.execute(context.Background(), "SELECT a")
			tr := &Trajectory{SQL: "SELECT a", Executes: true, Valid: true, Key: e.Key, steps: steps}
			var trace runners.Trace
			if _, err := q.discriminate(context.Background(), []*Trajectory{tr}, &trace); err != nil {
				t.Fatal(err)
			}
			shown := false
			for _, req := range s.reqs {
				shown = shown || strings.Contains(req.Messages[1].Content, "GEN-STEP")
			}
			if shown != tc.wantShown {
				t.Errorf("A5 step shown to the discriminator: %v (prefixes %v); want %v", shown, tr.Prefixes, tc.wantShown)
			}
		})
	}
}

// TestDefaultSamplingInRequestBody: the reason role's requests carry
// rStar's default sampling (temperature 0.8, top_p 0.95, top_k 40; the
// paper's "default, following rStar") in the JSON body an
// OpenAI-compatible server receives; top_k: 0 leaves the field out.
func TestDefaultSamplingInRequestBody(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     runners.Params
		wantK string // "" for absent
	}{
		{"defaults", nil, "40"},
		{"top_k 0", runners.Params{"top_k": 0}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{})
			o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.BaseURL(), Model: "m", MaxRetries: -1, HTTPClient: &http.Client{}})
			if err != nil {
				t.Fatal(err)
			}
			p := runners.Params{"n_rollout": 1}
			for k, v := range tc.p {
				p[k] = v
			}
			onlySQL(t, p, o)
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request reached the server")
			}
			for i, r := range reqs { // every request is the reason role's here
				b := r.Body
				k, hasK := b["top_k"]
				if fmt.Sprint(b["temperature"]) != "0.8" || fmt.Sprint(b["top_p"]) != "0.95" || hasK != (tc.wantK != "") || hasK && fmt.Sprint(k) != tc.wantK {
					t.Errorf("request %d: temperature %v, top_p %v, top_k %v (sent %v); want 0.8, 0.95, %q", i, b["temperature"], b["top_p"], k, hasK, tc.wantK)
				}
			}
		})
	}
}
