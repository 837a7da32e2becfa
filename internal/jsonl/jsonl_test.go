package jsonl

import (
	"errors"
	"strings"
	"testing"
)

type rec struct {
	ID string `json:"id"`
}

// TestEach: blank lines are skipped and numbered, values decode in order,
// and every error names the file and the line it is on.
func TestEach(t *testing.T) {
	var got []string
	var lines []int
	err := Each(strings.NewReader("{\"id\": \"a\"}\n\n  \n {\"id\": \"b\", \"x\": 1} \n"), "f.jsonl", Options{}, func(line int, _ []byte, r *rec) error {
		got = append(got, r.ID)
		lines = append(lines, line)
		return nil
	})
	if err != nil || strings.Join(got, ",") != "a,b" || lines[0] != 1 || lines[1] != 4 {
		t.Fatalf("Each = %v, %v at lines %v; want a,b at lines 1, 4", err, got, lines)
	}
	errStop := errors.New("stop")
	for _, tc := range []struct {
		name, in string
		o        Options
		fn       func(int, []byte, *rec) error
		want     string
	}{
		{"syntax", "{\"id\": \"a\"}\n{\"id\": \n", Options{What: "not a record"}, nil, "f.jsonl:2: not a record: "},
		{"trailing", "{\"id\": \"a\"} x\n", Options{}, nil, "f.jsonl:1: text after the JSON value on the line"},
		{"two values", "{\"id\": \"a\"} {}\n", Options{Strict: true}, nil, "f.jsonl:1: text after the JSON value on the line"},
		{"a closing brace", "{\"id\": \"a\"}}\n", Options{}, nil, "f.jsonl:1: text after the JSON value on the line"},
		{"strict unknown", "\n{\"id\": \"a\", \"x\": 1}\n", Options{Strict: true}, nil, "f.jsonl:2: json: unknown field \"x\""},
		{"callback", "{}\n{}\n{}\n", Options{}, func(line int, _ []byte, _ *rec) error {
			if line == 3 {
				return errStop
			}
			return nil
		}, "f.jsonl:3: stop"},
	} {
		fn := tc.fn
		if fn == nil {
			fn = func(int, []byte, *rec) error { return nil }
		}
		err := Each(strings.NewReader(tc.in), "f.jsonl", tc.o, fn)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: Each = %v; want an error starting %q", tc.name, err, tc.want)
		}
		if tc.name == "callback" && !errors.Is(err, errStop) {
			t.Errorf("callback: Each = %v; want it to wrap fn's error", err)
		}
	}
}
