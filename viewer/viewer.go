package viewer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// Viewer holds one or more run directories open for viewing.
type Viewer struct {
	opt       Options
	runs      []runSource
	benches   map[string]*benchSource
	trials    []trialRef
	questions []questionRef
	index     *Index
	// red hides the runs' credentials (and what looks like an API key)
	// in everything served: stored answers keep what the model sent.
	red *llm.Redactor
	// batchItems, when above 0, replaces maxBatchItems (tests).
	batchItems int
}

type runSource struct {
	// dir is the run directory as an absolute path (as given when it has
	// none), for the export commands of truncated texts.
	dir    string
	data   *runstore.RunData
	reader *runstore.ItemReader
	// cache is the run's model cache, read-only (nil when there is none:
	// cacheErr says why).
	cache     *llm.CacheReader
	cachePath string
	cacheErr  string
}

// Open reads the overview of run directories dirs: verdicts, statuses and
// the call log's totals (no trace), and opens each benchmark once through
// opt.Benchmark. Close releases the stores and benchmarks.
func Open(ctx context.Context, dirs []string, opt Options) (*Viewer, error) {
	if len(dirs) == 0 {
		return nil, errors.New("viewer: no run directory")
	}
	if opt.PreviewRows <= 0 {
		opt.PreviewRows = DefaultPreviewRows
	}
	if opt.PreviewTimeout <= 0 {
		opt.PreviewTimeout = DefaultPreviewTimeout
	}
	v := &Viewer{opt: opt, benches: map[string]*benchSource{}}
	var runs []*runstore.RunData
	var secrets []string
	for _, d := range dirs {
		// The run's items are streamed one trial at a time into the
		// index (buildIndex); the store stays open until then.
		r, err := runstore.ReadRunStream(d, runstore.ReadOptions{})
		if err == nil {
			if err = r.ReadCallLog(); err != nil {
				r.Close()
			}
		}
		if err != nil {
			v.Close()
			return nil, fmt.Errorf("viewer: %w", err)
		}
		rd, err := runstore.OpenItemReader(d)
		if err != nil {
			r.Close()
			v.Close()
			return nil, fmt.Errorf("viewer: %w", err)
		}
		secrets = append(secrets, r.Secrets()...)
		cache, cpath, cerr := runCache(r, opt.ModelCache)
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		v.runs = append(v.runs, runSource{dir: abs, data: r, reader: rd, cache: cache, cachePath: cpath, cacheErr: cerr})
		runs = append(runs, r)
		for _, t := range r.Trials {
			bk := t.Benchmark.Key()
			if _, ok := v.benches[bk]; ok {
				continue
			}
			src := &benchSource{}
			v.benches[bk] = src
			if opt.Benchmark == nil {
				src.err = errors.New("no benchmark loader given")
				continue
			}
			b, err := opt.Benchmark(t.Benchmark)
			if err != nil {
				src.err = err
				continue
			}
			src.b = b
			src.ex = make(map[string]*datasets.Example, len(b.Examples))
			for i := range b.Examples {
				src.ex[b.Examples[i].ID] = &b.Examples[i]
			}
		}
	}
	v.red = llm.NewDisplayRedactor(secrets...)
	err := v.buildIndex(ctx, runs)
	// The items' verdicts were needed for the index only: the question
	// pages read items through the runs' item readers.
	for _, r := range runs {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("viewer: %w", cerr)
		}
	}
	if err != nil {
		v.Close()
		return nil, err
	}
	v.capIndex()
	v.red.Value(v.index)
	return v, nil
}

// Close closes the stores and the benchmarks' engines.
func (v *Viewer) Close() error {
	var errs []error
	for _, r := range v.runs {
		errs = append(errs, r.data.Close())
		if r.reader != nil {
			errs = append(errs, r.reader.Close())
		}
		if r.cache != nil {
			errs = append(errs, r.cache.Close())
		}
	}
	for _, b := range v.benches {
		if b.b != nil && b.b.Engine != nil {
			errs = append(errs, b.b.Engine.Close())
		}
	}
	return errors.Join(errs...)
}

// Index returns the overview data (data/index.js).
func (v *Viewer) Index() *Index { return v.index }

// Questions returns the number of questions; question files are numbered
// 0 .. Questions()-1 in the order of Index.Questions.
func (v *Viewer) Questions() int { return len(v.questions) }

// Question is the content of data/q/N.js: one question with the gold and
// every trial's item, trace and calls.
type Question struct {
	N          int      `json:"n"`
	Bench      string   `json:"bench"`
	ID         string   `json:"id"`
	DB         string   `json:"db,omitempty"`
	Question   string   `json:"question,omitempty"`
	Evidence   string   `json:"evidence,omitempty"`
	Difficulty string   `json:"difficulty,omitempty"`
	Types      []string `json:"types,omitempty"`
	Gold       *SQLView `json:"gold,omitempty"`
	// Schema is the database's tables and foreign keys, when a trial's
	// trace has a Steiner scaffold to draw on it.
	Schema *Schema     `json:"schema,omitempty"`
	Items  []QuestItem `json:"items"`
	// Texts are the distinct paragraphs of the calls' messages
	// (MessageView.Parts indexes them).
	Texts []string `json:"texts,omitempty"`
}

// SQLView is a SQL text with its result preview.
type SQLView struct {
	SQL     string   `json:"sql"`
	Preview *Preview `json:"preview,omitempty"`
}

// Preview is the first rows of a query's result, or why it has none. It
// holds no timing, so that two static copies of one run are identical.
type Preview struct {
	Columns   []string `json:"columns,omitempty"`
	Rows      [][]any  `json:"rows,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// Schema is a database's tables and foreign keys.
type Schema struct {
	Tables []SchemaTable `json:"tables"`
	FKs    [][4]string   `json:"fks,omitempty"`
}

// SchemaTable is one table and its column names.
type SchemaTable struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
}

// QuestItem is one trial's item of a question.
type QuestItem struct {
	// T is the trial's position in Index.Trials.
	T          int                          `json:"t"`
	Status     string                       `json:"status"`
	ErrorClass string                       `json:"error_class,omitempty"`
	Error      string                       `json:"error,omitempty"`
	Attempts   int                          `json:"attempts"`
	WallMS     float64                      `json:"wall_ms"`
	Verdict    *runstore.Verdict            `json:"verdict,omitempty"`
	SQL        string                       `json:"sql"`
	Note       string                       `json:"note,omitempty"`
	Preview    *Preview                     `json:"preview,omitempty"`
	Candidates []runners.Candidate          `json:"candidates,omitempty"`
	Trace      *runners.Trace               `json:"trace,omitempty"`
	Usage      map[string]runners.RoleUsage `json:"usage,omitempty"`
	Calls      []CallView                   `json:"calls,omitempty"`
	// sqlLen is the stored SQL's length (SQL may be capped): a SQL text
	// over the cap is not executed for its preview, so that building a
	// question stays proportional to what it shows.
	sqlLen int
}

// Question builds question n (reading its items one at a time and
// executing the previews). calls, when not nil, holds the question's call
// log by run and trial id (the static writer streams the log once);
// otherwise it is read from the stores. Every text of it (SQL, traces,
// calls' prompts and answers, errors, previews) has the runs' credentials
// hidden (runstore.RunData.Redactor): the stores keep answers as the model
// sent them.
func (v *Viewer) Question(ctx context.Context, n int, calls []map[string][]runstore.Call) (*Question, error) {
	q, err := v.question(ctx, n, calls)
	if err == nil {
		v.red.Value(q)
	}
	return q, err
}

func (v *Viewer) question(ctx context.Context, n int, calls []map[string][]runstore.Call) (*Question, error) {
	if n < 0 || n >= len(v.questions) {
		return nil, fmt.Errorf("viewer: question %d: %w", n, errNoQuestion)
	}
	ref := v.questions[n]
	row := v.index.Questions[n]
	q := &Question{N: n, Bench: ref.bench, ID: ref.id, DB: row.DB, Question: row.Question, Difficulty: row.Difficulty, Types: row.Types}
	src := v.benches[ref.bench]
	var ex *datasets.Example
	if src != nil && src.ex != nil {
		ex = src.ex[ref.id]
	}
	// The benchmark's texts are capped as the store's are, with no
	// command: the benchmark's files hold them whole. The question's text
	// comes from the index, which capIndex capped already: capped again,
	// its marker would give the capped length as the whole.
	bc := capper{max: MaxText, red: v.red}
	if ex != nil {
		q.Evidence = bc.text(ex.Evidence)
		if ex.GoldSQL != "" {
			q.Gold = &SQLView{SQL: bc.text(ex.GoldSQL)}
		}
	}
	if calls == nil {
		calls = make([]map[string][]runstore.Call, len(v.runs))
		for ri, r := range v.runs {
			c, err := r.reader.QuestionCalls(ctx, ref.id)
			if err != nil {
				return nil, err
			}
			calls[ri] = c
		}
	}
	needSchema := false
	var tx texts
	for ti, tr := range v.trials {
		if tr.bench != ref.bench {
			continue
		}
		it, ok, err := v.runs[tr.run].reader.Item(ctx, tr.id, ref.id)
		if err != nil {
			return nil, err
		}
		qi := QuestItem{T: ti, Status: "pending"}
		cp := capper{max: MaxText, red: v.red, cmd: ExportCommand(v.runs[tr.run].dir, tr.id, ref.id)}
		if calls[tr.run] != nil {
			cs := slices.Clone(calls[tr.run][tr.id])
			cp.calls(cs)
			if qi.Calls, err = v.callViews(ctx, tr.run, cs, &tx); err != nil {
				return nil, err
			}
		}
		if ok {
			qi.Status, qi.ErrorClass, qi.Error, qi.Attempts, qi.WallMS, qi.Verdict = it.Status, it.ErrorClass, it.Error, it.Attempts, it.WallMS, it.Verdict
			if res := it.Result; res != nil {
				qi.SQL, qi.Note, qi.Candidates, qi.Usage = res.SQL, res.Note, res.Candidates, res.Usage
				tr := res.Trace
				qi.Trace = &tr
				if _, ok := tr.Data["scaffold"]; ok {
					needSchema = true
				}
			}
			cp.result(&qi)
		}
		q.Items = append(q.Items, qi)
	}
	q.Texts = tx.list
	if v.opt.NoPreviews || src == nil || src.b == nil || src.b.Engine == nil || q.DB == "" {
		return q, nil
	}
	db, err := src.b.Engine.Open(ctx, q.DB)
	if err != nil {
		msg := "database " + q.DB + " unavailable: " + err.Error()
		if q.Gold != nil {
			q.Gold.Preview = &Preview{Error: msg}
		}
		return q, nil
	}
	// Engines cache and own their handles: db is not closed here.
	seen := map[string]*Preview{}
	preview := func(sql string) *Preview {
		if strings.TrimSpace(sql) == "" {
			return nil
		}
		if p, ok := seen[sql]; ok {
			return p
		}
		p := v.preview(ctx, db, sql)
		seen[sql] = p
		return p
	}
	if q.Gold != nil {
		q.Gold.Preview = preview(q.Gold.SQL)
	}
	for i := range q.Items {
		if n := q.Items[i].sqlLen; n > MaxText {
			q.Items[i].Preview = &Preview{Error: fmt.Sprintf("not executed for a preview: the SQL is %d bytes, over the viewer's cap of %d (the run's verdict stands)", n, MaxText)}
			continue
		}
		q.Items[i].Preview = preview(q.Items[i].SQL)
	}
	if needSchema {
		if s, err := db.Schema(ctx); err == nil {
			q.Schema = schemaOf(s)
		}
	}
	return q, nil
}

func (v *Viewer) preview(ctx context.Context, db datasets.Database, sql string) *Preview {
	ctx, cancel := context.WithTimeout(ctx, v.opt.PreviewTimeout)
	defer cancel()
	rs, err := db.Execute(ctx, sql)
	p := &Preview{}
	if err != nil {
		p.Error = capper{max: MaxText, red: v.red}.text(err.Error())
		return p
	}
	// A column's name is the text of its expression when it has no
	// alias: a SQL text selecting a long literal names a column by it.
	for _, c := range rs.Columns {
		p.Columns = append(p.Columns, capper{max: maxCell, red: v.red}.text(c))
	}
	p.Truncated = rs.Truncated || len(rs.Rows) > v.opt.PreviewRows
	rows := rs.Rows
	if len(rows) > v.opt.PreviewRows {
		rows = rows[:v.opt.PreviewRows]
	}
	for _, r := range rows {
		out := make([]any, len(r))
		for i, x := range r {
			out[i] = cellValue(x)
		}
		p.Rows = append(p.Rows, out)
	}
	return p
}

// maxCell caps a preview cell's text.
const maxCell = 300

// cellValue renders a result value for JSON: numbers and NULL as they
// are (NaN and infinities as text), text capped at maxCell bytes (on a rune boundary), BLOBs as their
// length.
func cellValue(x any) any {
	switch y := x.(type) {
	case float64:
		// JSON has no NaN or infinity (SQLite stores 1e999 as Inf).
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return strconv.FormatFloat(y, 'g', -1, 64)
		}
		return y
	case []byte:
		return fmt.Sprintf("<blob %d bytes>", len(y))
	case string:
		if len(y) > maxCell {
			return cut(y, maxCell) + "…"
		}
		return y
	}
	return x
}

func schemaOf(s *datasets.Schema) *Schema {
	out := &Schema{}
	for _, t := range s.Tables {
		st := SchemaTable{Name: t.Name}
		for _, c := range t.Columns {
			st.Columns = append(st.Columns, c.Name)
		}
		out.Tables = append(out.Tables, st)
	}
	for _, fk := range s.ForeignKeys {
		out.FKs = append(out.FKs, [4]string{fk.FromTable, fk.FromColumn, fk.ToTable, fk.ToColumn})
	}
	sort.Slice(out.FKs, func(i, j int) bool {
		return strings.Join(out.FKs[i][:], "\x00") < strings.Join(out.FKs[j][:], "\x00")
	})
	return out
}
