package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// Defaults of the sim backend.
const (
	// DefaultSimP is the probability that a sample is correct, about the EX
	// of a mid-size open model on Spider/BIRD dev with a plain prompt.
	DefaultSimP = 0.6
	// DefaultSimTokensPerChar approximates tokens as characters/4, the
	// usual rule of thumb for English text with BPE tokenizers.
	DefaultSimTokensPerChar = 0.25
	// DefaultSimLatencyJitter spreads simulated latency uniformly over
	// Latency*(1 +- jitter).
	DefaultSimLatencyJitter = 0.2
)

// ErrSimNoQuestion is returned when no benchmark question occurs in the
// prompt (the runner did not put the question in, or the wrong benchmark
// was given to the simulator).
var ErrSimNoQuestion = errors.New("sim: no benchmark question found in prompt")

// SimConfig configures the sim backend.
type SimConfig struct {
	// P is the probability that a sample is correct; 0 means DefaultSimP.
	P float64
	// RoleP overrides P per role (any value in [0, 1], 0 included).
	RoleP map[string]float64
	// Seed seeds every draw together with the prompt and sample index.
	Seed int64
	// Latency is the simulated latency per call (0: none), spread by
	// LatencyJitter (0: DefaultSimLatencyJitter).
	Latency       time.Duration
	LatencyJitter float64
	// TokensPerChar converts characters to simulated tokens (0:
	// DefaultSimTokensPerChar).
	TokensPerChar float64
	// Model is the model name in responses (default "sim").
	Model string

	// Style is SimStyleClean ("" means clean: each responder's answer as
	// it writes it) or SimStyleRealistic (the answer rendered the way real
	// models write it, with reasoning blocks and cut answers).
	Style string
	// CutRate is the share of samples cut mid-way with finish_reason
	// "length" under the realistic style (nil: DefaultSimCutRate).
	CutRate *float64
	// ReasoningRate is the share of samples that carry a reasoning block
	// holding a draft under the realistic style (nil:
	// DefaultSimReasoningRate).
	ReasoningRate *float64
}

// Sim is the offline, deterministic model simulator. It finds the
// benchmark question in the prompt, and answers each sample with the gold
// SQL with probability p, else with a realistic corruption of it (see
// Corrupt), in the shape the request asks for. Every draw of sample i comes
// from a generator seeded by SHA-256(seed, request seed, messages, i), so the
// same request gives the same answers in any order and on any machine.
//
// The style (SimConfig.Style) sits after the responders and applies to
// every answer kind. SimStyleClean, the default, returns each responder's
// text as it is, with finish reason "stop" and no reasoning.
// SimStyleRealistic renders it the way real models write (see
// renderStyled and the form tables in simstyle.go): SQL in any fence or
// none, with prose, drafts, JSON wrapping, leaked template tokens and
// markdown escapes; JSON with prose, shuffled keys and numbers as strings;
// DSL calls in ```python or untagged blocks, numbered, with ";" or inline
// backticks. Options, each validated with the key named in the error:
//
//	style           clean | realistic (default clean)
//	cut_rate        share of samples cut mid-way, finish "length" (default DefaultSimCutRate = 0.01)
//	reasoning_rate  share of samples with a reasoning block holding a draft (default DefaultSimReasoningRate = 0.3)
//
// Half of the reasoning blocks come in Response.Reasoning (a server's
// reasoning_content), the rest inline as <think>...</think> or with only
// the closing tag (the template opened it), split off by SplitReasoning as
// a client would. Any answer longer than the request's MaxTokens is cut
// there too. The style draws from a generator of its own, seeded by (seed,
// prompt, sample index), so the correct/corrupt draws equal the clean
// style's.
//
// Sim implements OffsetClient and is safe for concurrent use. It opens
// databases through the benchmark's engine, which owns (and closes) them.
type Sim struct {
	b   *datasets.Benchmark
	cfg SimConfig
	m   *matcher
	// byPattern lists, per normalised question, the indexes of the
	// examples asking it (Spider repeats questions across databases).
	byPattern [][]int
	// style is nil for the clean style.
	style *simStyleOpts

	mu  sync.Mutex
	dbs map[string]*simDB
}

type simDB struct {
	once   sync.Once
	db     datasets.Database
	schema *datasets.Schema
}

// NewSim indexes the questions of b and returns the simulator.
func NewSim(b *datasets.Benchmark, cfg SimConfig) (*Sim, error) {
	if b == nil || len(b.Examples) == 0 {
		return nil, errors.New("sim: benchmark has no examples")
	}
	if cfg.P == 0 {
		cfg.P = DefaultSimP
	}
	if cfg.P < 0 || cfg.P > 1 || math.IsNaN(cfg.P) {
		return nil, fmt.Errorf("sim: p = %g out of range [0, 1]", cfg.P)
	}
	for role, p := range cfg.RoleP {
		if p < 0 || p > 1 || math.IsNaN(p) {
			return nil, fmt.Errorf("sim: role_p.%s = %g out of range [0, 1]", role, p)
		}
	}
	if cfg.LatencyJitter == 0 {
		cfg.LatencyJitter = DefaultSimLatencyJitter
	}
	if cfg.LatencyJitter < 0 || cfg.LatencyJitter > 1 {
		return nil, fmt.Errorf("sim: latency jitter = %g out of range [0, 1]", cfg.LatencyJitter)
	}
	if cfg.Latency < 0 {
		return nil, fmt.Errorf("sim: latency = %v is negative", cfg.Latency)
	}
	if cfg.TokensPerChar == 0 {
		cfg.TokensPerChar = DefaultSimTokensPerChar
	}
	if cfg.Model == "" {
		cfg.Model = "sim"
	}
	style, err := simStyleOf(cfg)
	if err != nil {
		return nil, err
	}
	s := &Sim{b: b, cfg: cfg, style: style, dbs: map[string]*simDB{}}
	index := map[string]int{}
	var pats []string
	for i, e := range b.Examples {
		q := normalizeText(e.Question)
		if q == "" {
			return nil, fmt.Errorf("sim: example %s (index %d) has an empty question", e.ID, i)
		}
		k, ok := index[q]
		if !ok {
			k = len(pats)
			index[q] = k
			pats = append(pats, q)
			s.byPattern = append(s.byPattern, nil)
		}
		s.byPattern[k] = append(s.byPattern[k], i)
	}
	s.m = newMatcher(pats)
	return s, nil
}

// Ident identifies this simulator for the response cache: the benchmark
// and every setting that changes answers.
func (s *Sim) Ident() Ident {
	roles := make([]string, 0, len(s.cfg.RoleP))
	for r, p := range s.cfg.RoleP {
		roles = append(roles, fmt.Sprintf("%s=%g", r, p))
	}
	sort.Strings(roles)
	style := ""
	if s.style != nil {
		style = fmt.Sprintf(",style=%s,cut_rate=%g,reasoning_rate=%g", SimStyleRealistic, s.style.cutRate, s.style.reasoningRate)
	}
	return Ident{
		Backend: "sim",
		BaseURL: "sim://" + s.b.Name + "/" + s.b.Split,
		Model:   fmt.Sprintf("%s(p=%g,seed=%d,roles=[%s]%s)", s.cfg.Model, s.cfg.P, s.cfg.Seed, strings.Join(roles, ","), style),
	}
}

// Find returns the benchmark example whose question occurs in prompt: the
// longest question found wins; among examples sharing that question text,
// the one whose db_id (then evidence) also occurs in the prompt.
func (s *Sim) Find(prompt string) (datasets.Example, bool) {
	norm := normalizeText(prompt)
	k := s.m.longest(norm)
	if k < 0 {
		return datasets.Example{}, false
	}
	cands := s.byPattern[k]
	best, bestScore := cands[0], -1
	for _, i := range cands {
		e := s.b.Examples[i]
		score := 0
		if e.DBID != "" && strings.Contains(prompt, e.DBID) {
			score += 2
		}
		if e.Evidence != "" && strings.Contains(norm, normalizeText(e.Evidence)) {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return s.b.Examples[best], true
}

// database opens (once) the database of dbID and its schema; nil when the
// benchmark has no engine or the database cannot be opened.
func (s *Sim) database(ctx context.Context, dbID string) (datasets.Database, *datasets.Schema) {
	if s.b.Engine == nil || dbID == "" {
		return nil, nil
	}
	s.mu.Lock()
	d, ok := s.dbs[dbID]
	if !ok {
		d = &simDB{}
		s.dbs[dbID] = d
	}
	s.mu.Unlock()
	d.once.Do(func() {
		db, err := s.b.Engine.Open(context.WithoutCancel(ctx), dbID)
		if err != nil {
			return
		}
		sc, err := db.Schema(context.WithoutCancel(ctx))
		if err != nil {
			return
		}
		d.db, d.schema = db, sc
	})
	return d.db, d.schema
}

// Complete answers req (samples 0..N-1).
func (s *Sim) Complete(ctx context.Context, req Request) (*Response, error) {
	return s.CompleteFrom(ctx, req, 0)
}

// CompleteFrom answers samples first..first+N-1 of req.
func (s *Sim) CompleteFrom(ctx context.Context, req Request, first int) (*Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	var prompt strings.Builder
	for _, m := range req.Messages {
		prompt.WriteString(m.Content)
		prompt.WriteByte('\n')
	}
	ex, ok := s.Find(prompt.String())
	if !ok {
		return nil, fmt.Errorf("%w (role %q, %d messages, %d characters)", ErrSimNoQuestion, req.Role, len(req.Messages), prompt.Len())
	}
	var responder Responder
	switch {
	case req.Responder != "":
		r, ok := LookupResponder(req.Responder)
		if !ok {
			return nil, errNoResponder(req.Responder)
		}
		responder = r
	case req.Answer == AnswerJSON:
		return nil, fmt.Errorf("sim: JSON request (schema %q, role %q) names no sim responder; set Request.Responder", req.SchemaName, req.Role)
	case req.Answer == AnswerDSL:
		return nil, fmt.Errorf("sim: DSL request (role %q) names no sim responder; set Request.Responder", req.Role)
	default:
		responder = defaultResponder
	}
	p := s.cfg.P
	if rp, ok := s.cfg.RoleP[req.Role]; ok {
		p = rp
	}
	db, schema := s.database(ctx, ex.DBID)
	base := s.requestHash(req)
	styleBase := sha256.Sum256(append(base[:], "style"...))
	maxChars := 0
	if req.MaxTokens > 0 {
		maxChars = int(float64(req.MaxTokens) / s.cfg.TokensPerChar)
	}
	resp := &Response{Model: s.cfg.Model}
	resp.Usage.PromptTokens = s.tokens(prompt.Len())
	for i := first; i < first+req.Samples(); i++ {
		rng := rand.New(rand.NewPCG(sampleSeeds(base, uint64(i))))
		c := &SimContext{Request: req, Example: ex, DB: db, Sample: i, Rand: rng}
		c.Correct = rng.Float64() < p
		c.Corrupt = func(sql string) string {
			out, _ := Corrupt(sql, schema, rng)
			return out
		}
		text, err := responder(c)
		if err != nil {
			return nil, fmt.Errorf("sim: responder %q: %w", req.Responder, err)
		}
		if s.style == nil {
			resp.Choices = append(resp.Choices, text)
			resp.FinishReasons = append(resp.FinishReasons, FinishStop)
			resp.Usage.CompletionTokens += s.tokens(len(text))
			continue
		}
		// The style layer draws from its own generator, so that a
		// realistic run draws the same correct/corrupt answers as a clean
		// one with the same seed.
		o := *s.style
		o.maxChars = maxChars
		srng := rand.New(rand.NewPCG(sampleSeeds(styleBase, uint64(i))))
		st := renderStyled(req.Answer, text, schema, o, srng)
		resp.Choices = append(resp.Choices, st.answer)
		resp.Reasoning = append(resp.Reasoning, st.reasoning)
		resp.FinishReasons = append(resp.FinishReasons, st.finish)
		resp.Usage.CompletionTokens += s.tokens(st.emitted)
	}
	if s.cfg.Latency > 0 {
		lrng := rand.New(rand.NewPCG(sampleSeeds(base, math.MaxUint64)))
		d := time.Duration(float64(s.cfg.Latency) * (1 + s.cfg.LatencyJitter*(2*lrng.Float64()-1)))
		t := time.NewTimer(d - time.Since(start))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("sim: %w", ctx.Err())
		}
	}
	resp.Latency = time.Since(start)
	return resp, nil
}

// simStyleOf validates the style settings of cfg; nil means clean.
func simStyleOf(cfg SimConfig) (*simStyleOpts, error) {
	switch cfg.Style {
	case "", SimStyleClean:
		if cfg.CutRate != nil {
			return nil, fmt.Errorf("sim: cut_rate applies to style %s only (style is %s)", SimStyleRealistic, SimStyleClean)
		}
		if cfg.ReasoningRate != nil {
			return nil, fmt.Errorf("sim: reasoning_rate applies to style %s only (style is %s)", SimStyleRealistic, SimStyleClean)
		}
		return nil, nil
	case SimStyleRealistic:
	default:
		return nil, fmt.Errorf("sim: style = %q unknown (want %s or %s)", cfg.Style, SimStyleClean, SimStyleRealistic)
	}
	o := &simStyleOpts{cutRate: DefaultSimCutRate, reasoningRate: DefaultSimReasoningRate}
	for _, r := range []struct {
		key string
		v   *float64
		dst *float64
	}{{"cut_rate", cfg.CutRate, &o.cutRate}, {"reasoning_rate", cfg.ReasoningRate, &o.reasoningRate}} {
		if r.v == nil {
			continue
		}
		if *r.v < 0 || *r.v > 1 || math.IsNaN(*r.v) {
			return nil, fmt.Errorf("sim: %s = %g out of range [0, 1]", r.key, *r.v)
		}
		*r.dst = *r.v
	}
	return o, nil
}

func (s *Sim) tokens(chars int) int { return int(math.Ceil(float64(chars) * s.cfg.TokensPerChar)) }

// requestHash hashes the seed, the request's own seed and its messages.
func (s *Sim) requestHash(req Request) [32]byte {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(s.cfg.Seed))
	h.Write(b[:])
	if req.Seed != nil {
		binary.LittleEndian.PutUint64(b[:], uint64(*req.Seed))
		h.Write([]byte{1})
		h.Write(b[:])
	} else {
		h.Write([]byte{0})
	}
	for _, m := range req.Messages {
		binary.LittleEndian.PutUint64(b[:], uint64(len(m.Role)))
		h.Write(b[:])
		h.Write([]byte(m.Role))
		binary.LittleEndian.PutUint64(b[:], uint64(len(m.Content)))
		h.Write(b[:])
		h.Write([]byte(m.Content))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// sampleSeeds derives the two PCG seeds of sample i.
func sampleSeeds(base [32]byte, i uint64) (uint64, uint64) {
	var buf [40]byte
	copy(buf[:], base[:])
	binary.LittleEndian.PutUint64(buf[32:], i)
	h := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])
}

var simOpenings = []string{
	"Let me find the tables that hold the information the question asks for.",
	"The question needs %s; I select the requested columns and apply its conditions.",
	"I look up %s and filter the rows the question describes.",
	"Reading the schema, the answer comes from %s.",
}

// defaultResponder answers SQL and text requests: one line of reasoning and
// a fenced SQL block.
func defaultResponder(c *SimContext) (string, error) {
	sql := c.SQL()
	tables := fromTables(sql)
	line := simOpenings[c.Rand.IntN(len(simOpenings))]
	if strings.Contains(line, "%s") {
		what := "the relevant table"
		if len(tables) > 0 {
			what = "table " + strings.Join(tables, ", ")
		}
		line = fmt.Sprintf(line, what)
	}
	return line + "\n\n```sql\n" + sql + "\n```", nil
}

// fromTables lists the names after FROM and JOIN in sql, deduplicated.
func fromTables(sql string) []string {
	toks := tokenize(sql)
	seen := map[string]bool{}
	var out []string
	for i, t := range toks {
		if !t.is("FROM") && !t.is("JOIN") {
			continue
		}
		j := nextTok(toks, i)
		if j < 0 || toks[j].kind != tkWord && toks[j].kind != tkIdent {
			continue
		}
		n := toks[j].name()
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			out = append(out, n)
		}
	}
	return out
}
