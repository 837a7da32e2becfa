package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/internal/jsonl"
)

// GoldOverlay is a set of corrected gold SQL queries, by question id, read
// from an overlay file (ReadGoldOverlay). Applied to a benchmark
// (ApplyTo) it gives a second gold: the same questions, databases and
// order, with the listed questions' gold replaced.
//
// The file is JSON lines, one correction a line:
//
//	{"question_id": 1471, "sql": "SELECT ...", "note": "counts customers, not rows"}
//
// question_id is the benchmark's question id (Example.ID: BIRD's
// question_id, Spider's and the mini benchmark's ids), a string or an
// integer; sql is the corrected gold; note, optional, says why. Blank
// lines are skipped. A line that is not such an object, an empty id or
// SQL, an id given twice, or (in ApplyTo) an id the benchmark does not
// have is an error naming the file and line.
type GoldOverlay struct {
	// Path is the file the overlay was read from.
	Path string
	// SQL maps question id to the corrected gold SQL.
	SQL map[string]string
	// Line maps question id to the line it was read from.
	Line map[string]int
}

// overlayLine is one line of an overlay file.
type overlayLine struct {
	QuestionID json.RawMessage `json:"question_id"`
	SQL        *string         `json:"sql"`
	Note       string          `json:"note"`
}

// ReadGoldOverlay reads an overlay file (see GoldOverlay).
func ReadGoldOverlay(path string) (*GoldOverlay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: gold overlay: %w", err)
	}
	return ParseGoldOverlay(path, data)
}

// ParseGoldOverlay parses the content of an overlay file; path names it
// in errors.
func ParseGoldOverlay(path string, data []byte) (*GoldOverlay, error) {
	o := &GoldOverlay{Path: path, SQL: map[string]string{}, Line: map[string]int{}}
	err := jsonl.Each(bytes.NewReader(data), path, jsonl.Options{Strict: true, What: `not an overlay line (want {"question_id": ID, "sql": "...", "note": "..."})`},
		func(line int, _ []byte, l *overlayLine) error {
			id, err := overlayID(l.QuestionID)
			if err != nil {
				return err
			}
			if l.SQL == nil || strings.TrimSpace(*l.SQL) == "" {
				return fmt.Errorf("question %q: missing or empty \"sql\"", id)
			}
			if prev, dup := o.Line[id]; dup {
				return fmt.Errorf("question %q corrected twice (first on line %d)", id, prev)
			}
			o.SQL[id], o.Line[id] = *l.SQL, line
			return nil
		})
	if err != nil {
		return nil, err
	}
	if len(o.SQL) == 0 {
		return nil, fmt.Errorf("%s: no corrections (want JSON lines {\"question_id\": ID, \"sql\": \"...\"})", path)
	}
	return o, nil
}

// overlayID reads a question_id: a non-empty string or an integer.
func overlayID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("missing \"question_id\"")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("empty \"question_id\"")
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
	}
	return "", fmt.Errorf("\"question_id\" %s is neither a string nor an integer", raw)
}

// ApplyTo returns a copy of b whose listed questions have the overlay's
// gold (b itself is unchanged; the copy shares its engine). Split names
// the overlay. An id b does not have is an error naming the overlay's
// line, unless limited says b holds only the first questions of its
// benchmark (LoadOptions.Limit): such ids are then skipped, and counted.
func (o *GoldOverlay) ApplyTo(b *Benchmark, limited bool) (*Benchmark, int, error) {
	pos := make(map[string]int, len(b.Examples))
	for i, e := range b.Examples {
		pos[e.ID] = i
	}
	out := *b
	out.Examples = append([]Example(nil), b.Examples...)
	skipped := 0
	for id, sql := range o.SQL {
		i, ok := pos[id]
		if !ok && limited {
			skipped++
			continue
		}
		if !ok {
			return nil, 0, fmt.Errorf("%s:%d: question %q is not a question of %s (%d questions, ids like %q)", o.Path, o.Line[id], id, b.Name, len(b.Examples), firstID(b))
		}
		out.Examples[i].GoldSQL = sql
	}
	out.Split = strings.TrimPrefix(b.Split+"+", "+") + "overlay " + o.Path
	return &out, skipped, nil
}

func firstID(b *Benchmark) string {
	if len(b.Examples) == 0 {
		return ""
	}
	return b.Examples[0].ID
}

// CheckSecondGold checks that b can be a second gold of a: every question
// of a (by id) is in b, on the same database, as in two versions of one
// benchmark, a benchmark and its overlay, or a subset of a benchmark
// (BIRD mini-dev, whose ids are BIRD dev's) and the benchmark; b's other
// questions are not a's and play no part. A question of a missing from b,
// or on another database, is an error naming it. It returns the ids of
// a's questions whose gold SQL differs in b (GoldChanges, white space
// ignored), in a's order.
func CheckSecondGold(a, b *Benchmark) ([]string, error) {
	in := make(map[string]Example, len(b.Examples))
	for _, e := range b.Examples {
		in[e.ID] = e
	}
	for _, e := range a.Examples {
		f, ok := in[e.ID]
		switch {
		case !ok:
			return nil, fmt.Errorf("datasets: question %q of %s is not in the second gold %s (%d questions); the second gold must hold every question of the first", e.ID, a.Name, b.Split, len(b.Examples))
		case f.DBID != e.DBID:
			return nil, fmt.Errorf("datasets: question %q is on database %q in %s and %q in the second gold %s; they are not the same question", e.ID, e.DBID, a.Name, f.DBID, b.Split)
		}
	}
	changes, _ := GoldChanges(b, a)
	ids := make([]string, len(changes))
	for i, c := range changes {
		ids[i] = c.ID
	}
	return ids, nil
}
