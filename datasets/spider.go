package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// spiderFields are the fields of a Spider question the loader maps to
// Example.
var spiderFields = []string{"db_id", "query", "question"}

// LoadSpider loads Spider 1.0 dev from dir (the official layout: dev.json,
// database/<db>/<db>.sqlite). Example.ID is the 0-based index in dev.json
// (the line of dev_gold.sql, minus one). Difficulty is the official hardness
// level of the gold SQL (see spiderDifficulty). The other fields, all
// derived from query and question (query_toks, query_toks_no_value,
// question_toks and the parse tree sql), are neither decoded nor kept, and
// Extra is nil: scoring needs none of them, they are most of the file, and
// decoding and keeping them took most of eval's loading time and memory
// (two thirds of the memory at 16 times Spider dev).
//
// dev.json is read as a stream, one question at a time, so memory grows
// with the questions kept, not with the file; scanSpiderFast reads it,
// and scanSpider when the file holds anything unusual.
//
// The engine is a VariantEngine: in the test-suite release database/<db>/
// holds distilled variants beside <db>.sqlite, and Variants returns them
// all (TestSuiteFiles). Open still returns <db>.sqlite alone, and no
// variant is opened until Variants is called, so the loader always
// exposes the suite and the scorer decides whether to use it
// (metrics.ScoreOptions.TestSuite); with the original release, one file
// per database, both give the same single database.
func LoadSpider(dir string, opt LoadOptions) (*Benchmark, error) {
	file := filepath.Join(dir, "dev.json")
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("datasets: spider: %w", err)
	}
	ex, err := scanSpiderFast(f, opt.Limit)
	if err != nil {
		// Something unusual (see scanSpiderFast): encoding/json decides.
		if _, err = f.Seek(0, io.SeekStart); err == nil {
			ex, err = scanSpider(bufio.NewReaderSize(f, 1<<16), opt.Limit)
		}
	}
	f.Close()
	if err != nil {
		// The stream does not know lines and columns: read the file again
		// with ParseSpider, whose errors place the problem (or which
		// copes, for a query the text scanner cannot read).
		data, rerr := os.ReadFile(file)
		if rerr != nil {
			return nil, fmt.Errorf("datasets: spider: %w", rerr)
		}
		all, perr := ParseSpider(file, data)
		if perr != nil {
			return nil, fmt.Errorf("datasets: spider: %w", perr)
		}
		ex = applyLimit(all, opt.Limit)
	}
	return &Benchmark{
		Name:     "spider",
		Split:    "dev",
		Dir:      dir,
		Mode:     "spider",
		Examples: ex,
		Engine:   newSuiteEngine(dirLocator(filepath.Join(dir, "database")), opt.SQLite),
	}, nil
}

// spiderItem is the part of a Spider question scanSpider decodes; the
// decoder skips every other field without keeping it.
type spiderItem struct {
	DBID     string `json:"db_id"`
	Query    string `json:"query"`
	Question string `json:"question"`
}

// scanSpider is the fast path of LoadSpider: it decodes the questions of
// r one at a time into spiderItem, with hardness from the SQL text, and
// keeps the first limit (0: all). Any problem (malformed JSON, a missing
// field, a query the text scanner cannot read) is an error without a
// position; LoadSpider then reparses with ParseSpider.
func scanSpider(r io.Reader, limit int) ([]Example, error) {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("not a JSON array")
	}
	var out []Example
	for i := 0; dec.More(); i++ {
		var it spiderItem
		if err := dec.Decode(&it); err != nil {
			return nil, err
		}
		if it.DBID == "" || it.Query == "" || it.Question == "" {
			return nil, fmt.Errorf("example %d: missing field", i)
		}
		if limit > 0 && i >= limit {
			continue
		}
		level, err := SpiderHardness(it.Query)
		if err != nil {
			return nil, err
		}
		out = append(out, Example{ID: strconv.Itoa(i), Index: i, DBID: it.DBID, Question: it.Question,
			GoldSQL: it.Query, Difficulty: level})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON array")
	}
	return out, nil
}

// ParseSpider parses a Spider question file (dev.json or train_*.json
// layout) as LoadSpider does; file names the source in errors
// ("file:line:col: ...").
func ParseSpider(file string, data []byte) ([]Example, error) {
	return parseSpider(bytes.NewReader(data), func(off int64, err error) error {
		return posError(file, data, off, err)
	}, 0)
}

// parseSpider reads a JSON array of Spider questions from r, one element
// at a time, keeping the first limit (0: all) but checking them all. at
// places an error at a byte offset of the input.
func parseSpider(r io.Reader, at func(off int64, err error) error, limit int) ([]Example, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, streamError(at, 0, dec.InputOffset(), err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, at(dec.InputOffset(), fmt.Errorf("want a JSON array of examples, got %v", tok))
	}
	// A bad question is reported after the whole array has been read, so
	// that a malformed file reports its JSON error first, as a parser
	// that reads the file at once does.
	var out []Example
	var bad error
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, streamError(at, 0, dec.InputOffset(), err)
		}
		if bad != nil {
			continue
		}
		start := dec.InputOffset() - int64(len(raw))
		e, err := spiderExample(i, raw, start, at)
		if err != nil {
			bad, out = err, nil
			continue
		}
		if limit <= 0 || i < limit {
			out = append(out, e)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, streamError(at, 0, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, at(dec.InputOffset(), errors.New("trailing data after the JSON array"))
	}
	if bad != nil {
		return nil, bad
	}
	return out, nil
}

// spiderExample decodes question i, whose JSON raw starts at byte start.
func spiderExample(i int, raw json.RawMessage, start int64, at func(int64, error) error) (Example, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return Example{}, at(start, errors.New("want a JSON object for each example"))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Example{}, streamError(at, start, start, err)
	}
	var known [3]string
	for j, k := range spiderFields {
		v, ok := fields[k]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, &known[j]); err != nil {
			// Place the error at the field's value.
			off := start + int64(bytes.Index(raw, v))
			return Example{}, at(off, fmt.Errorf("field %q: %w", k, err))
		}
		delete(fields, k)
	}
	dbID, query, question := known[0], known[1], known[2]
	for j, k := range spiderFields {
		if known[j] == "" {
			return Example{}, at(start, fmt.Errorf("missing or empty field %q", k))
		}
	}
	level, err := spiderDifficulty(query, fields["sql"])
	if err != nil {
		return Example{}, at(start, fmt.Errorf("hardness of example %d: %w", i, err))
	}
	return Example{
		ID:         strconv.Itoa(i),
		Index:      i,
		DBID:       dbID,
		Question:   question,
		GoldSQL:    query,
		Difficulty: level,
	}, nil
}

// spiderDifficulty is the hardness level of a Spider gold query, counted
// from its SQL text (SpiderHardness), as the official evaluator does from
// the SQL it parses; only when the text scanner cannot read the query is
// the file's parse tree decoded (SpiderLevel). On Spider dev both agree
// on every question (TestSharedSpider), and the text costs no decoding.
func spiderDifficulty(query string, parsed json.RawMessage) (string, error) {
	if level, err := SpiderHardness(query); err == nil {
		return level, nil
	}
	return SpiderLevel(query, parsed)
}

// streamError places a JSON decoding error: syntax and type errors carry
// an offset relative to base; the end of input is placed at end.
func streamError(at func(int64, error) error, base, end int64, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return at(base+se.Offset, err)
	case errors.As(err, &te):
		return at(base+te.Offset, fmt.Errorf("field %q: cannot use JSON %s as %s: %w", te.Field, te.Value, te.Type, err))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return at(end, fmt.Errorf("unexpected end of JSON input: %w", err))
	}
	return at(end, err)
}

// SpiderLevel returns the official hardness of a Spider gold query. When the
// parsed tree that Spider's files carry ("sql", the output of the official
// process_sql) is given, the counts come from it exactly as evaluation.py
// computes them; otherwise they come from the SQL text (CountHardness).
func SpiderLevel(query string, parsed json.RawMessage) (string, error) {
	if len(parsed) > 0 && string(parsed) != "null" {
		h, err := parsedHardness(parsed)
		if err == nil {
			return h.Level(), nil
		}
	}
	return SpiderHardness(query)
}

func init() {
	Register(Kind{
		Names:          []string{"spider"},
		Load:           func(_, dir string, opt LoadOptions) (*Benchmark, error) { return LoadSpider(dir, opt) },
		Order:          10,
		ChecksumFamily: func(name string) string { return name },
		Data:           []DataEntry{{"spider", "spider", "spider", "https://yale-lily.github.io/spider", "Spider dev"}},
	})
}
