package iesr

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// understand runs Stage 1.1: the extraction call, then (verify_keywords)
// up to understanding_rounds keyword-verification rounds, each showing the
// schema, the question and the current state and taking the model's
// repaired state; then the rule-guided verification of the relations
// (Algorithm 1). A round whose answer is cut, refused or does not parse
// keeps the state it was shown; a round that changes no keyword ends the
// rounds (the next would be shown the same prompt). The trace keeps the
// extraction (Data "extraction", the state before Ve), every round (steps
// "verify_keywords"), the final validated state (Data "semantic_state")
// and the counters understand_rounds and keywords_changed.
func (q *question) understand(ctx context.Context, tr *runners.Trace, implied map[string]int) (*ValidatedState, error) {
	cfg, t, sch := q.cfg, q.t, q.schema
	full := datasets.RenderMSchema(sch, datasets.RenderOptions{})
	head := taskHeader(t.Example.DBID, full, t.Example.Question, q.evidence, "")
	st, out, info, err := q.askState(ctx, head+"\n【Task】\n"+understandInstruction, RespUnderstand, "understand", implied)
	if err != nil {
		return nil, err
	}
	info["relations"] = len(st.Relations)
	tr.Add(runners.Step{Action: "understand", Role: runners.RoleUnderstand, Output: out, Info: info})
	extraction := st
	rounds, changed := 0, 0
	if cfg.VerifyKeywords {
		for i := 1; i <= cfg.UnderstandingRounds; i++ {
			shown, err := json.MarshalIndent(st, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("iesr: verify keywords: %w", err)
			}
			prompt := head + "\n【Extracted keywords】\n```json\n" + string(shown) + "\n```\n\n【Task】\n" + verifyInstruction
			next, out, info, err := q.askState(ctx, prompt, RespVerify, "verify_keywords", implied)
			if err != nil {
				return nil, err
			}
			rounds++
			info["round"] = i
			n := 0
			if _, bad := info["parse_error"]; !bad && info["error"] == nil {
				n = changes(KeywordsOf(st), KeywordsOf(next))
				st = next
			}
			info["changed"] = n
			changed += n
			tr.Add(runners.Step{Action: "verify_keywords", Role: runners.RoleUnderstand, Output: out, Info: info})
			if n == 0 {
				break
			}
		}
		tr.Count("understand_rounds", float64(rounds))
		tr.Count("keywords_changed", float64(changed))
	}
	var names []string
	for _, tb := range sch.Tables {
		names = append(names, datasets.SpacedName(tb.Name))
		for _, c := range tb.Columns {
			names = append(names, datasets.SpacedName(c.Name))
		}
	}
	g := NewGrounding(append([]string{t.Example.Question, q.evidence}, names...)...)
	v := Validate(cfg.Rules, st, g, cfg.DeltaMatch, cfg.Tau)
	info["kept"] = len(v.Kept)
	tr.Data["extraction"] = extraction
	tr.Data["semantic_state"] = v
	tr.Count("relations_proposed", float64(len(st.Relations)))
	tr.Count("relations_kept", float64(len(v.Kept)))
	return &v, nil
}

// askState sends one understanding request (the extraction or a
// verification round) and parses its state. A cut, refused or unparsable
// answer gives an empty state, with "parse_error" or "error" in info; only
// an infrastructure failure is returned as an error.
func (q *question) askState(ctx context.Context, prompt, responder, action string, implied map[string]int) (SemanticState, string, map[string]any, error) {
	resp, err := q.complete(ctx, request{role: runners.RoleUnderstand, responder: responder, prompt: prompt, n: 1,
		kind: llm.AnswerJSON, schema: StateSchema, schemaName: schemaState, seed: q.t.Seed})
	info := map[string]any{}
	var st SemanticState
	switch {
	case err == nil:
		implied[runners.RoleUnderstand]++
		out := ""
		if len(resp.Choices) > 0 {
			out = resp.Choices[0]
		}
		info = runners.SampleInfo(resp, 0)
		if resp.Cut(0) {
			// A cut state is no state.
			q.side.Count(runners.CounterCut(runners.RoleUnderstand), 1)
			info["parse_error"] = "answer cut at max_tokens"
			return st, out, info, nil
		}
		var perr error
		if st, perr = ParseState(out); perr != nil {
			info["parse_error"] = perr.Error()
		}
		if perr != nil || !jsontext.HasKey(out, "intent", "entities", "relations", "numbers", "units", "field_patterns", "tables", "operators") {
			q.side.ParseFailed(runners.RoleUnderstand, action)
		}
		return st, out, info, nil
	case rejected(ctx, err):
		q.side.Reject(runners.RoleUnderstand, action, err)
		info["error"] = err.Error()
		return st, "", info, nil
	default:
		return st, "", nil, fmt.Errorf("iesr: %s: %w", action, err)
	}
}
