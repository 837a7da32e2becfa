package iesr

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Keep rules of the discriminator check: how many of a trajectory's
// completions must agree for it to be kept.
const (
	KeepLoose  = "loose"  // at least one
	KeepMid    = "mid"    // at least half (METHODS.md's default)
	KeepStrict = "strict" // all
)

// Trajectory is one candidate reasoning path of Stage 2 with its Stage 3
// verification and score.
type Trajectory struct {
	Node    int      `json:"node"`
	Actions []string `json:"actions"`
	SQL     string   `json:"sql"`
	Visits  int      `json:"visits"`
	Reward  float64  `json:"reward"`
	// Executes: the SQL ran without error; Valid: it returned at least one
	// non-NULL value; Key: its result key (when it executes).
	Executes bool   `json:"executes"`
	Valid    bool   `json:"valid"`
	Key      string `json:"-"`
	// Prefixes are the numbers of steps each masked prefix shows (under
	// mask rstar, a step cut within its words counts as shown); Agree
	// counts the completions whose SQL gave the same result.
	Prefixes    []int `json:"prefixes,omitempty"`
	Completions int   `json:"completions"`
	Agree       int   `json:"agree"`
	Kept        bool  `json:"kept"`
	// The score parts and the score.
	Exec     float64 `json:"exec"`
	DiscConf float64 `json:"disc_conf"`
	ConsVote float64 `json:"cons_vote"`
	Score    float64 `json:"score"`

	steps []step
}

// PrefixLengths returns how many of d steps each masked prefix keeps
// under mask paper: for a cut at fraction f, floor(f*d) steps, at least
// one, and at most d-2. Algorithm 3 masks s_i, ..., s_d for some i < d and
// shows s_1, ..., s_{i-1}, so at most d-2 steps: the last two steps are
// always masked (a path ending in SQL generation and revision never shows
// the discriminator a SQL of its own). A trajectory of one or two steps
// keeps none (only the question is shown).
func PrefixLengths(d int, cuts []float64) []int {
	out := make([]int, len(cuts))
	for i, f := range cuts {
		k := int(math.Floor(f*float64(d) + 1e-9))
		k = max(k, 1)
		k = min(k, d-2)
		out[i] = max(k, 0)
	}
	return out
}

// MaskPrefixes returns, for each cut, the reasoning text a masked prefix
// of steps shows (stepsText's form) and the number of steps it shows.
// Under MaskPaper the prefix is the first PrefixLengths steps. Under
// MaskRStar it is cut by words as rStar's released discriminator cuts a
// solution trace: the rendered steps split at spaces, and the first
// ceil(f * words) words kept, so that a step may be cut within its text
// (it counts as shown when some of its own text is) and the last step may
// be shown in part.
func MaskPrefixes(steps []step, cuts []float64, mode string) ([]int, []string) {
	shown := make([]int, len(cuts))
	texts := make([]string, len(cuts))
	if mode != MaskRStar {
		for i, k := range PrefixLengths(len(steps), cuts) {
			shown[i], texts[i] = k, stepsText(steps[:k])
		}
		return shown, texts
	}
	full := stepsText(steps)
	// starts[j] is the offset in full where step j+1's own text begins,
	// after its "Step k (name):" line (stepsText ends each step with its
	// trimmed text and a newline).
	starts := make([]int, len(steps))
	for j := range steps {
		starts[j] = len(stepsText(steps[:j+1])) - len(strings.TrimSpace(steps[j].Text)) - 1
	}
	words := strings.Split(full, " ")
	for i, f := range cuts {
		n := int(math.Ceil(float64(len(words))*f - 1e-9))
		n = min(max(n, 0), len(words))
		texts[i] = strings.Join(words[:n], " ")
		for j := range steps {
			if len(texts[i]) > starts[j] {
				shown[i] = j + 1
			}
		}
	}
	return shown, texts
}

// Kept applies a keep rule to agree of n completions.
func Kept(rule string, agree, n int) bool {
	if n == 0 {
		return false
	}
	switch rule {
	case KeepLoose:
		return agree >= 1
	case KeepStrict:
		return agree == n
	default:
		return 2*agree >= n
	}
}

// Weights are the coefficients of the trajectory score.
type Weights struct{ Alpha, Beta, Gamma float64 }

// Validate checks that each weight is in [0, 1] and that they sum to 1
// (within 1e-6).
func (w Weights) Validate() error {
	for _, x := range []struct {
		n string
		v float64
	}{{"alpha", w.Alpha}, {"beta", w.Beta}, {"gamma", w.Gamma}} {
		if x.v < 0 || x.v > 1 || math.IsNaN(x.v) {
			return &runners.ParamError{Key: x.n, Err: fmt.Errorf("%g out of range [0, 1]", x.v)}
		}
	}
	if s := w.Alpha + w.Beta + w.Gamma; math.Abs(s-1) > 1e-6 {
		return &runners.ParamError{Key: "alpha+beta+gamma", Err: fmt.Errorf("%g + %g + %g = %g; the weights must sum to 1", w.Alpha, w.Beta, w.Gamma, s)}
	}
	return nil
}

// Score is equation 8:
//
//	Score(t) = alpha*Exec(t) + beta*DiscConf(t) + gamma*ConsVote(t)
func (w Weights) Score(exec, disc, cons float64) float64 {
	return w.Alpha*exec + w.Beta*disc + w.Gamma*cons
}

// SelectOptions configure the selection of Stage 3.
type SelectOptions struct {
	Weights Weights
	// Discriminator: filter by the keep rule and use DiscConf (Stage 3.1).
	Discriminator bool
	KeepRule      string
	// Scoring: argmax of the score (Stage 3.2); otherwise plain majority
	// vote over execution results.
	Scoring bool
}

// Select fills the score parts of every trajectory and returns the index
// of the chosen one (-1 when there is none) and a note when a fallback
// applied. It never sees a gold answer: every part comes from execution
// and agreement among the trajectories and completions.
//
//   - Exec(t) = 1 when t's SQL executes to a valid (non-empty, non-NULL)
//     result, else 0;
//   - DiscConf(t) = Agree / Completions (0 without the discriminator);
//   - ConsVote(t) = share of all trajectories whose SQL executes to the
//     same result as t's (0 when t's SQL fails).
//
// With the discriminator, only kept trajectories compete; if none is kept,
// all are kept. With scoring, the argmax of the score wins; ties go to the
// trajectory with more visits, then to the lexicographically smaller SQL.
// Without scoring, the largest group of trajectories with one valid
// result wins (ties: more summed visits, then the smaller SQL), falling
// back to executing groups, then to any trajectory; its member with the
// most visits (then the smaller SQL) is returned.
func Select(trajs []*Trajectory, opt SelectOptions) (int, string) {
	if len(trajs) == 0 {
		return -1, "no terminal trajectory produced SQL"
	}
	groups := map[string]int{}
	for _, t := range trajs {
		if t.Executes {
			groups[t.Key]++
		}
	}
	note := ""
	anyKept := false
	for _, t := range trajs {
		t.Exec, t.ConsVote, t.DiscConf = 0, 0, 0
		if t.Valid {
			t.Exec = 1
		}
		if t.Executes {
			t.ConsVote = float64(groups[t.Key]) / float64(len(trajs))
		}
		if opt.Discriminator {
			if t.Completions > 0 {
				t.DiscConf = float64(t.Agree) / float64(t.Completions)
			}
			t.Kept = Kept(opt.KeepRule, t.Agree, t.Completions)
		} else {
			t.Kept = true
		}
		anyKept = anyKept || t.Kept
	}
	if !anyKept {
		for _, t := range trajs {
			t.Kept = true
		}
		note = "the discriminator kept no trajectory; all were kept"
	}
	for _, t := range trajs {
		t.Score = round6(opt.Weights.Score(t.Exec, t.DiscConf, t.ConsVote))
	}
	better := func(a, b *Trajectory) bool { // tie-break: visits, then SQL
		if a.Visits != b.Visits {
			return a.Visits > b.Visits
		}
		return a.SQL < b.SQL
	}
	if opt.Scoring {
		best := -1
		for i, t := range trajs {
			if !t.Kept {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			b := trajs[best]
			if t.Score > b.Score || t.Score == b.Score && better(t, b) {
				best = i
			}
		}
		return best, note
	}
	// Plain majority vote over the kept trajectories.
	type group struct {
		key     string
		members []int
		visits  int
		minSQL  string
	}
	pick := func(ok func(*Trajectory) bool) int {
		gs := map[string]*group{}
		var order []*group
		for i, t := range trajs {
			if !t.Kept || !ok(t) {
				continue
			}
			key := t.Key
			if !t.Executes {
				key = "sql:" + t.SQL // a failing SQL only groups with itself
			}
			g := gs[key]
			if g == nil {
				g = &group{key: key, minSQL: t.SQL}
				gs[key] = g
				order = append(order, g)
			}
			g.members = append(g.members, i)
			g.visits += t.Visits
			if t.SQL < g.minSQL {
				g.minSQL = t.SQL
			}
		}
		var bg *group
		for _, g := range order {
			switch {
			case bg == nil:
				bg = g
			case len(g.members) != len(bg.members):
				if len(g.members) > len(bg.members) {
					bg = g
				}
			case g.visits != bg.visits:
				if g.visits > bg.visits {
					bg = g
				}
			case g.minSQL < bg.minSQL:
				bg = g
			}
		}
		if bg == nil {
			return -1
		}
		best := bg.members[0]
		for _, i := range bg.members[1:] {
			if better(trajs[i], trajs[best]) {
				best = i
			}
		}
		return best
	}
	if i := pick(func(t *Trajectory) bool { return t.Valid }); i >= 0 {
		return i, note
	}
	if i := pick(func(t *Trajectory) bool { return t.Executes }); i >= 0 {
		return i, joinNote(note, "no trajectory gave a non-empty, non-NULL result; voted among empty or NULL results")
	}
	return pick(func(*Trajectory) bool { return true }), joinNote(note, "no trajectory SQL executed")
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// trajectories collects the visited terminals of the tree as trajectories.
func (q *question) trajectories(ctx context.Context, tree *mcts.Tree) []*Trajectory {
	var out []*Trajectory
	for _, n := range tree.Terminals() {
		s := q.state(tree, n)
		t := &Trajectory{Node: n.ID, SQL: s.SQL, Visits: n.Visits, Reward: n.Reward, steps: s.Steps}
		for _, st := range s.Steps {
			t.Actions = append(t.Actions, string(st.Action))
		}
		if s.SQL != "" {
			e := q.execute(ctx, s.SQL)
			t.Executes, t.Valid, t.Key = e.Err == nil, e.Valid, e.Key
		}
		out = append(out, t)
	}
	return out
}

// discriminate runs the masking-and-completion check of Section 3.3 on
// every trajectory: for each cut, the question with the first k steps is
// given to the discriminator (one completion at the discriminator
// temperature); a completion agrees when its SQL executes to the same
// result as the trajectory's SQL. It returns the number of requests.
func (q *question) discriminate(ctx context.Context, trajs []*Trajectory, tr *runners.Trace) (int, error) {
	reqs := 0
	for _, t := range trajs {
		var texts []string
		t.Prefixes, texts = MaskPrefixes(t.steps, q.cfg.Cuts, q.cfg.Mask)
		for ci, k := range t.Prefixes {
			prompt := q.header + texts[ci] + "\n【Task】\n" + sqltext.ForDialect(discriminatorInstruction, q.t.Dialect())
			resp, err := q.complete(ctx, request{role: runners.RoleDiscriminator, responder: RespDiscriminator, kind: llm.AnswerSQL,
				prompt: prompt, temp: q.cfg.DiscTemperature, n: 1, seed: q.t.Seed + int64(ci+1)<<24})
			if err != nil {
				if rejected(ctx, err) {
					// This completion is lost; the check goes on.
					q.side.Reject(runners.RoleDiscriminator, fmt.Sprintf("discriminate trajectory %d cut %g", t.Node, q.cfg.Cuts[ci]), err)
					continue
				}
				return reqs, err
			}
			reqs++
			out := ""
			if len(resp.Choices) > 0 {
				out = resp.Choices[0]
			}
			if resp.Cut(0) {
				// A cut completion is no completion.
				q.side.Cut(resp, 0, runners.RoleDiscriminator, fmt.Sprintf("discriminate trajectory %d cut %g", t.Node, q.cfg.Cuts[ci]))
				continue
			}
			t.Completions++
			sql, ok := ParseSQL(out)
			if !ok {
				q.side.ParseFailed(runners.RoleDiscriminator, "discriminate")
			}
			agree := false
			if ok && t.Executes {
				e := q.execute(ctx, sql)
				agree = e.Err == nil && e.Key == t.Key
			}
			if agree {
				t.Agree++
			}
			info := runners.SampleInfo(resp, 0)
			for k2, v := range map[string]any{"trajectory": t.Node, "cut": q.cfg.Cuts[ci], "kept_steps": k, "of_steps": len(t.steps), "agree": agree} {
				info[k2] = v
			}
			tr.Add(runners.Step{Action: "discriminate", Role: runners.RoleDiscriminator, Output: out, Info: info})
		}
	}
	return reqs, nil
}

// finish writes the selection into the result.
func finish(trajs []*Trajectory, chosen int, note string, opt SelectOptions, res *runners.Result) {
	for _, t := range trajs {
		c := runners.Candidate{SQL: t.SQL, Score: t.Score, Parts: map[string]float64{
			"exec": t.Exec, "disc_conf": t.DiscConf, "cons_vote": t.ConsVote, "visits": float64(t.Visits), "reward": round6(t.Reward),
			"kept": b2f(t.Kept)}}
		if t.Executes {
			c.Group = datasets.ShortKey(t.Key)
		}
		res.Candidates = append(res.Candidates, c)
	}
	sort.SliceStable(res.Candidates, func(i, j int) bool { return res.Candidates[i].Score > res.Candidates[j].Score })
	info := map[string]any{"trajectories": len(trajs), "scoring": opt.Scoring, "discriminator": opt.Discriminator}
	kept := 0
	for _, t := range trajs {
		if t.Kept {
			kept++
		}
	}
	info["kept"] = kept
	if chosen >= 0 {
		res.SQL = trajs[chosen].SQL
		info["chosen_node"] = trajs[chosen].Node
		info["chosen_score"] = trajs[chosen].Score
		if res.SQL == "" {
			note = joinNote(note, "the chosen trajectory has no SQL")
		}
	}
	if note != "" {
		res.Note = note
		info["note"] = note
	}
	res.Trace.Add(runners.Step{Action: "select", Output: res.SQL, Info: info})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// cutsString renders cuts for traces.
func cutsString(c []float64) string {
	parts := make([]string, len(c))
	for i, f := range c {
		parts[i] = fmt.Sprintf("%g", f)
	}
	return strings.Join(parts, ",")
}
