// Package verdictfile writes and reads verdict files: the JSON lines that
// eval --out writes, one scored question a line, and that compare reads.
//
// Each line is a verdict object (metrics.Verdict, with the extraction
// fields under --response-field) that starts with the benchmark it scores:
//
//	{"benchmark":"bird-minidev","question_id":"1471","db_id":"...","correct":true,"status":"ok",...}
//
// A reader needs only "question_id" and "correct"; "benchmark", "db_id",
// "status", "soft_f1", "r_ves" and "candidates" are read when present.
package verdictfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/t2sbench/t2sbench/internal/jsonl"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// Write writes one JSON object per verdict of vs (metrics.Verdict, or
// Response), each starting with the benchmark
// it scores ("benchmark": eval's --benchmark name), so that a reader can
// refuse verdicts of different benchmarks.
func Write[V any](path, benchmark string, vs []V) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriter(f)
	head, _ := json.Marshal(benchmark)
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if len(b) < 2 || b[0] != '{' {
			return fmt.Errorf("write %s: a verdict is not a JSON object", path)
		}
		fmt.Fprintf(w, "{\"benchmark\":%s", head)
		if len(b) > 2 {
			w.WriteByte(',')
		}
		w.Write(b[1:])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Response is the verdict of a raw model response (eval
// --response-field): the SQL extracted from the response and how it was
// found.
type Response struct {
	metrics.Verdict
	PredSQL    string        `json:"pred_sql"`
	Extraction sqltext.Style `json:"extraction"`
	// ExtractionFinal: an explicit final-answer marker chose the SQL.
	ExtractionFinal bool `json:"extraction_final,omitempty"`
	// ExtractionReason is the rule that chose the SQL (sqltext.Reason).
	ExtractionReason sqltext.Reason `json:"extraction_reason"`
}

// Responses adds to each verdict the SQL extracted from its response
// and the extraction's style; a response without SQL, which the scorer saw
// as an empty prediction, gets the error sqltext.NoSQL. The verdicts'
// Error is updated in place, so that summaries see the same reason.
func Responses(vs []metrics.Verdict, ex map[string]sqltext.Extraction) []Response {
	rows := make([]Response, len(vs))
	for i := range vs {
		e := ex[vs[i].QuestionID]
		if !e.Found() && vs[i].Status == metrics.StatusPredError {
			vs[i].Error = sqltext.NoSQL
		}
		rows[i] = Response{Verdict: vs[i], PredSQL: e.SQL, Extraction: e.Style, ExtractionFinal: e.Final, ExtractionReason: e.Reason}
	}
	return rows
}

// Verdict is what a reader takes from one line of a verdict file.
type Verdict struct {
	QuestionID string
	// DBID is the question's database ("" when the line has none).
	DBID    string
	Correct bool
	// Status is the verdict's status ("" when the line has none, as
	// metrics.GoldRuns reads it: the gold ran).
	Status metrics.Status
	// SoftF1, RVESReward and Candidates are the values of eval --metrics
	// and of a run's candidates, nil when the line has none.
	SoftF1     *float64
	RVESReward *float64
	Candidates []metrics.CandidateMark
}

// File is a verdict file read whole.
type File struct {
	Path string
	// Benchmark is the one benchmark every line names ("" when none does:
	// a file written before eval recorded it).
	Benchmark string
	// Verdicts are the file's verdicts in file order, one per question.
	Verdicts []Verdict
}

// line is one line of a verdict file as Read decodes it.
type line struct {
	Benchmark  string   `json:"benchmark"`
	QuestionID *string  `json:"question_id"`
	DBID       string   `json:"db_id"`
	Correct    *bool    `json:"correct"`
	Status     string   `json:"status"`
	SoftF1     *float64 `json:"soft_f1"`
	RVES       *struct {
		Reward float64 `json:"reward"`
	} `json:"r_ves"`
	Candidates []metrics.CandidateMark `json:"candidates"`
}

// Decode reads a verdict file from r; path names it in errors. A line that
// is not a verdict object, lacks "question_id" or "correct", repeats a
// question, or names another benchmark than the first line is an error
// naming path:line, as is a file without verdicts.
func Decode(r io.Reader, path string) (*File, error) {
	out := &File{Path: path}
	firstLine := map[string]int{}
	err := jsonl.Each(r, path, jsonl.Options{What: `not a verdict line (want {"question_id": "...", "correct": true|false, ...}, as eval --out writes)`},
		func(n int, _ []byte, l *line) error {
			switch {
			case l.QuestionID == nil || *l.QuestionID == "":
				return fmt.Errorf("missing \"question_id\"")
			case l.Correct == nil:
				return fmt.Errorf("missing \"correct\"")
			}
			if len(firstLine) == 0 { // the first verdict
				out.Benchmark = l.Benchmark
			} else if l.Benchmark != out.Benchmark {
				return fmt.Errorf("verdict of benchmark %q in a file of benchmark %q; a verdict file holds one benchmark (eval --out writes one)", l.Benchmark, out.Benchmark)
			}
			id := *l.QuestionID
			if prev, dup := firstLine[id]; dup {
				return fmt.Errorf("question %q repeated (first on line %d)", id, prev)
			}
			firstLine[id] = n
			v := Verdict{QuestionID: id, DBID: l.DBID, Correct: *l.Correct, Status: metrics.Status(l.Status), SoftF1: l.SoftF1, Candidates: l.Candidates}
			if l.RVES != nil {
				v.RVESReward = &l.RVES.Reward
			}
			out.Verdicts = append(out.Verdicts, v)
			return nil
		})
	if err != nil {
		return nil, err
	}
	if len(out.Verdicts) == 0 {
		return nil, fmt.Errorf("%s: no verdicts", path)
	}
	return out, nil
}
