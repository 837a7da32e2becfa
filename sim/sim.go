package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Defaults of the sim backend.
const (
	// DefaultP is the probability that a sample is correct, about the EX
	// of a mid-size open model on Spider/BIRD dev with a plain prompt.
	DefaultP = 0.6
	// DefaultTokensPerChar approximates tokens as characters/4, the
	// usual rule of thumb for English text with BPE tokenizers.
	DefaultTokensPerChar = 0.25
	// DefaultLatencyJitter spreads simulated latency uniformly over
	// Latency*(1 +- jitter).
	DefaultLatencyJitter = 0.2
)

// ErrNoQuestion is returned when no benchmark question occurs in the
// prompt (the runner did not put the question in, or the wrong benchmark
// was given to the simulator).
var ErrNoQuestion = errors.New("sim: no benchmark question found in prompt")

// Config configures the sim backend.
type Config struct {
	// P is the probability that a sample is correct; 0 means DefaultP.
	P float64
	// RoleP overrides P per role (any value in [0, 1], 0 included).
	RoleP map[string]float64
	// Seed seeds every draw together with the prompt and sample index.
	Seed int64
	// Latency is the simulated latency per call (0: none), spread by
	// LatencyJitter (0: DefaultLatencyJitter).
	Latency       time.Duration
	LatencyJitter float64
	// TokensPerChar converts characters to simulated tokens (0:
	// DefaultTokensPerChar).
	TokensPerChar float64
	// Model is the model name in responses (default "sim").
	Model string

	// Style is StyleClean ("" means clean: each responder's answer as
	// it writes it) or StyleRealistic (the answer rendered the way real
	// models write it, with reasoning blocks and cut answers).
	Style string
	// CutRate is the share of samples cut mid-way with finish_reason
	// "length" under the realistic style (nil: DefaultCutRate).
	CutRate *float64
	// SchemaPenalty, ValuePenalty and EvidencePenalty are the behaviour
	// model's penalties (nil: DefaultSchemaPenalty, DefaultValuePenalty,
	// DefaultEvidencePenalty); see the package documentation.
	SchemaPenalty, ValuePenalty, EvidencePenalty *float64
	// Rho is the intra-question correlation ρ of the samples, in [0, 1)
	// (nil: DefaultRho; 0: independent samples); see the package
	// documentation.
	Rho *float64
	// Profile names the backbone profile of the intermediate answers
	// ("": DefaultProfile); see ProfileNames and LookupProfile.
	Profile string

	// ReasoningRate is the share of samples that carry a reasoning block
	// holding a draft under the realistic style (nil:
	// DefaultReasoningRate).
	ReasoningRate *float64
}

// Model is the offline, deterministic model simulator. It finds the
// benchmark question in the prompt and answers each sample in the shape the
// request asks for, by the behaviour model of the package documentation:
// final SQL is the gold SQL with a probability that depends on p and on
// what the prompt carries, else a mistake; intermediate answers come from
// the prompt alone. Every draw of sample i comes
// from a generator seeded by SHA-256(seed, request seed, messages, i), so the
// same request gives the same answers in any order and on any machine. The
// messages are hashed as the model reads them (drawkey.go): an earlier
// answer the prompt quotes (an assistant turn, a "Step N (Action):" block)
// as its payload, read as the runners read it, and the white space inside
// fenced blocks folded, so that a later prompt quoting an answer in the
// realistic style's form gets the draws of the same prompt in the clean
// style's form.
//
// The style (Config.Style) sits after the responders and applies to
// every answer kind. StyleClean, the default, returns each responder's
// text as it is, with finish reason "stop" and no reasoning.
// StyleRealistic renders it the way real models write (see
// renderStyled and the form tables in style.go): SQL in any fence or
// none, with prose, drafts, JSON wrapping, leaked template tokens and
// markdown escapes; JSON with prose, shuffled keys and numbers as strings;
// DSL calls in ```python or untagged blocks, numbered, with ";" or inline
// backticks. Options, each validated with the key named in the error:
//
//	style           clean | realistic (default clean)
//	cut_rate        share of samples cut mid-way, finish "length" (default DefaultCutRate = 0.01)
//	reasoning_rate  share of samples with a reasoning block holding a draft (default DefaultReasoningRate = 0.3)
//
// Half of the reasoning blocks come in llm.Response.Reasoning (a server's
// reasoning_content), the rest inline as <think>...</think> or with only
// the closing tag (the template opened it), split off by llm.SplitReasoning as
// a client would. Any answer longer than the request's MaxTokens is cut
// there too. The style draws from a generator of its own, seeded by (seed,
// prompt, sample index), so the correct/corrupt draws equal the clean
// style's.
//
// Model implements llm.OffsetClient and is safe for concurrent use. It opens
// databases through the benchmark's engine, which owns (and closes) them.
type Model struct {
	b   *datasets.Benchmark
	cfg Config
	m   *matcher
	// byPattern lists, per normalised question, the indexes of the
	// examples asking it (Spider repeats questions across databases).
	byPattern [][]int
	// style is nil for the clean style.
	style *styleOpts
	pen   penalties
	// rho is the intra-question correlation, prof the backbone profile.
	rho  float64
	prof *Profile
	// ops are the model's operating points (operatingPoints).
	opsOnce sync.Once
	ops     opPoints
	// needs caches the analysis of each gold SQL (key: db, id, SQL).
	needs sync.Map

	mu  sync.Mutex
	dbs map[string]*modelDB
}

type modelDB struct {
	once   sync.Once
	db     datasets.Database
	schema *datasets.Schema
}

// New indexes the questions of b and returns the simulator.
func New(b *datasets.Benchmark, cfg Config) (*Model, error) {
	if b == nil || len(b.Examples) == 0 {
		return nil, errors.New("sim: benchmark has no examples")
	}
	if cfg.P == 0 {
		cfg.P = DefaultP
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
		cfg.LatencyJitter = DefaultLatencyJitter
	}
	if cfg.LatencyJitter < 0 || cfg.LatencyJitter > 1 {
		return nil, fmt.Errorf("sim: latency jitter = %g out of range [0, 1]", cfg.LatencyJitter)
	}
	if cfg.Latency < 0 {
		return nil, fmt.Errorf("sim: latency = %v is negative", cfg.Latency)
	}
	if cfg.TokensPerChar == 0 {
		cfg.TokensPerChar = DefaultTokensPerChar
	}
	if cfg.Model == "" {
		cfg.Model = "sim"
	}
	style, err := styleOf(cfg)
	if err != nil {
		return nil, err
	}
	pen, err := penaltiesOf(cfg)
	if err != nil {
		return nil, err
	}
	rho, err := rhoOf(cfg)
	if err != nil {
		return nil, err
	}
	prof, err := profileOf(cfg.Profile)
	if err != nil {
		return nil, fmt.Errorf("sim: profile: %w", err)
	}
	s := &Model{b: b, cfg: cfg, style: style, pen: pen, rho: rho, prof: prof, dbs: map[string]*modelDB{}}
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

// BehaviourVersion numbers the simulator's behaviour model: the
// identity (Model.Ident, the model cache's key) carries it, so that a
// cache filled by a simulator that answered differently is never served
// to this one. Bump it with every change that moves any draw or any
// answer (a probability, a keep rate, a calibration, a reading, the order
// of the draws or of an answer's items).
const BehaviourVersion = 3

// Ident identifies this simulator for the response cache: the behaviour
// version, the benchmark and every setting that changes answers.
func (s *Model) Ident() llm.Ident { return s.identAt(BehaviourVersion) }

// identAt is the identity under behaviour version v.
func (s *Model) identAt(v int) llm.Ident {
	roles := make([]string, 0, len(s.cfg.RoleP))
	for r, p := range s.cfg.RoleP {
		roles = append(roles, fmt.Sprintf("%s=%g", r, p))
	}
	sort.Strings(roles)
	style := ""
	if s.style != nil {
		style = fmt.Sprintf(",style=%s,cut_rate=%g,reasoning_rate=%g", StyleRealistic, s.style.cutRate, s.style.reasoningRate)
	}
	return llm.Ident{
		Backend: "sim",
		BaseURL: "sim://" + s.b.Name + "/" + s.b.Split,
		Model: fmt.Sprintf("%s(behaviour=%d,p=%g,seed=%d,roles=[%s]%s,penalties=[schema=%g,value=%g,evidence=%g],rho=%g,profile=%s)", s.cfg.Model, v,
			s.cfg.P, s.cfg.Seed, strings.Join(roles, ","), style, s.pen.schema, s.pen.value, s.pen.evidence, s.rho, s.prof.Name),
	}
}

// Find returns the benchmark example whose question occurs in prompt: the
// longest question found wins; among examples sharing that question text,
// the one whose db_id (then evidence) also occurs in the prompt.
func (s *Model) Find(prompt string) (datasets.Example, bool) {
	return s.find(prompt, normalizeText(prompt))
}

// find is Find with norm, normalizeText(prompt), given.
func (s *Model) find(prompt, norm string) (datasets.Example, bool) {
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
func (s *Model) database(ctx context.Context, dbID string) (datasets.Database, *datasets.Schema) {
	if s.b.Engine == nil || dbID == "" {
		return nil, nil
	}
	s.mu.Lock()
	d, ok := s.dbs[dbID]
	if !ok {
		d = &modelDB{}
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
func (s *Model) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return s.CompleteFrom(ctx, req, 0)
}

// CompleteFrom answers samples first..first+N-1 of req.
func (s *Model) CompleteFrom(ctx context.Context, req llm.Request, first int) (*llm.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	drawn := drawMessages(req.Messages)
	pr := ParsePrompt(drawn)
	ex, ok := s.find(pr.Text, pr.norm)
	if !ok {
		return nil, fmt.Errorf("%w (role %q, %d messages, %d characters)", ErrNoQuestion, req.Role, len(req.Messages), len(pr.Text))
	}
	var responder Responder
	switch {
	case req.Responder != "":
		r, ok := responders[req.Responder]
		if !ok {
			return nil, errNoResponder(req.Responder)
		}
		responder = r
	case req.Answer == llm.AnswerJSON:
		return nil, fmt.Errorf("sim: JSON request (schema %q, role %q) names no request kind; set Request.Responder", req.SchemaName, req.Role)
	case req.Answer == llm.AnswerDSL:
		return nil, fmt.Errorf("sim: DSL request (role %q) names no request kind; set Request.Responder", req.Role)
	default:
		responder = defaultResponder
	}
	p := s.cfg.P
	if rp, ok := s.cfg.RoleP[req.Role]; ok {
		p = rp
	}
	_, schema := s.database(ctx, ex.DBID)
	base := s.requestHash(req.Seed, drawn)
	styleBase := sha256.Sum256(append(base[:], "style"...))
	channelBase := sha256.Sum256(append(base[:], "channels"...))
	maxChars := 0
	if req.MaxTokens > 0 {
		maxChars = int(float64(req.MaxTokens) / s.cfg.TokensPerChar)
	}
	q := s.questionQ(ex, p)
	resp := &llm.Response{Model: s.cfg.Model}
	resp.Usage.PromptTokens = s.tokens(len(pr.Text))
	for i := first; i < first+req.Samples(); i++ {
		rng := rand.New(rand.NewPCG(sampleSeeds(base, uint64(i))))
		evidence := ""
		if ex.Evidence != "" && pr.Contains(ex.Evidence) {
			evidence = ex.Evidence
		}
		c := &Sample{Request: req, Prompt: pr, Question: ex.Question, Evidence: evidence, Index: i, P: p, Rand: rng,
			example: ex, schema: schema, model: s, base: base,
			chRand: rand.New(rand.NewPCG(sampleSeeds(channelBase, uint64(i))))}
		c.correct = rng.Float64() < q
		text, err := responder(c)
		if err != nil {
			return nil, fmt.Errorf("sim: responder %q: %w", req.Responder, err)
		}
		if s.style == nil {
			resp.Choices = append(resp.Choices, text)
			resp.FinishReasons = append(resp.FinishReasons, llm.FinishStop)
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

// styleOf validates the style settings of cfg; nil means clean.
func styleOf(cfg Config) (*styleOpts, error) {
	switch cfg.Style {
	case "", StyleClean:
		if cfg.CutRate != nil {
			return nil, fmt.Errorf("sim: cut_rate applies to style %s only (style is %s)", StyleRealistic, StyleClean)
		}
		if cfg.ReasoningRate != nil {
			return nil, fmt.Errorf("sim: reasoning_rate applies to style %s only (style is %s)", StyleRealistic, StyleClean)
		}
		return nil, nil
	case StyleRealistic:
	default:
		return nil, fmt.Errorf("sim: style = %q unknown (want %s or %s)", cfg.Style, StyleClean, StyleRealistic)
	}
	o := &styleOpts{cutRate: DefaultCutRate, reasoningRate: DefaultReasoningRate}
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

func (s *Model) tokens(chars int) int { return int(math.Ceil(float64(chars) * s.cfg.TokensPerChar)) }

// requestHash hashes the seed, the request's own seed and its messages as
// drawMessages gives them (quoted earlier answers replaced by their
// payloads), the white space inside their fenced blocks folded
// (foldFences): the draws of one decision are the same in every style.
func (s *Model) requestHash(seed *int64, msgs []llm.Message) [32]byte {
	h := seedHash(s.cfg.Seed, seed)
	for _, m := range msgs {
		writeField(h, m.Role)
		writeField(h, foldFences(m.Content))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// seedHash is a SHA-256 hash that starts with the draw keys' seeds: the
// model's seed, then the request's, marked present or absent (requestHash,
// Sample.itemDraw).
func seedHash(model int64, req *int64) hash.Hash {
	h := modelHash(model)
	var b [8]byte
	if req != nil {
		binary.LittleEndian.PutUint64(b[:], uint64(*req))
		h.Write([]byte{1})
		h.Write(b[:])
	} else {
		h.Write([]byte{0})
	}
	return h
}

// modelHash is a SHA-256 hash that starts with the model's seed (8
// bytes, little-endian): the start of every draw key (seedHash,
// Model.questionKey).
func modelHash(seed int64) hash.Hash {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	return h
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
func defaultResponder(c *Sample) (string, error) {
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
