package viewer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// Caps on the text a question file carries per call, so that a search
// method's hundreds of calls with long prompts keep files loadable: a
// call's messages share MaxCallText bytes (short messages whole, the long
// ones cut to equal shares), each sample's answer and reasoning keep
// MaxSampleText bytes. A cut text says so and gives its full length.
const (
	MaxCallText   = 64 << 10
	MaxSampleText = 16 << 10
)

// Why a call shows no messages or answers (CallView.Missing).
const (
	missingNoKey     = "not cached: prompt not kept"
	missingNoRequest = "prompt not kept: the cache holds this call's answers but not its request (cached before requests were kept)"
)

// CallView is one call of the call log with what the model cache holds of
// it: the messages (paragraphs indexing Question.Texts, which holds each
// distinct paragraph of the question file once) and every sample.
type CallView struct {
	runstore.Call
	Model       string        `json:"model,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Messages    []MessageView `json:"messages,omitempty"`
	Samples     []SampleView  `json:"samples,omitempty"`
	// Missing says why messages or answers are not shown ("" when they
	// are).
	Missing string `json:"missing,omitempty"`
}

// MessageView is one message of a call's request. Its text is the
// paragraphs Question.Texts[Parts[i]] joined by blank lines ("\n\n"):
// prompts of one question repeat whole paragraphs (a schema's CREATE
// TABLE statements, the instructions, earlier turns), which a question
// file thus holds once. Len is the message's full length in bytes; Cut
// is true when the text holds only its start (MaxCallText).
type MessageView struct {
	Role  string `json:"role"`
	Parts []int  `json:"parts"`
	Len   int    `json:"len"`
	Cut   bool   `json:"cut,omitempty"`
}

// Text returns the message's text from the question file's texts.
func (m MessageView) Text(texts []string) string {
	ps := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		ps[i] = texts[p]
	}
	return strings.Join(ps, "\n\n")
}

// SampleView is one sample of a call as the cache stored it. AnswerLen and
// ReasoningLen are the full lengths, larger than the texts' when cut.
type SampleView struct {
	Found            bool    `json:"found"`
	Answer           string  `json:"answer,omitempty"`
	AnswerLen        int     `json:"answer_len,omitempty"`
	Reasoning        string  `json:"reasoning,omitempty"`
	ReasoningLen     int     `json:"reasoning_len,omitempty"`
	Finish           string  `json:"finish,omitempty"`
	PromptTokens     int     `json:"prompt_tokens,omitempty"`
	CompletionTokens int     `json:"completion_tokens,omitempty"`
	LatencyMS        float64 `json:"latency_ms,omitempty"`
}

// runCache locates and opens the model cache of run r read-only: file
// when given (Options.ModelCache), else the one in the cache directory
// the run recorded (runstore.MetaCacheDir), else the one in <run>/cache. It returns nil and
// why when there is none.
func runCache(r *runstore.RunData, file string) (*llm.CacheReader, string, string) {
	var tried []string
	if file != "" {
		c, err := llm.OpenCacheReader(file)
		if err != nil {
			return nil, file, err.Error()
		}
		return c, file, ""
	}
	if d := r.Meta[runstore.MetaCacheDir]; d != "" {
		tried = append(tried, filepath.Join(d, runstore.ModelCacheFile))
	}
	tried = append(tried, filepath.Join(r.Dir, "cache", runstore.ModelCacheFile))
	for _, p := range tried {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		c, err := llm.OpenCacheReader(p)
		if err != nil {
			return nil, p, err.Error()
		}
		return c, p, ""
	}
	return nil, tried[0], "model cache " + tried[0] + " not found"
}

// texts collects the distinct texts of a question file.
type texts struct {
	list []string
	pos  map[string]int
}

func (t *texts) add(s string) int {
	if i, ok := t.pos[s]; ok {
		return i
	}
	if t.pos == nil {
		t.pos = map[string]int{}
	}
	t.pos[s] = len(t.list)
	t.list = append(t.list, s)
	return len(t.list) - 1
}

// callViews reads the calls of one item from the run's model cache.
func (v *Viewer) callViews(ctx context.Context, run int, calls []runstore.Call, tx *texts) ([]CallView, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	src := &v.runs[run]
	out := make([]CallView, len(calls))
	for i, c := range calls {
		cv := CallView{Call: c}
		switch {
		case c.Sent:
			// The call log's own note (sent, no answer) says it.
		case c.CacheKey == "":
			cv.Missing = missingNoKey
			if c.Error != "" {
				cv.Missing = "the call failed: no answer; prompt not kept"
			}
		case src.cache == nil:
			cv.Missing = "model cache not available (" + src.cacheErr + "): prompt and answers not shown"
		default:
			cc, err := src.cache.Call(ctx, c.CacheKey, c.N)
			if err != nil {
				return nil, fmt.Errorf("viewer: %w", err)
			}
			fillCall(&cv, cc, tx)
		}
		out[i] = cv
	}
	return out, nil
}

func fillCall(cv *CallView, cc *llm.CachedCall, tx *texts) {
	if cc.Request == nil {
		cv.Missing = missingNoRequest
	} else {
		cv.Model = cc.Ident.Model
		t := cc.Request.Temperature
		cv.Temperature = &t
		cv.MaxTokens = cc.Request.MaxTokens
		sizes := make([]int, len(cc.Request.Messages))
		for i, m := range cc.Request.Messages {
			sizes[i] = len(m.Content)
		}
		keep := shares(sizes, MaxCallText)
		for i, m := range cc.Request.Messages {
			t := cut(m.Content, keep[i])
			mv := MessageView{Role: m.Role, Len: len(m.Content), Cut: len(t) < len(m.Content)}
			for _, p := range strings.Split(t, "\n\n") {
				mv.Parts = append(mv.Parts, tx.add(p))
			}
			cv.Messages = append(cv.Messages, mv)
		}
	}
	missing := 0
	for _, s := range cc.Samples {
		if !s.Found {
			missing++
			cv.Samples = append(cv.Samples, SampleView{})
			continue
		}
		sv := SampleView{Found: true, Answer: cut(s.Answer, MaxSampleText), Reasoning: cut(s.Reasoning, MaxSampleText), Finish: s.Finish,
			PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens, LatencyMS: float64(s.Latency.Microseconds()) / 1000}
		if len(sv.Answer) < len(s.Answer) {
			sv.AnswerLen = len(s.Answer)
		}
		if len(sv.Reasoning) < len(s.Reasoning) {
			sv.ReasoningLen = len(s.Reasoning)
		}
		cv.Samples = append(cv.Samples, sv)
	}
	if missing > 0 && cv.Missing == "" {
		cv.Missing = fmt.Sprintf("%d of %d samples are not in the model cache", missing, len(cc.Samples))
	}
}

// shares splits budget bytes over texts of the given sizes: texts that
// fit an equal share are kept whole, the others share what is left
// equally.
func shares(sizes []int, budget int) []int {
	idx := make([]int, len(sizes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return sizes[idx[a]] < sizes[idx[b]] })
	keep := make([]int, len(sizes))
	for k, i := range idx {
		share := budget / (len(idx) - k)
		keep[i] = min(sizes[i], share)
		budget -= keep[i]
	}
	return keep
}

// cut returns s cut to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
