package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/jsonl"
)

// PredFormat names a prediction file format.
type PredFormat string

// Prediction file formats.
const (
	// FormatSQLLines is Spider's: one prediction per line, text after a TAB
	// ignored (kept as the db id), line i (0-based) answering question i.
	// Every line is a prediction: a blank line is an empty prediction
	// (scored pred_error), not a separator; a final newline ends the last
	// line.
	FormatSQLLines PredFormat = "sql-lines"
	// FormatBIRDJSON is BIRD's: one JSON object mapping the question index
	// ("0", "1", ...) to "SQL\t----- bird -----\tdb_id". A value without
	// the separator is all SQL. The official scorer takes values in file
	// order and ignores the keys; here key k answers question k.
	//
	// A file that is a JSON list instead is read by position: element i
	// (from 0) answers question i, as line i of sql-lines does. An element
	// is the SQL string (BIRD's separator and db_id allowed), or an object
	// with "sql" (and optionally "db_id"), or with "question_id" and "sql"
	// (matched by id, as jsonl is).
	FormatBIRDJSON PredFormat = "bird-json"
	// FormatJSONL is one JSON object per line with "question_id" (string or
	// integer) and "sql", optionally "db_id" and "response_prefix" (the
	// start of a statement the record's prompt ended with, such as
	// "SELECT"); blank lines are skipped.
	FormatJSONL PredFormat = "jsonl"
	// FormatCSV is a CSV file (RFC 4180: quoted fields may hold commas,
	// quotes and newlines, so one prediction may span several lines), as
	// pipelines such as DIN-SQL publish. The SQL is the column named by
	// ReadOptions.Column (a header name, or a 1-based column number for a
	// file without header; default: the header's "sql", "SQL",
	// "predicted_sql" or "prediction", else column 1). With a header
	// holding question_id, rows are matched by question id, else row i
	// (0-based, header excluded) answers question i.
	FormatCSV PredFormat = "csv"
)

// PredFormats lists the prediction formats.
var PredFormats = []PredFormat{FormatSQLLines, FormatBIRDJSON, FormatJSONL, FormatCSV}

// ParsePredFormat returns the format named s.
func ParsePredFormat(s string) (PredFormat, error) {
	for _, f := range PredFormats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown prediction format %q (want sql-lines, bird-json, jsonl or csv)", s)
}

// FormatForPath guesses a file's format from its extension: .jsonl is
// jsonl, .json is bird-json, .csv is csv, anything else sql-lines.
func FormatForPath(path string) PredFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl":
		return FormatJSONL
	case ".csv":
		return FormatCSV
	case ".json":
		return FormatBIRDJSON
	}
	return FormatSQLLines
}

// BIRDSeparator separates the SQL from the db id in BIRD prediction files.
const BIRDSeparator = "\t----- bird -----\t"

// Prediction is one predicted SQL read from a file.
type Prediction struct {
	// Index is the question's 0-based benchmark position, or -1 when the
	// file names questions by QuestionID (jsonl).
	Index      int
	QuestionID string
	// DBID is the database id the file gives, if any.
	DBID string
	SQL  string
	// Response is the model's raw text when the file was read with
	// ReadOptions.ResponseField; SQL is then empty until the caller
	// extracts it (t2sbench eval runs sqltext.ExtractSQL).
	Response string
	// ResponsePrefix is a jsonl record's "response_prefix" field: the
	// start of a statement its prompt ended with ("SELECT"), which the
	// response continues; nil when the record has none. It overrides the
	// eval --response-prefix flag for its record ("" turns it off).
	ResponsePrefix *string
	// Line is the 1-based line of the prediction in its file.
	Line int
	// Invalid, when not empty, says why the file's value for this question
	// is not a SQL string (JSON null, a number, a list, an object): the
	// question is scored pred_error with this reason, the rest of the file
	// normally. (BIRD's official scorer turns such a value into the SQL " "
	// run on financial, which scores 0; DAMO-ConvAI@483554e
	// bird/llm/src/evaluation.py package_sqls l.51-73.)
	Invalid string
	// TabCut is set (sql-lines) when the text after a TAB is not a database
	// id but more SQL: a TAB inside the prediction. It holds the text that
	// was dropped.
	TabCut string
}

// nonString returns the reason a JSON value that is not a string cannot be
// a prediction, naming its type and (truncated) text.
func nonString(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	kind := "a non-string value"
	switch {
	case t == "null":
		kind = "null"
	case t == "true" || t == "false":
		kind = "a boolean"
	case strings.HasPrefix(t, "["):
		kind = "a list"
	case strings.HasPrefix(t, "{"):
		kind = "an object"
	case t != "" && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')):
		kind = "a number"
	}
	return fmt.Sprintf("prediction is %s (%s), not a SQL string", kind, truncate(t, 40))
}

// predString decodes a prediction value: a JSON string gives the SQL; any
// other JSON value gives the reason it is not one (nonString).
func predString(raw json.RawMessage) (sql, invalid string) {
	// Unmarshal accepts null for a string (leaving it empty): refuse it.
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", nonString(raw)
	}
	if err := json.Unmarshal(raw, &sql); err != nil {
		return "", nonString(raw)
	}
	return sql, ""
}

// ReadOptions configures ReadPredictionsWith and ParsePredictionsWith.
type ReadOptions struct {
	// ResponseField, for jsonl only, names the field that holds each
	// question's raw model response instead of "sql" (which is then not
	// required). A dotted path (response.choices.0.message.content) walks
	// nested objects and arrays. The value must be a string, null (an
	// empty response) or a chat message object with a string "content".
	ResponseField string
	// Column, for csv only, names the column holding the SQL: a header
	// name, or a 1-based column number (then the file has no header
	// unless Header says so). Empty: see FormatCSV.
	Column string
	// Header, for csv only, says whether the first row is a header:
	// "yes", "no" or "" (auto: yes unless Column is a number).
	Header string
}

// ReadPredictions reads a prediction file.
func ReadPredictions(path string, f PredFormat) ([]Prediction, error) {
	return ReadPredictionsWith(path, f, ReadOptions{})
}

// ReadPredictionsWith reads a prediction file with options.
func ReadPredictionsWith(path string, f PredFormat, opt ReadOptions) ([]Prediction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read predictions: %w", err)
	}
	return ParsePredictionsWith(path, data, f, opt)
}

// ParsePredictionsWith is ParsePredictions with options.
func ParsePredictionsWith(file string, data []byte, f PredFormat, opt ReadOptions) ([]Prediction, error) {
	if f == FormatCSV {
		if opt.ResponseField != "" {
			return nil, fmt.Errorf("a response field needs the jsonl format, not %q", f)
		}
		return parseCSV(file, data, opt.Column, opt.Header)
	}
	if opt.Column != "" || opt.Header != "" {
		return nil, fmt.Errorf("a column or header option needs the csv format, not %q", f)
	}
	if opt.ResponseField == "" {
		return ParsePredictions(file, data, f)
	}
	if f != FormatJSONL {
		return nil, fmt.Errorf("a response field needs the jsonl format, not %q", f)
	}
	return parseJSONL(file, data, opt.ResponseField)
}

// ParsePredictions parses data (named file in errors) in format f. Errors
// name file:line.
func ParsePredictions(file string, data []byte, f PredFormat) ([]Prediction, error) {
	switch f {
	case FormatSQLLines:
		return parseSQLLines(data), nil
	case FormatBIRDJSON:
		return parseBIRDJSON(file, data)
	case FormatJSONL:
		return parseJSONL(file, data, "")
	case FormatCSV:
		return parseCSV(file, data, "", "")
	}
	return nil, fmt.Errorf("unknown prediction format %q (want sql-lines, bird-json, jsonl or csv)", f)
}

func parseSQLLines(data []byte) []Prediction {
	if len(data) == 0 {
		return nil
	}
	s := string(bytes.TrimSuffix(data, []byte("\n")))
	lines := strings.Split(s, "\n")
	out := make([]Prediction, len(lines))
	for i, l := range lines {
		l = pyStrip(l)
		sql, rest, _ := strings.Cut(l, "\t")
		db, _, _ := strings.Cut(rest, "\t")
		db = pyStrip(db)
		p := Prediction{Index: i, SQL: sql, DBID: db, Line: i + 1}
		if strings.ContainsFunc(db, unicode.IsSpace) || sqlKeywordAfterTab[strings.ToUpper(db)] {
			// "SELECT a\tFROM t": a TAB inside the SQL, not SQL<TAB>db_id.
			p.DBID, p.TabCut = "", pyStrip(rest)
		}
		out[i] = p
	}
	return out
}

// sqlKeywordAfterTab are words that, alone after a TAB, are more SQL and
// not a database id ("SELECT a\tFROM\tt").
var sqlKeywordAfterTab = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "ORDER": true, "BY": true, "HAVING": true,
	"LIMIT": true, "JOIN": true, "INNER": true, "LEFT": true, "ON": true, "AND": true, "OR": true, "AS": true,
	"UNION": true, "INTERSECT": true, "EXCEPT": true, "WITH": true, "DISTINCT": true, "CASE": true, "WHEN": true,
	"THEN": true, "ELSE": true, "END": true, "NOT": true, "IN": true,
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

func parseBIRDJSON(file string, data []byte) ([]Prediction, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(off int64, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, lineAt(data, off), fmt.Sprintf(format, args...))
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(se.Offset, "invalid JSON: %v", err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(int64(len(data)), "unexpected end of JSON input")
		}
		return fail(dec.InputOffset(), "invalid JSON: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); ok && d == '[' {
		return parseJSONList(file, data, dec, fail, syntax)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail(dec.InputOffset(), "want a JSON object mapping question index to SQL, or a JSON list of SQL strings in question order, got %v", tok)
	}
	var out []Prediction
	seen := map[int]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := tok.(string)
		line := lineAt(data, dec.InputOffset())
		idx, err := strconv.Atoi(key)
		if err != nil || idx < 0 || strconv.Itoa(idx) != key {
			return nil, fmt.Errorf("%s:%d: key %q is not a question index (a non-negative integer)", file, line, key)
		}
		if prev, dup := seen[idx]; dup {
			return nil, fmt.Errorf("%s:%d: duplicate key %q (first at line %d)", file, line, key, prev)
		}
		seen[idx] = line
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntax(err)
		}
		p := Prediction{Index: idx, Line: line}
		p.SQL, p.DBID, p.Invalid = birdValue(raw)
		out = append(out, p)
	}
	if err := closeJSON(dec, "object", fail, syntax); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// parseJSONList reads the elements of a JSON list whose '[' dec has read
// (see FormatBIRDJSON): element i answers question i; an object element
// with "question_id" answers that question.
func parseJSONList(file string, data []byte, dec *json.Decoder, fail func(int64, string, ...any) error, syntax func(error) error) ([]Prediction, error) {
	var out []Prediction
	seen := map[string]int{}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntax(err)
		}
		// The element's first line: its end offset less its own lines.
		line := lineAt(data, dec.InputOffset()) - bytes.Count(raw, []byte{'\n'})
		p := Prediction{Index: i, Line: line}
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
			var rec predRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				return nil, fmt.Errorf("%s:%d: element %d: %w", file, line, i, err)
			}
			if rec.SQL == nil {
				return nil, fmt.Errorf("%s:%d: element %d: missing field \"sql\" (an element is a SQL string or an object with \"sql\")", file, line, i)
			}
			p.SQL, p.Invalid = predString(rec.SQL)
			p.DBID = rec.DBID
			if rec.QID != nil {
				qid, err := questionID(rec.QID)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: element %d: field \"question_id\": %w", file, line, i, err)
				}
				if prev, dup := seen[qid]; dup {
					return nil, fmt.Errorf("%s:%d: duplicate question_id %q (first at line %d)", file, line, qid, prev)
				}
				seen[qid] = line
				p.Index, p.QuestionID = -1, qid
			}
		} else {
			p.SQL, p.DBID, p.Invalid = birdValue(raw)
		}
		out = append(out, p)
	}
	if err := closeJSON(dec, "list", fail, syntax); err != nil {
		return nil, err
	}
	return out, nil
}

// birdValue decodes a bird-json prediction value as predString does,
// splitting a SQL string that holds BIRDSeparator into its SQL and
// database id.
func birdValue(raw json.RawMessage) (sql, dbID, invalid string) {
	sql, invalid = predString(raw)
	if s, db, ok := strings.Cut(sql, BIRDSeparator); ok {
		sql, dbID = s, strings.TrimSpace(db)
	}
	return sql, dbID, invalid
}

// closeJSON reads the closing delimiter of the top-level JSON value, a
// JSON object or list as what says, and refuses anything after it.
func closeJSON(dec *json.Decoder, what string, fail func(int64, string, ...any) error, syntax func(error) error) error {
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(dec.InputOffset(), "trailing data after the JSON "+what)
	}
	return nil
}

// predRecord is a prediction written as a JSON object: a jsonl line, or
// an object element of a bird-json list.
type predRecord struct {
	QID  json.RawMessage `json:"question_id"`
	SQL  json.RawMessage `json:"sql"`
	DBID string          `json:"db_id"`
	// ResponsePrefix is the start of a statement the record's prompt
	// ended with (jsonl only).
	ResponsePrefix *string `json:"response_prefix"`
}

// parseJSONL parses a jsonl file; a non-empty responseField is read as
// each line's raw response instead of "sql".
func parseJSONL(file string, data []byte, responseField string) ([]Prediction, error) {
	var out []Prediction
	seen := map[string]int{}
	err := jsonl.Each(bytes.NewReader(data), file, jsonl.Options{What: "invalid JSON object"}, func(line int, text []byte, rec *predRecord) error {
		qid, err := questionID(rec.QID)
		if err != nil {
			return fmt.Errorf("field \"question_id\": %w", err)
		}
		p := Prediction{Index: -1, QuestionID: qid, DBID: rec.DBID, Line: line, ResponsePrefix: rec.ResponsePrefix}
		if responseField != "" {
			if p.Response, err = responseText(string(text), responseField); err != nil {
				return fmt.Errorf("field %q: %w", responseField, err)
			}
		} else if rec.SQL == nil {
			return fmt.Errorf("missing field \"sql\"")
		} else {
			p.SQL, p.Invalid = predString(rec.SQL)
		}
		if prev, dup := seen[qid]; dup {
			return fmt.Errorf("duplicate question_id %q (first at line %d)", qid, prev)
		}
		seen[qid] = line
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// responseText returns the raw response held at the dotted path of the
// JSON object line: a string, "" for null, or a chat message's "content".
func responseText(line, path string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		return "", err
	}
	keys := strings.Split(path, ".")
	if m, ok := v.(map[string]any); ok {
		if _, whole := m[path]; whole {
			keys = []string{path} // a key that itself holds a dot
		}
	}
	for _, key := range keys {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[key]
			if !ok {
				return "", errors.New("missing")
			}
			v = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("no element %q in an array of %d", key, len(x))
			}
			v = x[i]
		default:
			return "", fmt.Errorf("%q is inside a %T, not an object", key, v)
		}
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case map[string]any:
		if c, ok := x["content"].(string); ok {
			return c, nil
		}
	}
	b, _ := json.Marshal(v)
	return "", fmt.Errorf("want a string (the raw model response), got %s", truncate(string(b), 40))
}

func questionID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("missing")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", errors.New("empty")
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := n.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
	}
	return "", fmt.Errorf("want a string or an integer, got %s", truncate(string(raw), 40))
}

// AlignOptions configures AlignPredictions.
type AlignOptions struct {
	// AllowPartial accepts a file with fewer predictions than questions:
	// the questions without one are not scored and are listed.
	AllowPartial bool
	// DropExtra ignores predictions for questions the benchmark does not
	// hold (a benchmark loaded with a limit); otherwise they are errors.
	DropExtra bool
	// AllowDBMismatch scores a file some of whose predictions name a
	// database other than their question's (each on its question's
	// database), listing them in Aligned.DBMismatches and Warnings;
	// otherwise the file is refused with a *DBMismatchError.
	AllowDBMismatch bool
}

// DBMismatch is a prediction whose file gives a database id (sql-lines'
// text after the TAB, bird-json's text after BIRDSeparator, a jsonl
// "db_id" field, a csv db_id column) other than its question's.
type DBMismatch struct {
	// Line is the prediction's 1-based line in its file.
	Line       int    `json:"line"`
	QuestionID string `json:"question_id"`
	// Want is the question's database id, Got the file's.
	Want string `json:"want"`
	Got  string `json:"got"`
}

// dbMismatchShown is how many mismatches a DBMismatchError names.
const dbMismatchShown = 5

// DBMismatchError refuses a prediction file some of whose predictions
// name a database other than their question's: a file with a line missing
// or added (each later prediction then answers the next or previous
// question), or one made for another benchmark or split.
type DBMismatchError struct {
	File      string
	Benchmark string
	// Mismatches are all of them, in file order.
	Mismatches []DBMismatch
	// Predictions counts the file's predictions matched to a question,
	// Questions the benchmark's questions.
	Predictions, Questions int
}

func (e *DBMismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d predictions name a database other than their question's, so the file is not scored: a line may be missing or added (every prediction after it then answers another question), or the file was made for another benchmark or split",
		e.File, len(e.Mismatches), e.Predictions)
	for i, m := range e.Mismatches {
		if i == dbMismatchShown {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Mismatches)-dbMismatchShown)
			break
		}
		fmt.Fprintf(&b, "\n  %s:%d: question %s is on database %q; the prediction names %q", e.File, m.Line, m.QuestionID, m.Want, m.Got)
	}
	if e.Predictions != e.Questions {
		fmt.Fprintf(&b, "\n  the file has %d predictions for the %d questions of %s", e.Predictions, e.Questions, e.Benchmark)
	}
	b.WriteString("\n  to score it anyway, each prediction on its question's database, pass --allow-db-mismatch")
	return b.String()
}

// Aligned is a prediction file matched to a benchmark.
type Aligned struct {
	// Preds maps Example.Index to its predicted SQL.
	Preds map[int]string
	// Invalid maps Example.Index to the reason the file's value for that
	// question is not a SQL string (Prediction.Invalid); those questions
	// are in Preds too, with an empty SQL, and ScoreAligned scores them
	// pred_error with the reason.
	Invalid map[int]string
	// Unscored lists, in benchmark order, the ids of questions without a
	// prediction.
	Unscored []string
	// Warnings lists non-fatal findings (a prediction's db id differing
	// from its question's, with AllowDBMismatch; the question's database
	// is used).
	Warnings []string
	// DBMismatches lists, with AllowDBMismatch, the predictions that
	// name a database other than their question's.
	DBMismatches []DBMismatch
}

// predWhat names the question a prediction is for: "question index 3" or
// "question_id \"AirCraft/1\"".
func predWhat(p Prediction) string {
	if p.Index < 0 {
		return fmt.Sprintf("question_id %q", p.QuestionID)
	}
	return fmt.Sprintf("question index %d", p.Index)
}

// idForm shows the form of b's question ids, with its first question's as
// the example, for a prediction naming a question b does not hold:
// ", whose question ids look like \"AirCraft/1\" (its first question's)",
// or the range of question indexes for a positional one.
func idForm(b *datasets.Benchmark, p Prediction) string {
	if len(b.Examples) == 0 {
		return ""
	}
	if p.Index >= 0 {
		return fmt.Sprintf(", whose question indexes run from %d to %d", b.Examples[0].Index, b.Examples[len(b.Examples)-1].Index)
	}
	return fmt.Sprintf(", whose question ids look like %q (its first question's)", b.Examples[0].ID)
}

// AlignPredictions matches predictions read from file to b's questions:
// by position for sql-lines and bird-json, by question id for jsonl (and
// csv with a question_id column). A prediction whose file gives a database
// id checks it against its question's: a file with any that differ is
// refused with a *DBMismatchError unless opt.AllowDBMismatch. A file whose
// count differs from the benchmark's is an error naming both counts unless
// opt allows it.
func AlignPredictions(file string, b *datasets.Benchmark, preds []Prediction, opt AlignOptions) (Aligned, error) {
	byIndex := make(map[int]int, len(b.Examples)) // Example.Index -> position
	byID := make(map[string]int, len(b.Examples))
	for i, ex := range b.Examples {
		byIndex[ex.Index] = i
		byID[ex.ID] = i
	}
	a := Aligned{Preds: make(map[int]string, len(preds))}
	var dropped *Prediction // the first prediction DropExtra ignored
	for _, p := range preds {
		pos, ok := 0, false
		if p.Index >= 0 {
			pos, ok = byIndex[p.Index]
		} else {
			pos, ok = byID[p.QuestionID]
		}
		if !ok {
			if opt.DropExtra {
				if dropped == nil {
					dropped = &p
				}
				continue
			}
			if p.Index >= 0 && len(preds) > len(b.Examples) {
				return Aligned{}, fmt.Errorf("%s: %d predictions for %d questions of %s: more predictions than questions (line %d is the first past the last question); check that the benchmark, split and data folder are the ones the predictions were made for, or remove the extra lines",
					file, len(preds), len(b.Examples), b.Name, p.Line)
			}
			return Aligned{}, fmt.Errorf("%s:%d: %s is not in benchmark %s (%d questions)%s; check that the benchmark and split are the ones the predictions were made for", file, p.Line, predWhat(p), b.Name, len(b.Examples), idForm(b, p))
		}
		ex := b.Examples[pos]
		if _, dup := a.Preds[ex.Index]; dup {
			return Aligned{}, fmt.Errorf("%s:%d: second prediction for question %s", file, p.Line, ex.ID)
		}
		a.Preds[ex.Index] = p.SQL
		if p.Invalid != "" {
			if a.Invalid == nil {
				a.Invalid = map[int]string{}
			}
			a.Invalid[ex.Index] = p.Invalid
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s:%d: question %s: %s; scored pred_error", file, p.Line, ex.ID, p.Invalid))
		}
		if p.TabCut != "" {
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s:%d: question %s: the prediction holds a TAB; only the text before it is the SQL, as in Spider's official format (SQL<TAB>db_id), so %q is ignored", file, p.Line, ex.ID, truncate(p.TabCut, 60)))
		}
		if p.DBID != "" && p.DBID != ex.DBID {
			a.DBMismatches = append(a.DBMismatches, DBMismatch{Line: p.Line, QuestionID: ex.ID, Want: ex.DBID, Got: p.DBID})
		}
	}
	if len(a.DBMismatches) > 0 {
		if !opt.AllowDBMismatch {
			return Aligned{}, &DBMismatchError{File: file, Benchmark: b.Name, Mismatches: a.DBMismatches, Predictions: len(a.Preds), Questions: len(b.Examples)}
		}
		w := []string{fmt.Sprintf("%s: %d of %d predictions name a database other than their question's; each is scored on its question's database (--allow-db-mismatch)", file, len(a.DBMismatches), len(a.Preds))}
		for _, m := range a.DBMismatches {
			w = append(w, fmt.Sprintf("%s:%d: prediction names database %q, question %s is on %q (scored on %q)", file, m.Line, m.Got, m.QuestionID, m.Want, m.Want))
		}
		a.Warnings = append(w, a.Warnings...)
	}
	if len(a.Preds) == 0 && dropped != nil {
		return Aligned{}, fmt.Errorf("%s: none of the file's %d predictions answers one of the %d questions of %s scored (--limit)%s: line %d gives %s",
			file, len(preds), len(b.Examples), b.Name, idForm(b, *dropped), dropped.Line, predWhat(*dropped))
	}
	if len(a.Preds) != len(b.Examples) {
		if !opt.AllowPartial {
			n := len(a.Preds)
			first := n > 0
			for _, ex := range b.Examples[:n] {
				if _, ok := a.Preds[ex.Index]; !ok {
					first = false
					break
				}
			}
			if first {
				return Aligned{}, fmt.Errorf("%s: %d predictions for %d questions of %s: fewer predictions than questions; they answer the first %d questions (a run with --limit %d?): pass --limit %d to score just those, or pass --allow-partial to score them with the rest listed as unscored",
					file, n, len(b.Examples), b.Name, n, n, n)
			}
			return Aligned{}, fmt.Errorf("%s: %d predictions for %d questions of %s: fewer predictions than questions; to score only the questions that have one (the rest listed as unscored), pass --allow-partial (or --limit N when the file answers the first N questions)",
				file, n, len(b.Examples), b.Name)
		}
		for _, ex := range b.Examples {
			if _, ok := a.Preds[ex.Index]; !ok {
				a.Unscored = append(a.Unscored, ex.ID)
			}
		}
	}
	return a, nil
}
