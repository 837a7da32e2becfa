package iesr

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/mctsql"
)

// Defaults, with where each comes from.
const (
	// DefaultRollouts is N_rollout (paper Section 4.4: best at 32).
	DefaultRollouts = 32
	// DefaultExpansion (samples per action, one request with n = 3, under
	// expansion: all-actions) follows Alpha-SQL's released configuration,
	// which IESR's public code forks (the paper gives none; under
	// expansion: paper an expansion step samples one child).
	DefaultExpansion = 3
	// DefaultTemperature, DefaultTopP and DefaultTopK are the sampling
	// settings of the reason role. The paper (Section 4.1): "all other
	// hyperparameters of LLMs are default, following rStar"; rStar's
	// released generator samples at temperature 0.8, top_p 0.95, top_k 40.
	// top_k is sent only to servers that take it (vLLM, SGLang, llama.cpp
	// server; see llm.Request.TopK).
	DefaultTemperature = 0.8
	DefaultTopP        = 0.95
	DefaultTopK        = 40
	// DefaultReward is K, the resampled SQLs of the terminal reward
	// (Alpha-SQL's N_reward = 5), sampled at DefaultRewardTemp (Alpha-SQL's
	// released code; its paper states 1.0).
	DefaultReward     = 5
	DefaultRewardTemp = 0.8
	// DefaultC is the UCT exploration weight c of equation 7: rStar's
	// default (2.0), which the paper's "default, following rStar" names
	// (the paper gives no value; Alpha-SQL's code uses 1.414).
	DefaultC = 2.0
	// DefaultDiscTemperature: discriminator completions at T = 1.0
	// (METHODS.md, from rStar).
	DefaultDiscTemperature = 1.0
	// DefaultAlpha, DefaultBeta, DefaultGamma: the score weights (paper
	// Section 3.3 and Appendix B.5, the best of its grid).
	DefaultAlpha = 0.4
	DefaultBeta  = 0.2
	DefaultGamma = 0.4
	// DefaultDeltaMatch and DefaultTau are the rule-match and consistency
	// thresholds of Algorithm 1; the paper gives no values, these are
	// t2sbench's (a relation must share about a third of its words with a
	// rule, and pass two of the three consistency checks).
	DefaultDeltaMatch = 0.3
	DefaultTau        = 0.5
	// DefaultMaxTokensUnderstand, DefaultMaxTokensReason and
	// DefaultMaxTokensDiscriminator bound each completion of a role,
	// reasoning tokens included. They are t2sbench's choice (the paper
	// gives none), sized for reasoning models (DeepSeek-R1 distillations,
	// Qwen3, o-series), which think for thousands of tokens before a short
	// answer, so that few samples are cut: the understanding answer is one
	// JSON object, the reasoning actions and the discriminator's
	// completions reason step by step before their SQL. Every role's bound
	// was 2048 before reasoning models were supported; set max_tokens: 2048
	// to reproduce runs made then.
	DefaultMaxTokensUnderstand    = 4096
	DefaultMaxTokensReason        = 8192
	DefaultMaxTokensDiscriminator = 8192
)

// The expansion policies (param expansion).
const (
	// ExpansionAllActions expands every valid action of a node at once,
	// as Alpha-SQL's released code does (IESR's public code forks it).
	ExpansionAllActions = "all-actions"
	// ExpansionPaper is Algorithm 2 of the paper: one untried valid action
	// per rollout, then a simulation to a terminal (mcts.OneAction).
	ExpansionPaper = "paper"
)

// DefaultUnderstandingRounds is the most keyword-verification rounds
// after the extraction: 1 + 4 calls is Table 6's 5.1 understanding calls
// per question on LogicCat, rounded (the paper gives no round count).
const DefaultUnderstandingRounds = 4

// The terminal reward rules (param reward).
const (
	// RewardPaper is Algorithm 2's EvaluateReward: 0 when the terminal SQL
	// fails to execute (and no samples are drawn), else the share of the
	// K resampled SQLs whose execution result equals it; an empty or NULL
	// result is a result like any other.
	RewardPaper = "paper"
	// RewardAlphaSQL is Alpha-SQL's rule: 0 unless the terminal SQL
	// executes to a valid (non-empty, non-NULL) result; the K samples are
	// drawn in any case.
	RewardAlphaSQL = "alphasql"
)

// The discriminator's masking rules (param mask).
const (
	// MaskPaper cuts by steps and keeps at most d-2 of a trajectory's d
	// steps (Algorithm 3: "randomly choose i < d, mask s_i, ..., s_d").
	MaskPaper = "paper"
	// MaskRStar cuts the rendered steps by words, ceil(f * words), as
	// rStar's released discriminator does.
	MaskRStar = "rstar"
)

// Policy returns the mcts expansion policy of c.Expansion.
func (c Config) Policy() mcts.Policy {
	if c.Expansion == ExpansionPaper {
		return mcts.OneAction
	}
	return mcts.AllActions
}

// Rescore reports whether the search scores a terminal again each time a
// rollout reaches it (mcts.Config.Rescore): under ExpansionPaper, whose
// Algorithm 2 evaluates the reward of every rollout's terminal.
func (c Config) Rescore() bool { return c.Expansion == ExpansionPaper }

// DefaultCuts are the discriminator's mask cuts: 20/30/40/50% of the steps
// (METHODS.md).
var DefaultCuts = []float64{0.2, 0.3, 0.4, 0.5}

func init() {
	runners.RegisterInfo(runners.Info{
		Name:  "iesr",
		New:   build,
		Paper: "IESR (understanding, schema linking, MCTS, a discriminator over masked trajectories)",
		Roles: []runners.RoleInfo{{Role: runners.RoleUnderstand, Does: "question understanding and keyword extraction"},
			{Role: runners.RoleReason, Does: "the MCTS actions"}, {Role: runners.RoleDiscriminator, Does: "completes masked trajectories (consistency check)"}},
		Ablations: "stage_understanding, stage_linking, schema_compression, stage_discriminator, stage_scoring: false (paper Table 2); disable_actions (Table 3); alpha/beta/gamma over a grid (Fig. 5); verify_keywords: false (Table 4 without Ve; understanding_rounds sets the rounds); expansion: all-actions (Alpha-SQL's code; default paper, Algorithm 2); reward: alphasql (default paper); mask: rstar (default paper)",
		Extra:     []runners.ParamInfo{{Key: "disc_cuts", Kind: "list of numbers", Default: DefaultCuts, Valid: "each in (0, 1)"}},
		Note:      "alpha + beta + gamma must sum to 1; max_tokens, when set, is the default of the three max_tokens_<role>",
		Varied: []string{"n_rollout", "n_expansion", "n_reward", "temperature", "top_p", "top_k", "c",
			"alpha", "beta", "gamma", "tau"},
	})
}

// Config is the runner's configuration; every field is a spec parameter
// (see New for the names).
type Config struct {
	Rollouts, Samples int
	Temperature, TopP float64
	TopK              int
	Reward            int
	// RewardRule is RewardPaper or RewardAlphaSQL.
	RewardRule string
	// Mask is the discriminator's masking rule, MaskPaper or MaskRStar.
	Mask              string
	RewardTemperature float64
	C                 float64
	// MaxTokens bounds completions by role (runners.RoleUnderstand, runners.RoleReason,
	// runners.RoleDiscriminator).
	MaxTokens map[string]int
	Evidence  bool

	// Stage switches (paper Table 2) and schema compression (Fig. 5).
	Understanding, Linking, Compression, Discriminator, Scoring bool
	// VerifyKeywords runs the keyword-verification rounds (Ve, paper
	// Table 4) after the extraction, at most UnderstandingRounds of them.
	VerifyKeywords      bool
	UnderstandingRounds int
	// Expansion is the search's expansion policy: ExpansionPaper
	// (Algorithm 2, the default) or ExpansionAllActions (Alpha-SQL's code,
	// which IESR's public code forks).
	Expansion string
	// Disabled actions (paper Table 3).
	Disabled map[mcts.Action]bool

	// Rules is the rule base (RulesPath, or the bundled rules.yaml).
	Rules           *RuleBase
	RulesPath       string
	DeltaMatch, Tau float64
	// Linking: LSH threshold, retention threshold, table cap.
	LinkLSH, LinkMin float64
	LinkMaxTables    int
	// Discriminator: mask cuts (one completion each), temperature, rule.
	Cuts            []float64
	DiscTemperature float64
	KeepRule        string
	Weights         Weights
}

// Runner is the IESR runner.
type Runner struct{ cfg Config }

// New builds the runner from spec parameters, for Go callers; build reads
// them, and `t2sbench help runners` lists each with its default and valid
// values:
//
//	n_rollout, n_expansion (under all-actions), temperature, top_p, top_k
//	(0: not sent), n_reward (K), reward_temperature, reward (paper |
//	alphasql), c, evidence;
//	max_tokens_understand, max_tokens_reason, max_tokens_discriminator;
//	max_tokens, when set, is the default of all three (a role's own key
//	wins);
//	verify_keywords, understanding_rounds (the most keyword-verification
//	rounds; they stop early at a round that changes no keyword);
//	expansion (paper | all-actions);
//	stage_understanding, stage_linking, schema_compression,
//	stage_discriminator, stage_scoring (false ablates);
//	disable_actions (any of A1 A2 A3 A4 A6);
//	rules ("": the bundled rules.yaml; else a rule-base file),
//	delta_match, tau;
//	link_lsh_threshold, link_threshold, link_max_tables;
//	disc_cuts, mask (paper | rstar), disc_temperature,
//	keep_rule (loose | mid | strict);
//	alpha, beta, gamma, summing to 1.
func New(p runners.Params) (runners.Runner, error) { return build(runners.NewReader(p)) }

// build is the runner's factory (runners.Factory): it reads every
// parameter through r, with its default.
func build(r *runners.Reader) (runners.Runner, error) {
	// disc_cuts is a list of numbers, which Reader has no method for: it
	// is taken by hand (and listed in Info.Extra).
	cuts := append([]float64(nil), DefaultCuts...)
	var errs runners.ParamErrors
	if v, ok := r.Take("disc_cuts"); ok {
		c, err := floatList(v)
		if err != nil {
			errs = append(errs, &runners.ParamError{Key: "disc_cuts", Err: err})
		} else {
			cuts = c
		}
	}
	c := Config{
		Rollouts:            r.Int("n_rollout", DefaultRollouts, 1, 10000),
		Samples:             r.Int("n_expansion", DefaultExpansion, 1, 64),
		Expansion:           r.String("expansion", ExpansionPaper, ExpansionPaper, ExpansionAllActions),
		VerifyKeywords:      r.Bool("verify_keywords", true),
		UnderstandingRounds: r.Int("understanding_rounds", DefaultUnderstandingRounds, 1, 16),
		Temperature:         r.Float("temperature", DefaultTemperature, 0, 2),
		TopP:                r.Float("top_p", DefaultTopP, 0, 1),
		TopK:                r.Int("top_k", DefaultTopK, 0, 100000),
		Reward:              r.Int("n_reward", DefaultReward, 1, 64),
		RewardRule:          r.String("reward", RewardPaper, RewardPaper, RewardAlphaSQL),
		Mask:                r.String("mask", MaskPaper, MaskPaper, MaskRStar),
		RewardTemperature:   r.Float("reward_temperature", DefaultRewardTemp, 0, 2),
		C:                   r.Float("c", DefaultC, 0, 100),
		Evidence:            r.Bool("evidence", true),
		Understanding:       r.Bool("stage_understanding", true),
		Linking:             r.Bool("stage_linking", true),
		Compression:         r.Bool("schema_compression", true),
		Discriminator:       r.Bool("stage_discriminator", true),
		Scoring:             r.Bool("stage_scoring", true),
		RulesPath:           r.String("rules", ""),
		DeltaMatch:          r.Float("delta_match", DefaultDeltaMatch, 0, 1),
		Tau:                 r.Float("tau", DefaultTau, 0, 1),
		LinkLSH:             r.Float("link_lsh_threshold", DefaultLinkLSH, 0.05, 1),
		LinkMin:             r.Float("link_threshold", DefaultLinkThreshold, 0, 1),
		LinkMaxTables:       r.Int("link_max_tables", DefaultLinkMaxTables, 1, 1000),
		Cuts:                cuts,
		DiscTemperature:     r.Float("disc_temperature", DefaultDiscTemperature, 0, 2),
		KeepRule:            r.String("keep_rule", KeepMid, KeepLoose, KeepMid, KeepStrict),
		Weights: Weights{
			Alpha: r.Float("alpha", DefaultAlpha, 0, 1),
			Beta:  r.Float("beta", DefaultBeta, 0, 1),
			Gamma: r.Float("gamma", DefaultGamma, 0, 1),
		},
		Disabled: map[mcts.Action]bool{},
	}
	all := r.Int("max_tokens", 0, 16, 65536) // 0: not set
	c.MaxTokens = map[string]int{}
	for _, rd := range []struct {
		role string
		def  int
	}{{runners.RoleUnderstand, DefaultMaxTokensUnderstand}, {runners.RoleReason, DefaultMaxTokensReason}, {runners.RoleDiscriminator, DefaultMaxTokensDiscriminator}} {
		def := rd.def
		if all > 0 {
			def = all
		}
		c.MaxTokens[rd.role] = r.Int("max_tokens_"+rd.role, def, 16, 65536)
	}
	for _, a := range r.Strings("disable_actions", nil) {
		act := mcts.Action(strings.ToUpper(strings.TrimSpace(a)))
		ok := false
		for _, x := range Removable {
			ok = ok || x == act
		}
		if !ok {
			errs = append(errs, &runners.ParamError{Key: "disable_actions", Err: fmt.Errorf("%q is not removable (removable: A1, A2, A3, A4, A6; A5 SQL Generation carries every path)", a)})
			continue
		}
		c.Disabled[act] = true
	}
	if err := r.Err(); err != nil {
		errs = append(err.(runners.ParamErrors), errs...)
	}
	if err := c.Weights.Validate(); err != nil {
		errs = append(errs, err.(*runners.ParamError))
	}
	for i, f := range c.Cuts {
		if !(f > 0 && f < 1) {
			errs = append(errs, &runners.ParamError{Key: "disc_cuts", Elem: fmt.Sprintf("[%d]", i), Err: fmt.Errorf("%g out of range (0, 1)", f)})
		}
	}
	if len(c.Cuts) == 0 {
		errs = append(errs, &runners.ParamError{Key: "disc_cuts", Err: errors.New("need at least one cut")})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("iesr: %w", errs)
	}
	if c.RulesPath != "" {
		rb, err := LoadRules(c.RulesPath)
		if err != nil {
			return nil, &runners.ParamError{Key: "rules", Err: err}
		}
		c.Rules = rb
	} else {
		c.Rules = DefaultRules()
	}
	return &Runner{cfg: c}, nil
}

func floatList(v any) ([]float64, error) {
	switch x := v.(type) {
	case []float64:
		return append([]float64(nil), x...), nil
	case []any:
		out := make([]float64, 0, len(x))
		for i, e := range x {
			switch n := e.(type) {
			case float64:
				out = append(out, n)
			case int:
				out = append(out, float64(n))
			case int64:
				out = append(out, float64(n))
			default:
				return nil, fmt.Errorf("[%d]: want a number, got %T %v", i, e, e)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of numbers, got %T %v", v, v)
}

// Name returns "iesr".
func (r *Runner) Name() string { return "iesr" }

// Config returns the runner's configuration.
func (r *Runner) Config() Config { return r.cfg }

// Run answers one question with the three stages.
func (r *Runner) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	start := time.Now()
	if t.DB == nil {
		return runners.Result{Note: "no database"}, nil
	}
	m := runners.NewMeter(t.LLM)
	sch, err := t.DB.Schema(ctx)
	if err != nil {
		return runners.Result{}, fmt.Errorf("iesr: schema: %w", err)
	}
	cfg := r.cfg
	q := &question{cfg: &cfg, t: t, llm: m, schema: sch, exec: runners.NewExecutions(t.DB)}
	if cfg.Evidence {
		q.evidence = t.Example.Evidence
	}
	var res runners.Result
	res.Trace.Data = map[string]any{}
	implied := map[string]int{}

	// Stage 1.1: information understanding: extraction, keyword
	// verification rounds, rule-guided verification.
	var vs *ValidatedState
	if cfg.Understanding {
		v, err := q.understand(ctx, &res.Trace, implied)
		if err != nil {
			return runners.Result{}, err
		}
		vs = v
	}

	// Stage 1.2: schema linking and compression.
	schemaText := datasets.RenderMSchema(sch, datasets.RenderOptions{})
	if vs != nil {
		q.extra = "\n【Key information】\n" + vs.Text()
	}
	if cfg.Linking {
		l := LinkSchema(sch, QueryTerms(t.Example.Question, q.evidence, vs.Terms()), vs.SchemaItems(), cfg.LinkLSH, cfg.LinkMin, cfg.LinkMaxTables)
		res.Trace.Data["linking"] = l
		info := map[string]any{"tables": len(l.Tables), "bridges": l.Bridges, "candidates": l.Candidates, "fallback": l.Fallback, "compression": cfg.Compression}
		switch {
		case l.Fallback:
		case cfg.Compression:
			q.linkSel = l.Tables
			schemaText = datasets.RenderMSchema(sch, datasets.RenderOptions{Tables: l.Tables})
		default:
			q.extra += "\n【Linked schema items】\n" + strings.Join(slices.Sorted(maps.Keys(l.Scores)), ", ") + "\n"
		}
		res.Trace.Add(runners.Step{Action: "link", Output: schemaText, Info: info})
		res.Trace.Count("schema_tables_kept", float64(len(l.Tables)))
	}
	res.Trace.Count("schema_tables", float64(len(sch.Tables)))
	q.header = taskHeader(t.Example.DBID, schemaText, t.Example.Question, q.evidence, q.extra)

	// Stage 2: MCTS over the six actions.
	tree, err := mcts.Search(ctx, q, mcts.Config{
		Policy: cfg.Policy(), Rescore: cfg.Rescore(),
		Rollouts: cfg.Rollouts, Samples: cfg.Samples, C: cfg.C,
		Rand:  rand.New(rand.NewPCG(uint64(t.Seed), 0x69657372)),
		Prune: runners.ModelRejected,
	})
	if err != nil {
		return runners.Result{}, fmt.Errorf("iesr: %w", err)
	}
	implied[runners.RoleReason] += tree.ExpandRequests + q.rewardRequests

	// Stage 3: trajectory selection.
	trajs := q.trajectories(ctx, tree)
	if cfg.Discriminator {
		n, err := q.discriminate(ctx, trajs, &res.Trace)
		if err != nil {
			return runners.Result{}, fmt.Errorf("iesr: discriminator: %w", err)
		}
		implied[runners.RoleDiscriminator] += n
	}
	opt := SelectOptions{Weights: cfg.Weights, Discriminator: cfg.Discriminator, KeepRule: cfg.KeepRule, Scoring: cfg.Scoring}
	chosen, note := Select(trajs, opt)
	finish(trajs, chosen, note, opt, &res)
	if res.SQL == "" {
		if sql := mctsql.BestNodeSQL(ctx, tree, q.exec); sql != "" {
			res.SQL = sql
			res.Note = joinNote(res.Note, "returned the best SQL a non-terminal step generated")
			res.Candidates = append(res.Candidates, runners.Candidate{SQL: sql})
		}
	}
	res.Extraction = q.found.Of(res.SQL)
	if err := ctx.Err(); err != nil {
		return runners.Result{}, err
	}

	// Accounting: calls, completions and tokens by role, actual (metered)
	// and implied by the configuration and the tree.
	usage := m.Usage()
	summary := tree.Summarize()
	for role, u := range usage {
		res.Trace.Count("calls."+role, float64(u.Calls))
		res.Trace.Count("prompt_tokens."+role, float64(u.PromptTokens))
		res.Trace.Count("completion_tokens."+role, float64(u.CompletionTokens))
	}
	for role, n := range implied {
		res.Trace.Count("calls_implied."+role, float64(n))
	}
	res.Trace.Count("rollouts", float64(tree.Rollouts))
	res.Trace.Count("tree_nodes", float64(summary.Nodes))
	res.Trace.Count("trajectories", float64(len(trajs)))
	res.Trace.Count("reward_requests", float64(q.rewardRequests))
	res.Trace.Count("reward_calls", float64(tree.Rewards))
	res.Trace.Count("expand_requests", float64(tree.ExpandRequests))
	res.Trace.Count(runners.CounterPruned, float64(len(tree.Pruned)))
	res.Trace.Merge(q.side)
	kept := 0
	for _, tj := range trajs {
		if tj.Kept {
			kept++
		}
	}
	res.Trace.Count("trajectories_kept", float64(kept))
	byAction := map[string]int{}
	for a, n := range tree.ActionRequests {
		byAction[string(a)] = n
	}
	res.Trace.Data["requests_by_action"] = byAction
	res.Trace.Data["tree_summary"] = summary
	res.Trace.Data["tree"] = tree
	res.Trace.Data["trajectories"] = trajs
	res.Trace.Data["config"] = map[string]any{
		"stages":               map[string]bool{"understanding": cfg.Understanding, "linking": cfg.Linking, "compression": cfg.Compression, "discriminator": cfg.Discriminator, "scoring": cfg.Scoring},
		"disabled":             mcts.DisabledNames(cfg.Disabled),
		"weights":              []float64{cfg.Weights.Alpha, cfg.Weights.Beta, cfg.Weights.Gamma},
		"disc_cuts":            cutsString(cfg.Cuts),
		"keep_rule":            cfg.KeepRule,
		"rules":                rulesName(cfg.RulesPath),
		"n_rollout":            cfg.Rollouts,
		"n_expansion":          cfg.Samples,
		"expansion":            cfg.Expansion,
		"reward":               cfg.RewardRule,
		"mask":                 cfg.Mask,
		"verify_keywords":      cfg.VerifyKeywords,
		"understanding_rounds": cfg.UnderstandingRounds,
		"n_reward":             cfg.Reward,
		"rule_base_rules":      len(cfg.Rules.Rules),
	}
	res.Usage = usage
	res.Wall = time.Since(start)
	return res, nil
}

func rulesName(p string) string {
	if p == "" {
		return "bundled rules.yaml"
	}
	return p
}
