package metrics

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// csvSQLNames are the header names the SQL column is found by when no
// column is given, in order of preference.
var csvSQLNames = []string{"sql", "predicted_sql", "pred_sql", "prediction", "pred", "query"}

// parseCSV parses a csv prediction file (FormatCSV). column names the SQL
// column (a header name or a 1-based number); header is "yes", "no" or ""
// (auto). Errors name file:line.
func parseCSV(file string, data []byte, column, header string) ([]Prediction, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a spreadsheet's byte order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // rows are checked for the columns they need
	var rows [][]string
	var lines []int
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: invalid CSV in the row starting here (line %d): %v (a field holding commas, quotes or newlines must be in double quotes, its quotes doubled)", file, pe.StartLine, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := r.FieldPos(0)
		rows = append(rows, rec)
		lines = append(lines, line)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	num, numErr := strconv.Atoi(column)
	isNum := column != "" && numErr == nil
	if isNum && num < 1 {
		return nil, fmt.Errorf("%s: column %d: columns are numbered from 1", file, num)
	}
	hasHeader := false
	switch header {
	case "yes":
		hasHeader = true
	case "no":
	case "":
		switch {
		case isNum:
		case column != "":
			hasHeader = true
		default:
			for _, f := range rows[0] {
				f = strings.ToLower(strings.TrimSpace(f))
				if f == "question_id" || f == "db_id" || indexOf(csvSQLNames, f) >= 0 {
					hasHeader = true
				}
			}
		}
	default:
		return nil, fmt.Errorf("csv header option %q: want yes, no or empty (auto)", header)
	}
	if !hasHeader && column != "" && !isNum {
		return nil, fmt.Errorf("%s: column %q is a name, but the file is read without a header; give the column's number (from 1) instead", file, column)
	}
	sqlCol, qidCol, dbCol := 0, -1, -1
	if isNum {
		sqlCol = num - 1
	}
	if hasHeader {
		names := make([]string, len(rows[0]))
		for i, f := range rows[0] {
			names[i] = strings.TrimSpace(f)
			switch strings.ToLower(names[i]) {
			case "question_id":
				qidCol = i
			case "db_id":
				dbCol = i
			}
		}
		switch {
		case isNum:
		case column != "":
			if sqlCol = indexOf(names, column); sqlCol < 0 {
				return nil, fmt.Errorf("%s:%d: no column %q in the header (columns: %s); name the SQL column with the column option (eval --pred-column)", file, lines[0], column, strings.Join(names, ", "))
			}
		default:
			sqlCol = -1
			for _, want := range csvSQLNames {
				for i, n := range names {
					if sqlCol < 0 && strings.EqualFold(n, want) {
						sqlCol = i
					}
				}
			}
			if sqlCol < 0 {
				return nil, fmt.Errorf("%s:%d: no SQL column in the header (columns: %s; looked for %s); name it with the column option (eval --pred-column)", file, lines[0], strings.Join(names, ", "), strings.Join(csvSQLNames, ", "))
			}
		}
		rows, lines = rows[1:], lines[1:]
	}
	out := make([]Prediction, 0, len(rows))
	seen := map[string]int{}
	for i, rec := range rows {
		line := lines[i]
		if sqlCol >= len(rec) {
			return nil, fmt.Errorf("%s:%d: the row has %d columns; the SQL column (column %d) is missing", file, line, len(rec), sqlCol+1)
		}
		p := Prediction{Index: i, SQL: rec[sqlCol], Line: line}
		if qidCol >= 0 {
			if qidCol >= len(rec) || strings.TrimSpace(rec[qidCol]) == "" {
				return nil, fmt.Errorf("%s:%d: column \"question_id\" (column %d) is missing or empty", file, line, qidCol+1)
			}
			p.Index, p.QuestionID = -1, strings.TrimSpace(rec[qidCol])
			if prev, dup := seen[p.QuestionID]; dup {
				return nil, fmt.Errorf("%s:%d: duplicate question_id %q (first at line %d)", file, line, p.QuestionID, prev)
			}
			seen[p.QuestionID] = line
		}
		if dbCol >= 0 && dbCol < len(rec) {
			p.DBID = strings.TrimSpace(rec[dbCol])
		}
		out = append(out, p)
	}
	return out, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
