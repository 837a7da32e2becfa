package reactdsl

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// DSLReference is DSL.md, the DSL documentation the model reads.
//
//go:embed DSL.md
var DSLReference string

// Settings of the incremental ablation (paper Table 4).
const (
	SettingBaseline   = "baseline"    // one raw-SQL call
	SettingIterateSQL = "iterate-sql" // ReAct loop, raw SQL as the action
	SettingIterateDSL = "iterate-dsl" // ReAct loop over the DSL (the full method)
)

// Defaults. DefaultMaxTurns is the paper's loop bound as METHODS.md fixes it
// (ReAct-DSL: "Max turns configurable (default 8)").
const (
	DefaultMaxTurns = 8
	DefaultObsRows  = 5
	// DefaultMaxCallsPerTurn bounds the DSL calls run from one turn
	// (t2sbench's choice; the paper batches calls without a stated bound):
	// a model that emits hundreds of probes in one answer would otherwise
	// flood the database and its own context.
	DefaultMaxCallsPerTurn = 32
	// Request kinds (llm.Request.Responder) of the DSL and raw-SQL turns.
	ResponderTurn    = "reactdsl/turn"
	ResponderSQLTurn = "reactdsl/sqlturn"
	// DefaultMaxTokens bounds each turn's completion, reasoning tokens
	// included (t2sbench's choice; the paper does not say): reasoning
	// models (DeepSeek-R1, Qwen3) often think for several thousand tokens
	// before a turn's calls, and a turn cut at the limit never ends the
	// episode.
	DefaultMaxTokens = 8192
)

// Trace counters beside the per-turn ones (turns, dsl_calls, probes,
// dsl_errors, dsl_error.<Code>, exec_errors, answered, combined_answers,
// calls_dropped).
const (
	// CounterFallback is 1 when the episode ended without a final answer
	// and the answer-shaping pass returned the best SQL so far.
	CounterFallback = "shaped_fallback"
	// CounterModelErrors counts permanent model errors (an HTTP 400 such as
	// a context-length error) that ended the episode.
	CounterModelErrors = "model_errors"
	// CounterRawSQL counts raw SQL queries a model sent in the DSL setting,
	// run as probes.
	CounterRawSQL = "raw_sql_probes"
	// CounterNoSQL counts raw-SQL turns that held no SQL.
	CounterNoSQL = "no_sql"
)

func init() {
	runners.RegisterInfo(runners.Info{
		Name:      "react-dsl",
		New:       func(r *runners.Reader) (runners.Runner, error) { return build(r) },
		Paper:     "ReAct-SQL (a tool-using agent over a schema DSL)",
		Roles:     []runners.RoleInfo{{Role: runners.RoleReason, Does: "every turn"}},
		Ablations: "setting: baseline | iterate-sql | iterate-dsl (paper Tables 3-4)",
		Varied:    []string{"max_turns"},
	})
}

// Runner is the ReAct-DSL runner.
type Runner struct {
	setting     string
	maxTurns    int
	temperature float64
	obsRows     int
	maxCalls    int
	maxTokens   int
	evidence    bool
}

// New builds the runner from spec parameters, for Go callers; build reads
// them, and `t2sbench help runners` lists each with its default and valid
// values: setting (baseline, iterate-sql, iterate-dsl), max_turns,
// temperature, obs_rows (rows shown per observation), max_calls_per_turn
// (DSL calls run from one turn), max_tokens (completion tokens per turn,
// reasoning included), evidence (show the benchmark evidence).
func New(p runners.Params) (*Runner, error) { return build(runners.NewReader(p)) }

// build reads every parameter through r, with its default: the runner's
// factory (runners.Factory).
func build(r *runners.Reader) (*Runner, error) {
	rn := &Runner{
		setting:     r.String("setting", SettingIterateDSL, SettingBaseline, SettingIterateSQL, SettingIterateDSL),
		maxTurns:    r.Int("max_turns", DefaultMaxTurns, 1, 50),
		temperature: r.Float("temperature", 0, 0, 2),
		obsRows:     r.Int("obs_rows", DefaultObsRows, 1, 50),
		maxCalls:    r.Int("max_calls_per_turn", DefaultMaxCallsPerTurn, 1, 1000),
		maxTokens:   r.Int("max_tokens", DefaultMaxTokens, 16, 131072),
		evidence:    r.Bool("evidence", true),
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("react-dsl: %w", err)
	}
	return rn, nil
}

// Name returns "react-dsl".
func (r *Runner) Name() string { return "react-dsl" }

// Setting returns the ablation setting.
func (r *Runner) Setting() string { return r.setting }

// Run answers one question.
func (r *Runner) Run(ctx context.Context, t runners.Task) (runners.Result, error) {
	start := time.Now()
	if t.Budget.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.Budget.Timeout)
		defer cancel()
	}
	m := runners.NewMeter(t.LLM)
	res := runners.Result{}
	var err error
	switch r.setting {
	case SettingBaseline:
		err = r.baseline(ctx, t, m, &res)
	case SettingIterateSQL:
		err = r.iterateSQL(ctx, t, m, &res)
	default:
		err = r.iterateDSL(ctx, t, m, &res)
	}
	res.Usage = m.Usage()
	res.Wall = time.Since(start)
	if res.SQL != "" {
		res.Candidates = []runners.Candidate{{SQL: res.SQL, Score: 1}}
	}
	res.Trace.Count(runners.CounterTurns, 0) // always present, even when no turn ran
	return res, err
}

func (r *Runner) prompt(ctx context.Context, t runners.Task) (string, *datasets.Schema, string, error) {
	var b strings.Builder
	dialect := "sqlite"
	var schema *datasets.Schema
	if t.DB != nil {
		dialect = t.DB.Dialect()
		s, err := t.DB.Schema(ctx)
		if err != nil {
			return "", nil, "", fmt.Errorf("react-dsl: schema of %s: %w", t.Example.DBID, err)
		}
		schema = s
		name := "SQLite"
		if dialect == "mysql" {
			name = "MySQL"
		}
		fmt.Fprintf(&b, "Database schema (%s):\n%s\n", name, datasets.SchemaDDL(s))
	}
	fmt.Fprintf(&b, "Question: %s\n", t.Example.Question)
	if r.evidence && strings.TrimSpace(t.Example.Evidence) != "" {
		fmt.Fprintf(&b, "Evidence: %s\n", t.Example.Evidence)
	}
	return b.String(), schema, dialect, nil
}

func (r *Runner) budgetLeft(t runners.Task, m *runners.Meter) bool {
	return t.Budget.MaxCalls <= 0 || m.Calls() < t.Budget.MaxCalls
}

// reply is one model turn: the answer text (what parsers read and what
// goes back into the conversation), whether it was cut at the token limit,
// and what its trace step keeps besides (runners.SampleInfo: its reasoning,
// kept in the trace only, and its finish reason).
type reply struct {
	text  string
	isCut bool
	info  map[string]any
}

// cut reports whether the answer was cut at the token limit.
func (p reply) cut() bool { return p.isCut }

// step is the trace step of a turn: the answer, and its reasoning and
// finish reason when the backend gave them.
func (p reply) step(action string, turn int) runners.Step {
	info := map[string]any{"turn": turn}
	maps.Copy(info, p.info)
	return runners.Step{Action: action, Role: runners.RoleReason, Output: p.text, Info: info}
}

// complete sends one request with the task's seed (so that a backend that
// honours seeds answers the same run the same way) and returns the first
// choice (empty when the backend sent none). A cut answer is counted
// (runners.CounterCut(runners.RoleReason)).
func (r *Runner) complete(ctx context.Context, m *runners.Meter, res *runners.Result, seed int64, msgs []llm.Message, kind llm.AnswerKind, responder string) (reply, error) {
	resp, err := m.Complete(ctx, llm.Request{
		Seed:        &seed,
		Role:        runners.RoleReason,
		Messages:    append([]llm.Message(nil), msgs...),
		Temperature: r.temperature,
		MaxTokens:   r.maxTokens,
		Answer:      kind,
		Responder:   responder,
	})
	if err != nil {
		return reply{}, fmt.Errorf("react-dsl: model call: %w", err)
	}
	if len(resp.Choices) == 0 {
		return reply{}, nil
	}
	p := reply{text: resp.Choices[0], isCut: resp.Cut(0), info: runners.SampleInfo(resp, 0)}
	if p.isCut {
		res.Trace.Count(runners.CounterCut(runners.RoleReason), 1)
	}
	return p, nil
}

// NoSQLNote is Result.Note when a model answer holds no SQL.
const NoSQLNote = "no SQL in response"

// cutNote is added to Result.Note when the answer was cut at the token
// limit.
const cutNote = "answer cut at max_tokens (finish_reason length)"

// finishedBeforeCut reports whether sql, extracted from an answer cut at
// the token limit, was complete before the cut: a closing fence follows it.
func finishedBeforeCut(answer, sql string) bool {
	i := strings.LastIndex(answer, sql)
	if i < 0 {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(answer[i+len(sql):], " \t\r\n;"), "```")
}

const baselineSystem = "You are an expert SQL assistant. Answer with one SQL query for the given database."

func (r *Runner) baseline(ctx context.Context, t runners.Task, m *runners.Meter, res *runners.Result) error {
	p, _, dialect, err := r.prompt(ctx, t)
	if err != nil {
		return err
	}
	p += fmt.Sprintf("\nAnswer with only the %s query in a ```sql block.\n", dialectName(dialect))
	rep, err := r.complete(ctx, m, res, t.Seed, []llm.Message{{Role: "system", Content: baselineSystem}, {Role: "user", Content: p}}, llm.AnswerSQL, "")
	if err != nil {
		if runners.ModelRejected(err) {
			res.Trace.Count(CounterModelErrors, 1)
			res.Note = "model error: " + err.Error()
			return nil
		}
		return err
	}
	res.Trace.Count(runners.CounterTurns, 1)
	res.Trace.Add(rep.step("generate", 1))
	found := sqltext.ExtractSQL(rep.text)
	sql, ok := found.SQL, found.Found()
	switch {
	case !ok && rep.cut():
		res.Note = cutNote + "; " + NoSQLNote
	case !ok:
		res.Note = NoSQLNote
		res.Trace.ParseFailed(runners.RoleReason, "generate")
	case rep.cut() && !finishedBeforeCut(rep.text, sql):
		res.Note = cutNote + "; its SQL was unfinished"
	default:
		res.SQL = sql
		if rep.cut() {
			res.Note = cutNote + "; its SQL block was complete and is used"
		}
	}
	res.Extraction = found.ReasonFor(res.SQL)
	return nil
}

func dialectName(d string) string {
	if d == "mysql" {
		return "MySQL"
	}
	return "SQLite"
}

const iterateSQLSystem = `You are an expert SQL assistant working in a loop with a database.
Each turn, think briefly, then write one query in a ` + "```sql" + ` block; you will see its result (row count and first rows) or its error.
Use queries to explore values and check your answer. When you are sure, write a line starting with FINAL ANSWER followed by the final query in a ` + "```sql" + ` block.`

// finalRe finds a FINAL ANSWER marker at the start of a line (after list,
// heading, quote or bold markup), followed by a colon or dash, the end of
// the line, a fence or the query itself ("FINAL ANSWER", "**Final
// Answer:**", "## Final answer", "3. FINAL ANSWER: SELECT ..."), but not a
// sentence that starts with the words ("Final answer will come after I
// check ...") nor the words mid-sentence ("before the final answer, let me
// check ...").
var finalRe = regexp.MustCompile("(?im)^[ \t>#*_\\-\\d.)]*final[ \t]+answer[ \t*_]*(?:[:：\\-–—]|\r?$|`|(?:select|with)\\b)")

// finalSQL returns the query of an explicit final answer: the SQL after the
// last FINAL ANSWER marker that has SQL after it. ok is false when there is
// no marker or no SQL after it.
func finalSQL(text string) (string, bool) {
	locs := finalRe.FindAllStringIndex(text, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		at := locs[i][0]
		k := strings.Index(strings.ToLower(text[at:]), "answer") // the match holds it
		if sql, ok := sqltext.Extract(text[at+k+len("answer"):]); ok {
			return sql, true
		}
	}
	return "", false
}

// best remembers the SQL a loop falls back to when it ends without an
// explicit final answer: the last query that executed with at least one
// row, else the last that executed, else the last one tried.
type best struct {
	rows, ran, tried string
	// found remembers how each raw SQL of the loop was found in its
	// response.
	found runners.Extractions
}

func (b *best) note(sql string, err error, rs *datasets.ResultSet) {
	b.tried = sql
	if err == nil {
		b.ran = sql
		if rs != nil && len(rs.Rows) > 0 {
			b.rows = sql
		}
	}
}

// shape sets res.SQL to the fallback and explains it in res.Note and the
// trace (CounterFallback); why says how the loop ended. res.Extraction is
// that of the response the fallback SQL was first read from (empty for a
// query compiled from DSL calls).
func (b *best) shape(res *runners.Result, why string) {
	defer func() { res.Extraction = b.found.Of(res.SQL) }()
	switch {
	case b.rows != "":
		res.SQL = b.rows
		res.Note = why + "; returned the last query that executed with rows"
	case b.ran != "":
		res.SQL = b.ran
		res.Note = why + "; returned the last query that executed (it had no rows)"
	case b.tried != "":
		res.SQL = b.tried
		res.Note = why + "; returned the last query tried (it did not execute)"
	default:
		res.Note = why + "; " + NoSQLNote
		return
	}
	res.Trace.Count(CounterFallback, 1)
	res.Trace.Data = map[string]any{"fallback": res.Note}
}

// turn asks the model for turn's reply and counts the turn. When the call
// budget or a permanent model error ends the episode instead, it returns
// why in stop.
func (r *Runner) turn(ctx context.Context, t runners.Task, m *runners.Meter, res *runners.Result, msgs []llm.Message, turn int, kind llm.AnswerKind, responder string) (rep reply, stop string, err error) {
	if !r.budgetLeft(t, m) {
		return reply{}, fmt.Sprintf("the call budget ended the episode at turn %d", turn), nil
	}
	rep, err = r.complete(ctx, m, res, t.Seed, msgs, kind, responder)
	if err != nil {
		if runners.ModelRejected(err) {
			return reply{}, modelStop(res, turn, err), nil
		}
		return reply{}, "", err
	}
	res.Trace.Count(runners.CounterTurns, 1)
	return rep, "", nil
}

// modelStop records a permanent model error that ends the episode.
func modelStop(res *runners.Result, turn int, err error) string {
	res.Trace.Count(CounterModelErrors, 1)
	res.Trace.Add(runners.Step{Action: "model_error", Role: runners.RoleReason, Info: map[string]any{"turn": turn, "error": err.Error()}})
	return fmt.Sprintf("a permanent model error ended the episode at turn %d (%v)", turn, err)
}

func (r *Runner) iterateSQL(ctx context.Context, t runners.Task, m *runners.Meter, res *runners.Result) error {
	p, _, dialect, err := r.prompt(ctx, t)
	if err != nil {
		return err
	}
	p += fmt.Sprintf("\nWrite %s queries. You have at most %d turns.\n", dialectName(dialect), r.maxTurns)
	msgs := []llm.Message{{Role: "system", Content: iterateSQLSystem}, {Role: "user", Content: p}}
	var fb best
	why := fmt.Sprintf("no FINAL ANSWER within %d turns", r.maxTurns)
	for turn := 1; turn <= r.maxTurns; turn++ {
		rep, stop, err := r.turn(ctx, t, m, res, msgs, turn, llm.AnswerSQL, ResponderSQLTurn)
		if err != nil {
			return err
		}
		if stop != "" {
			why = stop
			break
		}
		step := rep.step("turn", turn)
		fsql, final := finalSQL(rep.text)
		if final && !rep.cut() {
			res.SQL = fsql
			res.Extraction = sqltext.ReasonFinalMarker
			res.Trace.Count("answered", 1)
			step.Info["final"] = true
			res.Trace.Add(step)
			return nil
		}
		sql, ok := fsql, final
		if final {
			fb.found.Note(sqltext.Extraction{SQL: fsql, Reason: sqltext.ReasonFinalMarker})
		} else {
			sql, ok = fb.found.Extract(rep.text)
		}
		var obs string
		switch {
		case !ok:
			res.Trace.Count(CounterNoSQL, 1)
			if !rep.cut() {
				res.Trace.ParseFailed(runners.RoleReason, "sql_turn")
			}
			obs = "No SQL found. Write a query in a ```sql block, or a line FINAL ANSWER followed by the final query."
		case t.DB == nil:
			obs = "Result: error: no database available"
		default:
			rs, err := t.DB.Execute(ctx, sql)
			if err != nil && ctx.Err() != nil {
				return fmt.Errorf("react-dsl: %w", ctx.Err())
			}
			fb.note(sql, err, rs)
			if err != nil {
				res.Trace.Count("exec_errors", 1)
				obs = "Result: error: " + err.Error()
			} else {
				obs = "Result: " + formatRows(rs, r.obsRows) + "\nIf this answers the question, write a line FINAL ANSWER followed by the query."
			}
		}
		if rep.cut() {
			obs = "Your answer was cut at the token limit; an answer that is cut never counts as final. Write shorter turns.\n" + obs
		}
		step.Info["observation"] = obs
		res.Trace.Add(step)
		msgs = append(msgs, llm.Message{Role: "assistant", Content: rep.text},
			llm.Message{Role: "user", Content: obs + fmt.Sprintf("\n(turns left: %d)", r.maxTurns-turn)})
	}
	fb.shape(res, why)
	return nil
}

func dslSystem() string {
	return "You are an expert data analyst. You answer questions about a database by building relations with the DSL below, " +
		"one small step at a time: look at values with the probes, check intermediate results with execute, and finish with answer(rN).\n\n" +
		DSLReference
}

func (r *Runner) iterateDSL(ctx context.Context, t runners.Task, m *runners.Meter, res *runners.Result) error {
	p, schema, dialect, err := r.prompt(ctx, t)
	if err != nil {
		return err
	}
	p += fmt.Sprintf("\nBuild the answer with DSL calls in a ```dsl block. You have at most %d turns.\n", r.maxTurns)
	msgs := []llm.Message{{Role: "system", Content: dslSystem()}, {Role: "user", Content: p}}
	sess := NewSession(schema, dialect)
	var fb best
	var lastRel *Relation
	why := fmt.Sprintf("no answer(...) within %d turns", r.maxTurns)
	for turn := 1; turn <= r.maxTurns; turn++ {
		rep, stop, err := r.turn(ctx, t, m, res, msgs, turn, llm.AnswerDSL, ResponderTurn)
		if err != nil {
			return err
		}
		if stop != "" {
			why = stop
			break
		}
		step := rep.step("turn", turn)
		calls, perrs := ParseCalls(rep.text)
		var obs []string
		if rep.cut() {
			obs = append(obs, "Your answer was cut at the token limit: its calls ran, but an answer(...) in a cut turn does not end the task. Send shorter turns.")
		}
		for _, e := range perrs {
			countErr(res, e)
			obs = append(obs, e.Error())
		}
		if len(perrs) > 0 && !rep.cut() {
			res.Trace.ParseFailed(runners.RoleReason, "dsl_turn")
		}
		if len(calls) == 0 && len(perrs) == 0 {
			if sql, ok := fb.found.Extract(rep.text); ok {
				// Raw SQL is not an action of the DSL, but a model that
				// writes it anyway sees its result, as a probe; only
				// answer(rN) ends the task.
				line, err := r.rawProbe(ctx, t, sql, &fb)
				if err != nil {
					return err
				}
				res.Trace.Count(CounterRawSQL, 1)
				obs = append(obs, line, "Raw SQL is only a probe here: build the answer with DSL calls and finish with answer(rN).")
			} else {
				if !rep.cut() {
					res.Trace.ParseFailed(runners.RoleReason, "dsl_turn")
				}
				obs = append(obs, "No DSL calls found. Write calls one per line in a ```dsl block; finish with answer(rN).")
			}
		}
		answered := false
		// compiled is the SQL each executed probe and the answer compiled
		// to, kept in the step for the trace viewer (Info "compiled_sql").
		var compiled []string
		if len(calls) > r.maxCalls {
			dropped := len(calls) - r.maxCalls
			res.Trace.Count("calls_dropped", float64(dropped))
			step.Info["calls_dropped"] = dropped
			calls = calls[:r.maxCalls]
			obs = append(obs, fmt.Sprintf("Only the first %d calls of a turn run; the other %d were ignored. Send fewer calls per turn.", r.maxCalls, dropped))
		}
		for _, c := range calls {
			if c.Op == "answer" && rep.cut() {
				res.Trace.Count("cut_answers_ignored", 1)
				obs = append(obs, fmt.Sprintf("line %d: answer(...) ignored: the turn was cut at the token limit; send it again.", c.Line))
				continue
			}
			out, err := sess.Apply(c)
			if err != nil {
				var e *Error
				if errors.As(err, &e) {
					countErr(res, e)
				}
				obs = append(obs, err.Error())
				continue
			}
			switch out.Kind {
			case "relation":
				res.Trace.Count("dsl_calls", 1)
				lastRel = out.Rel
				obs = append(obs, fmt.Sprintf("%s = %s -> %s", c.Target, c.Op, out.Rel.Signature()))
			case "probe":
				res.Trace.Count("probes", 1)
				compiled = append(compiled, out.SQL)
				line, ok, err := r.runProbe(ctx, t, c, out, &fb)
				if err != nil {
					return err
				}
				if !ok {
					res.Trace.Count("dsl_errors", 1)
					res.Trace.Count("dsl_error."+string(ExecutionError), 1)
				}
				obs = append(obs, line)
			case "answer":
				compiled = append(compiled, out.SQL)
				res.SQL = out.SQL
				res.Trace.Count("answered", 1)
				if len(out.Answer) > 1 {
					res.Trace.Count("combined_answers", 1)
				}
				step.Info["final"] = strings.Join(out.Answer, ",")
				answered = true
			}
			if answered {
				break
			}
		}
		observation := strings.Join(obs, "\n")
		step.Info["observation"] = observation
		step.Info["calls"] = len(calls)
		if len(compiled) > 0 {
			step.Info["compiled_sql"] = compiled
		}
		res.Trace.Add(step)
		if answered {
			return nil
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: rep.text},
			llm.Message{Role: "user", Content: observation + fmt.Sprintf("\n(turns left: %d)", r.maxTurns-turn)})
	}
	// Answer shaping: no answer(...) within the episode. The canonical
	// result is the last query that executed with rows (an execute probe or
	// a raw SQL probe), else the last that executed, else the last relation
	// built.
	if fb.tried == "" && lastRel != nil {
		fb.tried = sess.SQL(lastRel)
	}
	fb.shape(res, why)
	return nil
}

func countErr(res *runners.Result, e *Error) {
	res.Trace.Count("dsl_errors", 1)
	res.Trace.Count("dsl_error."+string(e.Code), 1)
}

// runProbe executes a probe's SQL. ok is false when the database rejected
// it; err is set only when the context ended.
func (r *Runner) runProbe(ctx context.Context, t runners.Task, c Call, out Outcome, fb *best) (string, bool, error) {
	head := fmt.Sprintf("%s(%s)", c.Op, out.Rel.Name)
	if t.DB == nil {
		return fmt.Sprintf("line %d: %s: %s", c.Line, ExecutionError, "no database available"), false, nil
	}
	rs, err := t.DB.Execute(ctx, out.SQL)
	if err != nil && ctx.Err() != nil {
		return "", false, fmt.Errorf("react-dsl: %w", ctx.Err())
	}
	if c.Op == "execute" {
		fb.note(out.SQL, err, rs)
	}
	if err != nil {
		e := &Error{Code: ExecutionError, Line: c.Line, Op: c.Op, Rel: out.Rel.Name, Pos: -1, Msg: err.Error()}
		return e.Error(), false, nil
	}
	return head + " -> " + formatRows(rs, r.obsRows), true, nil
}

// rawProbe executes SQL a model wrote instead of DSL calls and describes
// the result; err is set only when the context ended.
func (r *Runner) rawProbe(ctx context.Context, t runners.Task, sql string, fb *best) (string, error) {
	if t.DB == nil {
		return "SQL probe: error: no database available", nil
	}
	rs, err := t.DB.Execute(ctx, sql)
	if err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("react-dsl: %w", ctx.Err())
	}
	fb.note(sql, err, rs)
	if err != nil {
		return fmt.Sprintf("SQL probe: %s: %v", ExecutionError, err), nil
	}
	return "SQL probe -> " + formatRows(rs, r.obsRows), nil
}

// formatRows renders a result as "N rows" and a small table of the first n.
func formatRows(rs *datasets.ResultSet, n int) string {
	var b strings.Builder
	cnt := len(rs.Rows)
	more := ""
	if rs.Truncated {
		more = "+"
	}
	fmt.Fprintf(&b, "%d%s rows", cnt, more)
	if cnt == 1 {
		b.Reset()
		fmt.Fprintf(&b, "1 row")
	}
	if len(rs.Columns) > 0 {
		b.WriteString("\n" + strings.Join(rs.Columns, " | "))
	}
	for i, row := range rs.Rows {
		if i >= n {
			fmt.Fprintf(&b, "\n... (%d more)", cnt-n)
			break
		}
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = cell(v)
		}
		b.WriteString("\n" + strings.Join(parts, " | "))
	}
	return b.String()
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return fmt.Sprintf("<blob %d bytes>", len(x))
	case string:
		if r := []rune(x); len(r) > 80 {
			return string(r[:77]) + "..."
		}
		return x
	}
	return fmt.Sprint(v)
}
