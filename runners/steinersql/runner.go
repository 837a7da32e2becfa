package steinersql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Defaults, from the paper unless noted.
const (
	// DefaultAlpha, DefaultBeta, DefaultGamma weight C_connect, C_sem and
	// C_stat (Section 3.3.3: 0.4, 0.4, 0.2).
	DefaultAlpha = 0.4
	DefaultBeta  = 0.4
	DefaultGamma = 0.2
	// DefaultTau is the similarity threshold for a non-FK edge (Algorithm 2:
	// sim >= 0.75).
	DefaultTau = 0.75
	// DefaultMaxIterations bounds the re-planning loop (Algorithm 2: 3).
	DefaultMaxIterations = 3
	// DefaultMaxTokensDecompose and DefaultMaxTokensReason bound the
	// completion of Stage 1 and of SQL generation, reasoning tokens
	// included. The paper's "max new tokens 512" (Appendix B) was set for
	// models that answer at once; a reasoning model (DeepSeek-R1, Qwen3,
	// o-series) spends thousands of tokens thinking first and would be cut
	// before its answer. These are t2sbench's defaults, sized for
	// reasoning models; set both to 512 to reproduce the paper's setting.
	DefaultMaxTokensDecompose = 4096
	DefaultMaxTokensReason    = 8192
	// DefaultCorrection is the edit similarity an unknown terminal name
	// needs to be corrected to a schema table (t2sbench's choice: the paper
	// does not correct names).
	DefaultCorrection = 0.6
	// DefaultStatSample bounds the rows each statistics query reads per
	// table (t2sbench's choice; the paper does not say).
	DefaultStatSample = 10000
	// DefaultLinkK is the number of lexically linked terminals without
	// Stage 1 (t2sbench's choice).
	DefaultLinkK = 3
)

// stepValidate is the action of the trace step of one validation, whose
// Info["pass"] EstimateCallsFromTraces reads the failure rates from.
const stepValidate = "validate"

// Re-planning feedback modes (param replan_feedback): what a retry after a
// level-2 or level-3 failure sends besides the new scaffold.
const (
	// FeedbackScaffold sends only the prompt built on the new scaffold
	// (Algorithm 2: BuildSystemPrompt(T_steiner), then
	// LLM-GenerateSQL(prompt, q)).
	FeedbackScaffold = "scaffold"
	// FeedbackViolations also sends the previous query and the list of
	// violations.
	FeedbackViolations = "violations"
)

// Roles and request kinds (llm.Request.Responder).
const (
	// ResponderDecompose is the request kind of Stage 1.
	ResponderDecompose = "steinersql/decompose"
	// ResponderGenerate is the request kind of SQL generation.
	ResponderGenerate = "steinersql/generate"
)

func init() {
	runners.RegisterInfo(runners.Info{
		Name:  "steinersql",
		New:   func(r *runners.Reader) (runners.Runner, error) { return build(r) },
		Paper: "SteinerSQL (decomposition, Steiner-tree schema navigation, multilevel validation)",
		Roles: []runners.RoleInfo{{Role: runners.RoleDecompose, Does: "Stage 1, the question's terminals"},
			{Role: runners.RoleReason, Does: "SQL generation and re-planning"}},
		Ablations: "decomposition, navigation, graph_module, structured_examples: false; path_algorithm; validation; alpha/beta/gamma 0 removes a cost part (paper Table 2); attribute_check, dependency_analysis: false (level-2 attribute check; Algorithm 1 dependency analysis)",
		Varied:    []string{"alpha", "beta", "gamma", "tau", "max_iterations"},
	})
}

// Runner is the SteinerSQL method (seed 001): mathematical decomposition,
// Steiner-tree schema navigation, multi-level validation with re-planning.
type Runner struct {
	alg           string
	validation    string
	maxIter       int
	weights       Weights
	tau           float64
	correction    float64
	decomposition bool
	navigation    bool
	graphModule   bool
	examples      bool
	evidence      bool
	statSample    int
	embedRole     string
	temperature   float64
	maxTokensDec  int
	maxTokensGen  int
	linkK         int
	attrCheck     bool
	depAnalysis   bool
	edgeCost      string
	l2Direction   string
	replanFB      string

	stats *StatsCache

	mu     sync.Mutex
	graphs map[string]*graphEntry
}

type graphEntry struct {
	mu    sync.Mutex
	graph *SchemaGraph
	val   *Validator
}

// New builds the runner from spec parameters, for Go callers; build reads
// them, and `t2sbench help runners` lists each with its default and valid
// values:
//
//	path_algorithm       steiner | shortest-path-union | mst-on-terminals
//	validation           multilevel | simple-feedback | none
//	max_iterations       re-planning rounds
//	alpha, beta, gamma   cost weights in [0, 1]; 0 removes a part
//	tau                  non-FK edge similarity threshold
//	correction_threshold edit similarity to correct a terminal name
//	decomposition        Stage 1 on; off = lexical terminals
//	navigation           Stage 2 on; off = full schema, no scaffold
//	graph_module         scaffold from the cost graph; off = direct FKs only
//	structured_examples  worked examples in the guidelines
//	evidence             show the benchmark's evidence
//	stat_sample          rows per statistics query
//	stats_cache          directory of the on-disk statistics cache
//	embedding_role       role of an embedding backend for C_sem; "" lexical
//	temperature          sampling temperature of both calls
//	max_tokens_decompose completion tokens of Stage 1, reasoning included
//	max_tokens_reason    completion tokens of SQL generation, ditto
//	link_k               terminals linked lexically without Stage 1
//	attribute_check      level 2 checks SELECT/WHERE/HAVING attributes
//	dependency_analysis  Stage 1 asks for dependencies; Algorithm 1 orders
//	                     them and adds the tables of required attributes
//	edge_cost            paper | pair: sim_name, sim_type each a maximum
//	                     over column pairs, or both from the best pair
//	l2_direction         scaffold_in_query | query_in_scaffold: level 2
//	                     fails on a scaffold join the query does not make,
//	                     or on a table the query reads outside the scaffold
//	replan_feedback      scaffold | violations: a re-planned retry sends
//	                     the new scaffold only, or also the previous query
//	                     and its violations
func New(p runners.Params) (*Runner, error) { return build(runners.NewReader(p)) }

// build reads every parameter through r, with its default: the runner's
// factory (runners.Factory).
func build(r *runners.Reader) (*Runner, error) {
	x := &Runner{
		alg:           r.String("path_algorithm", AlgSteiner, AlgSteiner, AlgShortestPathUnion, AlgMSTOnTerminals),
		validation:    r.String("validation", ValMultilevel, ValMultilevel, ValSimpleFeedback, ValNone),
		maxIter:       r.Int("max_iterations", DefaultMaxIterations, 1, 10),
		weights:       Weights{r.Float("alpha", DefaultAlpha, 0, 1), r.Float("beta", DefaultBeta, 0, 1), r.Float("gamma", DefaultGamma, 0, 1)},
		tau:           r.Float("tau", DefaultTau, 0, 1),
		correction:    r.Float("correction_threshold", DefaultCorrection, 0, 1),
		decomposition: r.Bool("decomposition", true),
		navigation:    r.Bool("navigation", true),
		graphModule:   r.Bool("graph_module", true),
		examples:      r.Bool("structured_examples", true),
		evidence:      r.Bool("evidence", true),
		statSample:    r.Int("stat_sample", DefaultStatSample, 1, 1<<30),
		embedRole:     r.String("embedding_role", ""),
		temperature:   r.Float("temperature", 0, 0, 2),
		maxTokensDec:  r.Int("max_tokens_decompose", DefaultMaxTokensDecompose, 16, 131072),
		maxTokensGen:  r.Int("max_tokens_reason", DefaultMaxTokensReason, 16, 131072),
		linkK:         r.Int("link_k", DefaultLinkK, 1, 100),
		attrCheck:     r.Bool("attribute_check", true),
		depAnalysis:   r.Bool("dependency_analysis", true),
		edgeCost:      r.String("edge_cost", EdgeCostPaper, EdgeCostPaper, EdgeCostPair),
		l2Direction:   r.String("l2_direction", L2ScaffoldInQuery, L2ScaffoldInQuery, L2QueryInScaffold),
		replanFB:      r.String("replan_feedback", FeedbackScaffold, FeedbackScaffold, FeedbackViolations),
		graphs:        map[string]*graphEntry{},
	}
	x.stats = NewStatsCache(r.String("stats_cache", ""))
	if err := r.Err(); err != nil {
		return nil, err
	}
	return x, nil
}

// iterations is the most generations of one question: max_iterations,
// or 1 when validation is none (nothing asks for another).
func (r *Runner) iterations() int {
	if r.validation == ValNone {
		return 1
	}
	return r.maxIter
}

// Name returns "steinersql".
func (r *Runner) Name() string { return "steinersql" }

// graphFor builds (once per database content) the schema graph and the
// validator. Errors are not cached.
func (r *Runner) graphFor(ctx context.Context, t runners.Task, s *datasets.Schema) (*graphEntry, error) {
	key := dbKey(t.DB)
	r.mu.Lock()
	e, ok := r.graphs[key]
	if !ok {
		e = &graphEntry{}
		r.graphs[key] = e
	}
	r.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.graph != nil {
		return e, nil
	}
	opt := GraphOptions{Weights: r.weights, Tau: r.tau, Sample: r.statSample, EdgeCost: r.edgeCost}
	if r.embedRole != "" {
		emb, err := r.embeddings(ctx, t.LLM, s)
		if err != nil {
			return nil, err
		}
		opt.Embeddings = emb
	}
	g, err := BuildGraph(ctx, s, r.stats.Func(t.DB, r.statSample), opt)
	if err != nil {
		return nil, fmt.Errorf("steinersql: schema graph of %s: %w", t.DB.ID(), err)
	}
	if err := r.stats.Flush(t.DB); err != nil {
		return nil, fmt.Errorf("steinersql: %w", err)
	}
	g.W.Closure() // computed once, read-only afterwards (shared by workers)
	v, err := NewValidator(ctx, t.DB, s)
	if err != nil {
		return nil, fmt.Errorf("steinersql: validator of %s: %w", t.DB.ID(), err)
	}
	v.Attributes = r.attrCheck
	v.L2Direction = r.l2Direction
	e.graph, e.val = g, v
	return e, nil
}

// embeddings computes each table's embedding as the mean of the embeddings
// of its name and its column names (paper Section 3.3.3).
func (r *Runner) embeddings(ctx context.Context, c llm.Client, s *datasets.Schema) (map[string][]float32, error) {
	emb, ok := c.(llm.Embedder)
	if !ok {
		return nil, fmt.Errorf("steinersql: embedding_role %q is set but the model client has no embedding backend", r.embedRole)
	}
	out := map[string][]float32{}
	for _, t := range s.Tables {
		texts := []string{t.Name}
		for _, col := range t.Columns {
			texts = append(texts, col.Name)
		}
		vs, _, err := emb.Embed(ctx, r.embedRole, texts)
		if err != nil {
			return nil, fmt.Errorf("steinersql: embeddings of %s: %w", t.Name, err)
		}
		var mean []float32
		for _, v := range vs {
			if mean == nil {
				mean = make([]float32, len(v))
			}
			for i := range v {
				if i < len(mean) {
					mean[i] += v[i] / float32(len(vs))
				}
			}
		}
		out[t.Name] = mean
	}
	return out, nil
}

// attempt is one generated query and its validation. sql is empty when
// the answer held no complete query (cut is true when it was cut at
// max_tokens); such an attempt is not validated.
type attempt struct {
	sql    string
	report Report
	cut    bool
	// found is how sql was found in the response.
	found sqltext.Extraction
}

// passed reports whether the attempt has a query that passed validation.
func (a attempt) passed() bool { return a.sql != "" && a.report.Pass() }

// Run answers one question.
func (r *Runner) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	start := time.Now()
	res := runners.Result{}
	if t.DB == nil {
		return res, errors.New("steinersql: task has no database")
	}
	m := runners.NewMeter(t.LLM)
	s, err := t.DB.Schema(ctx)
	if err != nil {
		return res, fmt.Errorf("steinersql: schema of %s: %w", t.Example.DBID, err)
	}
	ge, err := r.graphFor(ctx, t, s)
	if err != nil {
		return res, err
	}
	g := ge.graph
	dialect := "SQLite"
	if t.DB.Dialect() == "mysql" {
		dialect = "MySQL"
	}
	evidence := ""
	if r.evidence {
		evidence = t.Example.Evidence
	}
	seed := t.Seed
	res.Trace.Data = map[string]any{"graph": map[string]any{
		"tables": len(g.Tables), "edges": len(g.Edges), "semantic": g.Semantic, "algorithm": r.alg,
	}}

	// Stage 1: mathematical decomposition.
	var dec *Decomposition
	var deps *DepGraph
	var terms []string
	if r.decomposition {
		sys, user := decomposePrompt(s, t.Example.Question, evidence, r.depAnalysis)
		schema, schemaName := decompositionSchema, SchemaDecomposition
		if r.depAnalysis {
			schema, schemaName = decompositionDepSchema, SchemaDecompositionDeps
		}
		resp, err := m.Complete(ctx, llm.Request{
			Role: runners.RoleDecompose, Messages: []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}},
			Temperature: r.temperature, MaxTokens: r.maxTokensDec, Seed: &seed,
			Answer: llm.AnswerJSON, Schema: json.RawMessage(schema), SchemaName: schemaName,
			Responder: ResponderDecompose,
		})
		var out string
		step := runners.Step{Action: "decompose", Role: runners.RoleDecompose, Input: user, Info: map[string]any{}}
		switch {
		case err == nil:
			out = first(resp)
			step.Info = runners.SampleInfo(resp, 0)
		case runners.ModelRejected(err):
			// The request was refused (a prompt over the context window):
			// Stage 1 falls back like an unusable answer.
			step.Info["model_error"] = err.Error()
			res.Trace.Count(CounterModelErrors, 1)
		default:
			return res, fmt.Errorf("steinersql: decompose: %w", err)
		}
		step.Output = out
		d, perr := ParseDecomposition(out)
		if err == nil && resp != nil && !resp.Cut(0) && (perr != nil || !jsontext.HasKey(out, "operations", "quantities", "aggregations", "temporal", "terminal_tables")) {
			res.Trace.ParseFailed(runners.RoleDecompose, "decompose")
		}
		if perr == nil && resp != nil && resp.Cut(0) {
			perr = errors.New("decomposition cut at max_tokens")
		}
		if resp != nil && resp.Cut(0) {
			res.Trace.Count(runners.CounterCut(runners.RoleDecompose), 1)
		}
		if perr != nil {
			step.Info["error"] = perr.Error()
			terms = LinkTerminals(s, t.Example.Question+" "+evidence, r.linkK)
			step.Info["fallback"] = "unusable decomposition: terminals linked lexically"
			res.Trace.Count("decompose.parse_error", 1)
		} else {
			dec = d
			var notes []Correction
			terms, notes = ResolveTerminals(s, d.Terminals, r.correction)
			if len(notes) > 0 {
				step.Info["corrections"] = notes
				for _, n := range notes {
					if n.Table == "" {
						res.Trace.Count("terminals.dropped", 1)
					} else {
						res.Trace.Count("terminals.corrected", 1)
					}
				}
			}
			if r.depAnalysis {
				// Algorithm 1: the tables of the required and constrained
				// attributes join T_req; the entities get their order.
				deps = AnalyzeDependencies(s, d, r.correction)
				for _, tb := range deps.Tables {
					if !slices.ContainsFunc(terms, func(x string) bool { return strings.EqualFold(x, tb) }) {
						terms = append(terms, tb)
						res.Trace.Count(CounterDepTerminals, 1)
					}
				}
				slices.Sort(terms)
				res.Trace.Data["dependencies"] = deps
				step.Info["dependency_order"] = deps.Order
				res.Trace.Count("dependencies.entities", float64(len(deps.Entities)))
			}
			if len(terms) == 0 {
				terms = LinkTerminals(s, t.Example.Question+" "+evidence, r.linkK)
				step.Info["fallback"] = "no valid terminal table: terminals linked lexically"
			}
			res.Trace.Data["decomposition"] = d
		}
		step.Info["terminals"] = terms
		res.Trace.Add(step)
	} else {
		terms = LinkTerminals(s, t.Example.Question+" "+evidence, r.linkK)
		res.Trace.Add(runners.Step{Action: "link", Info: map[string]any{"terminals": terms, "method": "lexical (w/o decomposition)"}})
	}

	maxLevel := 3
	if r.validation == ValSimpleFeedback {
		maxLevel = 1
	}
	iters := r.iterations()
	var attempts []attempt
	var sc *Scaffold
	feedback, prevSQL, stopped := "", "", ""
	missingBefore := map[string]bool{}
	var triggered [4]bool
	attrFired := false
	for it := 1; it <= iters; it++ {
		// Stage 2: schema navigation.
		sc = r.navigate(g, s, terms)
		if sc != nil {
			res.Trace.Add(runners.Step{Action: "navigate", Info: map[string]any{"iteration": it, "scaffold": sc}})
		}
		var fks []datasets.ForeignKey
		if sc != nil && !r.graphModule {
			fks = directFKs(s, sc.Tables)
		}
		sys, user := buildPrompt(promptInput{
			Dialect: dialect, Schema: s, Question: t.Example.Question, Evidence: evidence, Dec: dec, Scaffold: sc,
			Deps: deps, GraphFKs: fks, Examples: r.examples, Feedback: feedback, PrevSQL: prevSQL,
			Navigation: r.navigation, Graph: r.graphModule,
		})
		resp, err := m.Complete(ctx, llm.Request{
			Role: runners.RoleReason, Messages: []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}},
			Temperature: r.temperature, MaxTokens: r.maxTokensGen, Seed: &seed, Answer: llm.AnswerSQL,
			Responder: ResponderGenerate,
		})
		if err != nil {
			if runners.ModelRejected(err) {
				// A refused request (a re-planned prompt over the context
				// window) ends the loop; the attempts so far stand.
				res.Trace.Count(CounterModelErrors, 1)
				res.Trace.Add(runners.Step{Action: "model_error", Role: runners.RoleReason, Info: map[string]any{"iteration": it, "error": err.Error()}})
				stopped = fmt.Sprintf("a permanent model error ended the loop at iteration %d (%v)", it, err)
				break
			}
			return res, fmt.Errorf("steinersql: generate: %w", err)
		}
		out := first(resp)
		gstep := runners.Step{Action: "generate", Role: runners.RoleReason, Input: sys + "\n" + user, Output: out, Info: runners.SampleInfo(resp, 0)}
		gstep.Info["iteration"] = it
		res.Trace.Add(gstep)
		found := sqltext.ExtractSQL(out)
		sql, ok := found.SQL, found.Found()
		problem := ""
		switch {
		case resp.Cut(0):
			res.Trace.Count(runners.CounterCut(runners.RoleReason), 1)
			if !ok || !finishedBeforeCut(out, sql) {
				sql, problem = "", "Your previous answer was cut at the token limit before the query was complete. Think less and answer with the query."
			}
		case !ok:
			problem = "Your previous answer held no SQL query. Answer with the query in a ```sql block."
		}
		if problem != "" {
			// No query to validate: the attempt counts as no SQL (not as a
			// level-1 trigger) and the next iteration asks again.
			res.Trace.Count(CounterNoSQL, 1)
			attempts = append(attempts, attempt{cut: resp.Cut(0)})
			feedback, prevSQL = problem, ""
			continue
		}
		if r.validation == ValNone {
			attempts = append(attempts, attempt{sql: sql, found: found})
			break
		}
		// Stage 3: validation.
		checkSc := sc
		if checkSc == nil {
			checkSc = &Scaffold{Terminals: terms}
		}
		rep := ge.val.Validate(ctx, sql, Question{Text: t.Example.Question, Evidence: evidence}, checkSc, dec, maxLevel)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		attempts = append(attempts, attempt{sql: sql, report: rep, found: found})
		lv := rep.Levels()
		info := map[string]any{"iteration": it, "pass": rep.Pass(), "read": rep.Read}
		var reasons []string
		if rep.ExecErr != "" {
			reasons = append(reasons, "L1 execution: "+rep.ExecErr)
		}
		for _, v := range rep.Violations {
			reasons = append(reasons, v.String())
		}
		if len(reasons) > 0 {
			info["reasons"] = reasons
		}
		res.Trace.Add(runners.Step{Action: stepValidate, Info: info})
		for l := 1; l <= 3; l++ {
			if lv[l] {
				triggered[l] = true
				res.Trace.Count(runners.CounterValidation(l, "attempts"), 1)
			}
		}
		if slices.ContainsFunc(rep.Violations, func(v Violation) bool { return v.Check == CheckAttributes }) {
			attrFired = true
		}
		if rep.Pass() || it == iters {
			break
		}
		feedback = "- " + strings.Join(reasons, "\n- ")
		prevSQL = sql
		if lv[2] || lv[3] {
			if r.replanFB == FeedbackScaffold {
				// Algorithm 2: the retry is built on the new scaffold alone.
				feedback, prevSQL = "", ""
			}
			// Path re-planning: the violation becomes a constraint on the
			// terminal set, and Stage 2 runs again.
			newTerms, change := updateTerminals(terms, rep, missingBefore)
			res.Trace.Add(runners.Step{Action: "replan", Info: map[string]any{"iteration": it, "terminals": newTerms, "change": change}})
			res.Trace.Count("replans", 1)
			terms = newTerms
		}
	}
	// Outcome and counters (per question: 1 when the level triggered at
	// least once, so a report's mean is the paper's Figure 3 trigger rate).
	if len(attempts) == 0 { // the first generation request was refused
		res.Note = stopped
		res.Usage = m.Usage()
		res.Wall = time.Since(start)
		return res, nil
	}
	best := pick(attempts)
	res.Trace.Count("iterations", float64(len(attempts)))
	res.Trace.Count("terminals", float64(len(terms)))
	if sc != nil {
		res.Trace.Count("scaffold_tables", float64(len(sc.Tables)))
		res.Trace.Data["scaffold"] = sc
	}
	if r.validation != ValNone {
		passed := attempts[best].passed()
		for l := 1; l <= 3; l++ {
			name := runners.CounterValidation(l)
			res.Trace.Count(name, 0)
			if triggered[l] {
				res.Trace.Count(name, 1)
				if passed {
					res.Trace.Count(name+".corrected", 1)
				}
			}
		}
		if r.attrCheck && maxLevel >= 2 {
			// Per question, as validation.lN: 1 when the attribute check
			// fired at least once; the mean is its trigger rate.
			res.Trace.Count(CounterAttributes, 0)
			if attrFired {
				res.Trace.Count(CounterAttributes, 1)
			}
		}
		if passed {
			res.Trace.Count(runners.ValidationPrefix+"pass", 1)
		} else {
			res.Trace.Count(runners.ValidationPrefix+"pass", 0)
		}
	}
	for i, a := range attempts {
		if a.sql == "" {
			continue
		}
		c := runners.Candidate{SQL: a.sql, Score: score(a, r.validation)}
		if r.validation != ValNone {
			lv := a.report.Levels()
			c.Parts = map[string]float64{"iteration": float64(i + 1), "l1": b2f(lv[1]), "l2": b2f(lv[2]), "l3": b2f(lv[3])}
		}
		res.Candidates = append(res.Candidates, c)
	}
	res.SQL = attempts[best].sql
	res.Extraction = attempts[best].found.ReasonFor(res.SQL)
	switch {
	case res.SQL == "" && attempts[best].cut:
		res.Note = NoSQLNote + " (answer cut at max_tokens)"
	case res.SQL == "":
		res.Note = NoSQLNote
	case r.validation != ValNone && !attempts[best].passed():
		res.Note = fmt.Sprintf("no query passed validation in %d iteration(s); returned the executing one with the fewest failures", len(attempts))
	}
	if stopped != "" {
		res.Note = strings.TrimPrefix(res.Note+"; "+stopped, "; ")
	}
	res.Usage = m.Usage()
	res.Wall = time.Since(start)
	return res, nil
}

// Result.Note of an answer without SQL, and trace counters beside the
// validation ones.
const (
	// NoSQLNote is Result.Note when no generation held a query.
	NoSQLNote = "no SQL in response"
	// CounterNoSQL counts generations without a complete query.
	CounterNoSQL = "no_sql"
	// CounterModelErrors counts requests the model server refused
	// permanently (runners.ModelRejected).
	CounterModelErrors = "model_errors"
	// CounterAttributes is 1 when level 2's attribute check fired on at
	// least one attempt of the question, else 0 (present whenever the
	// check runs), so that the report's validation table shows its
	// trigger rate beside validation.l2.
	CounterAttributes = runners.ValidationPrefix + "l2.attributes"
	// CounterDepTerminals counts tables the dependency analysis added to
	// T_req beyond the decomposition's terminal list.
	CounterDepTerminals = "terminals.from_dependencies"
)

// finishedBeforeCut reports whether sql, extracted from an answer cut at
// the token limit, was complete before the cut: a closing fence follows it.
func finishedBeforeCut(answer, sql string) bool {
	i := strings.LastIndex(answer, sql)
	if i < 0 {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(answer[i+len(sql):], " \t\r\n;"), "```")
}

func first(resp *llm.Response) string {
	if resp == nil || len(resp.Choices) == 0 {
		return ""
	}
	return resp.Choices[0]
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// score is a candidate's validation score: 1 when it passes, 0 when it
// does not execute, else 1/(1+number of violations).
func score(a attempt, mode string) float64 {
	switch {
	case mode == ValNone:
		return 1
	case a.passed():
		return 1
	case a.report.ExecErr != "":
		return 0
	}
	return 1 / float64(1+len(a.report.Violations))
}

// pick returns the final attempt: the first that passes; else the
// executing attempt with the fewest violations (the later one on ties, as
// it saw more feedback); else the last attempt with SQL; else the last.
// A query that executes is never replaced by one that does not.
func pick(as []attempt) int {
	best := -1
	for i, a := range as {
		if a.passed() {
			return i
		}
		if a.report.ExecErr != "" || a.sql == "" {
			continue
		}
		if best < 0 || len(a.report.Violations) <= len(as[best].report.Violations) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].sql != "" {
			return i
		}
	}
	return len(as) - 1
}

// navigate runs Stage 2 for the terminals: the scaffold of the configured
// path algorithm; with the graph module removed, the terminals plus the
// declared FKs among them; nil without navigation.
func (r *Runner) navigate(g *SchemaGraph, s *datasets.Schema, terms []string) *Scaffold {
	if !r.navigation {
		return nil
	}
	sc := &Scaffold{Terminals: slices.Clone(terms), Algorithm: r.alg, Navigated: true}
	if !r.graphModule {
		sc.Tables = slices.Clone(terms)
		sc.Algorithm = "none (graph module removed)"
		for _, fk := range directFKs(s, terms) {
			sc.Edges = append(sc.Edges, Edge{A: fk.FromTable, ColA: fk.FromColumn, B: fk.ToTable, ColB: fk.ToColumn, FK: true})
		}
		return sc
	}
	var ids []int
	for _, t := range terms {
		if id, ok := g.ID(t); ok {
			ids = append(ids, id)
		}
	}
	tree, err := g.W.Solve(r.alg, ids)
	if err != nil { // cannot happen: ids come from the graph and alg was validated
		sc.Tables = slices.Clone(terms)
		return sc
	}
	for _, n := range tree.Nodes {
		sc.Tables = append(sc.Tables, g.Tables[n])
	}
	for _, e := range tree.Edges {
		if ed, ok := g.Edge(e.U, e.V); ok {
			sc.Edges = append(sc.Edges, ed)
		}
	}
	for _, d := range tree.Disconnected {
		sc.Disconnected = append(sc.Disconnected, g.Tables[d[0]]+" / "+g.Tables[d[1]])
	}
	sc.Cost = tree.Cost
	return sc
}

// directFKs lists the declared foreign keys between tables of the set.
func directFKs(s *datasets.Schema, tables []string) []datasets.ForeignKey {
	in := func(t string) bool {
		return slices.ContainsFunc(tables, func(x string) bool { return strings.EqualFold(x, t) })
	}
	var out []datasets.ForeignKey
	for _, fk := range s.ForeignKeys {
		if in(fk.FromTable) && in(fk.ToTable) {
			out = append(out, fk)
		}
	}
	return out
}

// updateTerminals turns a level-2/3 failure into the next terminal set
// (Algorithm 2, UpdateTerminals): tables the query needed outside the
// scaffold (Report.Outside, in either level-2 direction) and tables of an
// aggregated attribute the query missed are added; a terminal the query
// left out twice in a row is dropped (the decomposition over-identified
// it). missing carries the terminals missing in the previous attempt.
func updateTerminals(terms []string, rep Report, missing map[string]bool) ([]string, string) {
	set := map[string]string{}
	for _, t := range terms {
		set[strings.ToLower(t)] = t
	}
	var notes []string
	nowMissing := map[string]bool{}
	add := func(tables []string) {
		for _, t := range tables {
			if _, ok := set[strings.ToLower(t)]; !ok {
				set[strings.ToLower(t)] = t
				notes = append(notes, "+"+t)
			}
		}
	}
	add(rep.Outside)
	for _, v := range rep.Violations {
		switch v.Check {
		case "aggregate-mismatch":
			add(v.Tables)
		case "terminal-missing":
			for _, t := range v.Tables {
				k := strings.ToLower(t)
				nowMissing[k] = true
				if missing[k] && len(set) > 1 {
					delete(set, k)
					notes = append(notes, "-"+t)
				}
			}
		}
	}
	clear(missing)
	for k := range nowMissing {
		missing[k] = true
	}
	out := make([]string, 0, len(set))
	for _, t := range set {
		out = append(out, t)
	}
	slices.Sort(out)
	if len(notes) == 0 {
		return out, "unchanged (feedback only)"
	}
	return out, strings.Join(notes, " ")
}
