package alphasql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/mcts"
	"github.com/t2sbench/t2sbench/runners/retrieval"
)

// Defaults: the paper's Section 4.1 / Appendix hyper-parameters and the
// authors' released configuration (METHODS.md).
const (
	DefaultRollouts    = 24    // N_rollout
	DefaultExpansion   = 3     // N_expansion: samples per action, one request with n = 3
	DefaultTemperature = 0.8   // T_expansion
	DefaultTopP        = 0.8   // top_p of the released code
	DefaultReward      = 5     // N_reward
	DefaultRewardTemp  = 0.8   // released code; the paper states 1.0
	DefaultRevision    = 10    // N_revision
	DefaultC           = 1.414 // UCT exploration weight
	// DefaultRewardDenominator divides the agreeing samples by the valid
	// ones, as the released code does.
	DefaultRewardDenominator = RewardOverValid
	// DefaultMaxTokens bounds each completion, reasoning tokens included.
	// It is t2sbench's choice, not the paper's (which gives none): sized
	// for reasoning models (DeepSeek-R1 distillations, Qwen3, o-series),
	// which think for thousands of tokens before a short answer, so that
	// few samples are cut. It was 2048 before reasoning models were
	// supported; set max_tokens: 2048 to reproduce runs made then.
	DefaultMaxTokens = 8192
)

func init() {
	runners.RegisterInfo(runners.Info{
		Name:      "alphasql",
		New:       build,
		Paper:     "Alpha-SQL (MCTS over seven reasoning actions, self-supervised reward)",
		Roles:     []runners.RoleInfo{{Role: runners.RoleReason, Does: "every action, the reward samples and revision"}},
		Ablations: "disable_actions: any of A1 A2 A3 A4 A6 (paper Table 3); value_retrieval: false; evidence: false",
		Varied:    []string{"n_rollout", "n_expansion", "n_reward", "temperature", "c"},
	})
}

// Reward denominators (param reward_denominator): what the count of
// reward samples agreeing with a terminal is divided by.
const (
	// RewardOverValid divides by the valid samples (the released code's
	// SQLGenerationAction.generate_most_consistent_sql_query: the largest
	// result group over all valid results; the paper filters invalid
	// queries out before scoring).
	RewardOverValid = "valid"
	// RewardOverN divides by N_reward, so that invalid samples count as
	// disagreeing.
	RewardOverN = "n_reward"
)

// Config is the runner's configuration; every field is a spec parameter
// (snake_case names in New).
type Config struct {
	Rollouts, Expansion       int
	Temperature, TopP         float64
	Reward                    int
	RewardTemperature         float64
	RewardDenominator         string
	Revision                  int
	C                         float64
	Disabled                  map[mcts.Action]bool
	Evidence                  bool
	MaxTokens                 int
	ValueRetrieval            bool
	IndexDir                  string
	EmbeddingRole             string
	TopK, ValuesPerColumn     int
	EditMin, EmbeddingMin     float64
	MaxValuesPerColumnIndexed int
}

// Runner is the Alpha-SQL runner.
type Runner struct{ cfg Config }

// New builds the runner from spec parameters, for Go callers; build reads
// them, and `t2sbench help runners` lists each with its default and valid
// values:
//
//	n_rollout, n_expansion, temperature, top_p, n_reward,
//	reward_temperature, reward_denominator (valid | n_reward), n_revision,
//	c, disable_actions (any of A1 A2 A3 A4 A6), evidence, max_tokens,
//	value_retrieval, value_index_dir ("": the user cache
//	dir/t2sbench/value-index), embedding_role ("": lexical only),
//	retrieval_top_k, edit_threshold, embedding_threshold,
//	values_per_column, max_values_per_column (0: all).
func New(p runners.Params) (runners.Runner, error) { return build(runners.NewReader(p)) }

// build is the runner's factory (runners.Factory): it reads every
// parameter through r, with its default.
func build(r *runners.Reader) (runners.Runner, error) {
	c := Config{
		Rollouts:                  r.Int("n_rollout", DefaultRollouts, 1, 10000),
		Expansion:                 r.Int("n_expansion", DefaultExpansion, 1, 64),
		Temperature:               r.Float("temperature", DefaultTemperature, 0, 2),
		TopP:                      r.Float("top_p", DefaultTopP, 0, 1),
		Reward:                    r.Int("n_reward", DefaultReward, 1, 64),
		RewardTemperature:         r.Float("reward_temperature", DefaultRewardTemp, 0, 2),
		RewardDenominator:         r.String("reward_denominator", DefaultRewardDenominator, RewardOverValid, RewardOverN),
		Revision:                  r.Int("n_revision", DefaultRevision, 1, 100),
		C:                         r.Float("c", DefaultC, 0, 100),
		Evidence:                  r.Bool("evidence", true),
		MaxTokens:                 r.Int("max_tokens", DefaultMaxTokens, 16, 65536),
		ValueRetrieval:            r.Bool("value_retrieval", true),
		IndexDir:                  r.String("value_index_dir", ""),
		EmbeddingRole:             r.String("embedding_role", ""),
		TopK:                      r.Int("retrieval_top_k", retrieval.DefaultTopK, 1, 1000),
		EditMin:                   r.Float("edit_threshold", retrieval.DefaultEditMin, 0, 1),
		EmbeddingMin:              r.Float("embedding_threshold", retrieval.DefaultEmbedMin, 0, 1),
		ValuesPerColumn:           r.Int("values_per_column", retrieval.DefaultPerColumn, 1, 100),
		MaxValuesPerColumnIndexed: r.Int("max_values_per_column", 0, 0, 1<<30),
		Disabled:                  map[mcts.Action]bool{},
	}
	var bad []string
	for _, a := range r.Strings("disable_actions", nil) {
		act := mcts.Action(strings.ToUpper(strings.TrimSpace(a)))
		ok := false
		for _, x := range Removable {
			if x == act {
				ok = true
			}
		}
		if !ok {
			bad = append(bad, a)
			continue
		}
		c.Disabled[act] = true
	}
	err := r.Err()
	if len(bad) > 0 {
		var e error = &runners.ParamError{Key: "disable_actions", Err: fmt.Errorf("%q not removable (removable: A1, A2, A3, A4, A6)", bad)}
		if err != nil {
			e = fmt.Errorf("%w; %w", err, e)
		}
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	if c.IndexDir == "" {
		if d, derr := os.UserCacheDir(); derr == nil {
			c.IndexDir = filepath.Join(d, "t2sbench", "value-index")
		} else {
			c.IndexDir = filepath.Join(os.TempDir(), "t2sbench-value-index")
		}
	}
	return &Runner{cfg: c}, nil
}

// Name returns "alphasql".
func (r *Runner) Name() string { return "alphasql" }

// Config returns the runner's configuration.
func (r *Runner) Config() Config { return r.cfg }

// indexes memoises value indexes per database fingerprint within the
// process, so that concurrent questions on one database build it once.
var indexes struct {
	mu sync.Mutex
	m  map[string]*indexEntry
}

type indexEntry struct {
	once  sync.Once
	ix    *retrieval.Index
	built bool
	err   error
}

func (r *Runner) valueIndex(ctx context.Context, db datasets.Database) (*retrieval.Index, bool, error) {
	key := r.cfg.IndexDir + "\x00" + db.Fingerprint() + "\x00" + db.ID()
	indexes.mu.Lock()
	if indexes.m == nil {
		indexes.m = map[string]*indexEntry{}
	}
	e := indexes.m[key]
	if e == nil {
		e = &indexEntry{}
		indexes.m[key] = e
	}
	indexes.mu.Unlock()
	e.once.Do(func() {
		e.ix, e.built, e.err = retrieval.Open(context.WithoutCancel(ctx), db, r.cfg.IndexDir,
			retrieval.Options{MaxValuesPerColumn: r.cfg.MaxValuesPerColumnIndexed})
	})
	if e.err != nil {
		indexes.mu.Lock()
		delete(indexes.m, key)
		indexes.mu.Unlock()
	}
	return e.ix, e.built, e.err
}

// Run answers one question with MCTS over the seven actions.
func (r *Runner) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	start := time.Now()
	if t.DB == nil {
		return runners.Result{Note: "no database"}, nil
	}
	m := runners.NewMeter(t.LLM)
	sch, err := t.DB.Schema(ctx)
	if err != nil {
		return runners.Result{}, fmt.Errorf("alphasql: schema: %w", err)
	}
	q := &question{cfg: r.cfg, t: t, llm: m, schema: sch, exec: runners.NewExecutions(t.DB)}
	if r.cfg.Evidence {
		q.evidence = t.Example.Evidence
	}
	var res runners.Result
	keywordRequests := 0
	if r.cfg.ValueRetrieval {
		n, err := q.retrieveValues(ctx, r, &res.Trace)
		if err != nil {
			return runners.Result{}, err
		}
		keywordRequests = n
	}
	if q.schema == sch {
		q.fullSchema = datasets.SchemaDDL(sch) // the database's schema: rendered once per process
	} else {
		// Value retrieval copied the schema for this question alone: the
		// memo of shared schemas would only keep it alive.
		q.fullSchema = datasets.RenderDDL(q.schema, datasets.RenderOptions{})
	}
	seed := uint64(t.Seed)
	tree, err := mcts.Search(ctx, q, mcts.Config{
		Rollouts: r.cfg.Rollouts, Samples: r.cfg.Expansion, C: r.cfg.C,
		Rand:  rand.New(rand.NewPCG(seed, 0x616c70686173716c)),
		Prune: runners.ModelRejected,
	})
	if err != nil {
		return runners.Result{}, fmt.Errorf("alphasql: %w", err)
	}
	q.selectFinal(ctx, tree, &res)
	if ctx.Err() != nil {
		return runners.Result{}, ctx.Err()
	}
	// Requests: what the algorithm implies from the tree it built (one
	// keyword call, one request per expanded action plus extra revision
	// rounds, one reward request per distinct terminal) against the meter.
	implied := keywordRequests + tree.ExpandRequests + tree.Rewards
	summary := tree.Summarize()
	res.Trace.Count("model_requests", float64(m.Calls()))
	res.Trace.Count("model_requests_implied", float64(implied))
	res.Trace.Count("rollouts", float64(tree.Rollouts))
	res.Trace.Count("tree_nodes", float64(summary.Nodes))
	res.Trace.Count("terminals", float64(summary.Terminals))
	res.Trace.Count("reward_requests", float64(tree.Rewards))
	res.Trace.Count("expand_requests", float64(tree.ExpandRequests))
	res.Trace.Count(runners.CounterPruned, float64(len(tree.Pruned)))
	res.Trace.Merge(q.side)
	byAction := map[string]int{"keywords": keywordRequests, "reward": tree.Rewards}
	for a, n := range tree.ActionRequests {
		byAction[string(a)] = n
	}
	if res.Trace.Data == nil {
		res.Trace.Data = map[string]any{}
	}
	res.Trace.Data["requests"] = map[string]any{"actual": m.Calls(), "implied": implied, "by_action": byAction}
	res.Trace.Data["tree_summary"] = summary
	res.Trace.Data["tree"] = tree
	res.Trace.Data["disabled_actions"] = mcts.DisabledNames(r.cfg.Disabled)
	res.Usage = m.Usage()
	res.Wall = time.Since(start)
	return res, nil
}

// retrieveValues runs the keyword call and value retrieval and puts the
// retrieved values first among the schema's value examples. It returns the
// number of model requests made.
func (q *question) retrieveValues(ctx context.Context, r *Runner, tr *runners.Trace) (int, error) {
	prompt := taskText(q.t.Example.DBID, datasets.SchemaDDL(q.schema), q.t.Example.Question, q.evidence) + "\n" + keywordInstruction
	resp, err := q.complete(ctx, prompt, 0, 1, RespKeywords, llm.AnswerText, 0)
	if err != nil {
		if ctx.Err() == nil && runners.ModelRejected(err) {
			// The question goes on without retrieved values.
			q.side.Reject(runners.RoleReason, "keywords", err)
			return 0, nil
		}
		return 1, err
	}
	out := ""
	if len(resp.Choices) > 0 {
		out = resp.Choices[0]
	}
	info := runners.SampleInfo(resp, 0)
	var kw []string
	if resp.Cut(0) {
		q.side.Count(runners.CounterCut(runners.RoleReason), 1)
		info["error"] = "answer cut at max_tokens"
	} else {
		var perr error
		if kw, perr = ParseKeywords(out); perr != nil {
			info["error"] = perr.Error()
		}
		if perr != nil || !jsontext.HasKey(out, "keywords") {
			q.side.ParseFailed(runners.RoleReason, "keywords")
		}
	}
	info["keywords"] = kw
	tr.Add(runners.Step{Action: "keywords", Role: runners.RoleReason, Output: out, Info: info})
	ix, built, err := r.valueIndex(ctx, q.t.DB)
	if err != nil {
		if ctx.Err() != nil {
			return 1, ctx.Err()
		}
		tr.Add(runners.Step{Action: "value_retrieval", Info: map[string]any{"error": err.Error()}})
		return 1, nil
	}
	ret := &retrieval.Retriever{Index: ix, TopK: r.cfg.TopK, EditMin: r.cfg.EditMin, EmbedMin: r.cfg.EmbeddingMin, PerColumn: r.cfg.ValuesPerColumn}
	if r.cfg.EmbeddingRole != "" {
		if e, ok := q.t.LLM.(retrieval.Embedder); ok {
			ret.Embedder, ret.Role = e, r.cfg.EmbeddingRole
		}
	}
	got, err := ret.Retrieve(ctx, kw)
	if err != nil {
		if ctx.Err() != nil {
			return 1, ctx.Err()
		}
		tr.Add(runners.Step{Action: "value_retrieval", Info: map[string]any{"error": err.Error()}})
		return 1, nil
	}
	mode := got.Mode
	if r.cfg.EmbeddingRole != "" && ret.Embedder == nil {
		mode += " (embedding_role set but the model client computes no embeddings)"
	}
	tr.Add(runners.Step{Action: "value_retrieval", Info: map[string]any{"mode": mode, "values": got.ByColumn,
		"candidates": got.Candidates, "index_values": ix.Len(), "index_built": built}})
	tr.Count("retrieved_values", float64(len(got.Matches)))
	// Copy the schema, putting retrieved values first among the examples.
	s := *q.schema
	s.Tables = make([]datasets.Table, len(q.schema.Tables))
	for i, tb := range q.schema.Tables {
		tb.Columns = append([]datasets.Column(nil), tb.Columns...)
		for j := range tb.Columns {
			vals := got.ByColumn[tb.Name+"."+tb.Columns[j].Name]
			if len(vals) == 0 {
				continue
			}
			ex := append([]string(nil), vals...)
			for _, e := range tb.Columns[j].Examples {
				if !slices.Contains(ex, e) {
					ex = append(ex, e)
				}
			}
			tb.Columns[j].Examples = ex
		}
		s.Tables[i] = tb
	}
	q.schema = &s
	return 1, nil
}
