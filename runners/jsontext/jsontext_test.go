package jsontext

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// answer is a target shaped like the runners' answers.
type answer struct {
	Keywords  []string  `json:"keywords"`
	Tables    Selection `json:"tables"`
	Count     int       `json:"count"`
	Ratio     float64   `json:"ratio"`
	Unit      string    `json:"unit"`
	TableName string    `json:"tableName"`
	Valid     bool      `json:"valid"`
	SQL       string    `json:"sql"`
	Value     any       `json:"value"`
	Note      *string   `json:"note"`
}

func TestDecodeRealModelStyles(t *testing.T) {
	// Each answer is written from how the named model family formats JSON
	// answers (prose around fences, JSON mode, drafts in reasoning).
	tests := []struct {
		name string
		text string
		want answer
	}{
		{"qwen: prose then fenced json then prose",
			"To answer the question we need the singer and concert tables.\n\n```json\n{\"keywords\": [\"France\", \"1990\"]}\n```\n\nThese keywords may appear as values.",
			answer{Keywords: []string{"France", "1990"}}},
		{"llama: here is the JSON, trailing comma, no fence",
			"Here is the JSON object:\n\n{\n  \"keywords\": [\"France\", \"1990\",],\n}\n\nLet me know if you need anything else.",
			answer{Keywords: []string{"France", "1990"}}},
		{"gpt-4o: json mode, object only",
			`{"keywords":["Paris"],"count":2}`,
			answer{Keywords: []string{"Paris"}, Count: 2}},
		{"fence tag upper case and on the json's line",
			"```JSON {\"count\": 4}\n```",
			answer{Count: 4}},
		{"numbers as strings",
			`{"count": "3", "ratio": " 0.5 ", "valid": "yes"}`,
			answer{Count: 3, Ratio: 0.5, Valid: true}},
		{"number where a string is expected",
			`{"unit": 3.6, "sql": 42, "valid": 1}`,
			answer{Unit: "3.6", SQL: "42", Valid: true}},
		{"whole float for an int",
			`{"count": 3.0}`,
			answer{Count: 3}},
		{"snake case key for a camel case tag",
			`{"table_name": "singer"}`,
			answer{TableName: "singer"}},
		{"pascal case keys",
			`{"TableName": "singer", "Keywords": ["x"]}`,
			answer{TableName: "singer", Keywords: []string{"x"}}},
		{"draft then correction: the last object wins",
			"First try: {\"keywords\": [\"draft\"]}. Wait, the hint says otherwise. Final answer:\n```json\n{\"keywords\": [\"final\"]}\n```",
			answer{Keywords: []string{"final"}}},
		{"draft inside a think block",
			"<think>\nMaybe {\"keywords\": [\"draft\"]} ... no.\n</think>\n\n{\"keywords\": [\"final\"]}",
			answer{Keywords: []string{"final"}}},
		{"orphan closing think tag (opening tag was in the prompt)",
			"the user wants keywords {\"keywords\": [\"draft\"]}\n</think>\n```json\n{\"keywords\": [\"final\"]}\n```",
			answer{Keywords: []string{"final"}}},
		{"unclosed think block after the answer",
			"{\"count\": 1}\n<think>\nlet me double check {\"count\": 2}",
			answer{Count: 1}},
		{"closed think block after the answer",
			"{\"count\": 1}\n<think>\nlet me double check {\"count\": 2}\n</think>\nYes, one.",
			answer{Count: 1}},
		{"think block closed by another variant",
			"<thinking>\nMaybe {\"count\": 2}\n</think>\n{\"count\": 1}",
			answer{Count: 1}},
		{"a single string where a list is expected",
			`{"keywords": "France"}`,
			answer{Keywords: []string{"France"}}},
		{"a list where a string is expected",
			`{"unit": ["km/h"], "sql": ["a", "b"]}`,
			answer{Unit: "km/h", SQL: "a, b"}},
		{"one-element list for a number",
			`{"count": ["7"]}`,
			answer{Count: 7}},
		{"comments inside the object",
			"```json\n{\n  // tables the query reads\n  \"count\": 2, /* two of them */\n  \"unit\": \"m/s\" // speed\n}\n```",
			answer{Count: 2, Unit: "m/s"}},
		{"python literals",
			`{"valid": True, "note": None, "unit": "True"}`,
			answer{Valid: true, Unit: "True"}},
		{"raw newlines inside a string",
			"{\"sql\": \"SELECT name\nFROM singer\n\tWHERE age > 30\"}",
			answer{SQL: "SELECT name\nFROM singer\n\tWHERE age > 30"}},
		{"braces and escaped quotes inside strings",
			`{"sql": "SELECT '}' || \"{\" FROM t", "count": 1}`,
			answer{SQL: `SELECT '}' || "{" FROM t`, Count: 1}},
		{"braces in prose before the object",
			"Fill the {table} placeholder and {the columns. Answer: {\"count\": 5}",
			answer{Count: 5}},
		{"nested object values are not top-level candidates",
			`{"value": {"a": 1}, "count": 9}`,
			answer{Value: map[string]any{"a": 1.0}, Count: 9}},
		{"any field keeps the JSON kind",
			`{"value": "1990"}`,
			answer{Value: "1990"}},
		{"null leaves pointers nil and lists empty",
			`{"keywords": null, "note": null}`,
			answer{}},
		{"null for scalars (nullable strict-mode fields) gives zero values",
			`{"unit": null, "count": null, "ratio": null, "valid": null, "sql": "x"}`,
			answer{SQL: "x"}},
		{"unknown keys are ignored",
			`{"reasoning": "the question asks ...", "count": 2}`,
			answer{Count: 2}},
		{"selection star",
			`{"tables": "*"}`,
			answer{Tables: Selection{All: true}}},
		{"selection list with star",
			`{"tables": ["*"]}`,
			answer{Tables: Selection{All: true}}},
		{"selection all",
			`{"tables": "ALL"}`,
			answer{Tables: Selection{All: true}}},
		{"selection comma-separated string",
			`{"tables": "singer, concert"}`,
			answer{Tables: Selection{Items: []string{"singer", "concert"}}}},
		{"selection list",
			`{"tables": ["singer", "concert"]}`,
			answer{Tables: Selection{Items: []string{"singer", "concert"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got answer
			if err := Decode(tc.text, &got); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v; want %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	type item struct {
		Table   string   `json:"table"`
		Columns []string `json:"columns"`
	}
	type target struct {
		Tables []item `json:"tables"`
		Names  []string
		Count  int  `json:"count"`
		Size   uint `json:"size"`
		Sel    Selection
	}
	tests := []struct {
		name    string
		text    string
		noJSON  bool
		wantMsg string
	}{
		{"no json at all", "I cannot answer that question.", true, ""},
		{"answer cut inside the object", "```json\n{\"count\": 2, \"tables\": [\"a\", \"b", true, ""},
		{"top-level list only", `["a", "b"]`, true, ""},
		{"object inside reasoning only", "<think>{\"count\": 1}</think>\nThe count is one.", true, ""},
		{"object where a list of strings is expected", `{"names": {"a": 1}}`, false,
			"field names: want a list of strings, got an object"},
		{"word where an integer is expected", `{"count": "many"}`, false,
			`field count: want an integer, got a string: "many" is not a number`},
		{"fraction where an integer is expected", `{"count": 3.5}`, false,
			"field count: want an integer, got a number: 3.5 is not a whole number"},
		{"negative size", `{"size": -1}`, false,
			"field size: want a non-negative integer, got a number: -1 out of range for uint"},
		{"nested path", `{"tables": [{"table": "a", "columns": ["x"]}, {"table": "b", "columns": [{"c": 1}]}]}`, false,
			"field tables[1].columns[0]: want a string, got an object"},
		{"string where an object is expected", `{"tables": ["a"]}`, false,
			"field tables[0]: want an object, got a string"},
		{"selection of objects", `{"sel": [{"x": 1}]}`, false,
			`field sel: want a list of names or "*", got a list holding an object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got target
			err := Decode(tc.text, &got)
			if err == nil {
				t.Fatalf("got nil error; want one")
			}
			if tc.noJSON {
				if !errors.Is(err, ErrNoJSON) {
					t.Errorf("got %v; want ErrNoJSON", err)
				}
				return
			}
			if err.Error() != tc.wantMsg {
				t.Errorf("got %q; want %q", err.Error(), tc.wantMsg)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("got %T; want *FieldError", err)
			}
		})
	}
}

func TestDecodeMapAndTarget(t *testing.T) {
	var m struct {
		Tables map[string][]string `json:"tables"`
	}
	if err := Decode(`{"tables": {"singer": ["name", "age"], "concert": "year"}}`, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"singer": {"name", "age"}, "concert": {"year"}}
	if !reflect.DeepEqual(m.Tables, want) {
		t.Errorf("got %v; want %v", m.Tables, want)
	}
	var notPtr struct{}
	if err := Decode(`{}`, notPtr); err == nil {
		t.Errorf("got nil error for a non-pointer target; want one")
	}
}

func TestFindReturnsStandardJSON(t *testing.T) {
	got, err := Find("x {\"a\": [1, 2,], // c\n \"b\": None, \"s\": \"l1\nl2\"} y")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a": [1, 2], ` + "\n" + ` "b": null, "s": "l1\nl2"}`
	if got != want {
		t.Errorf("got %q; want %q", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Errorf("got invalid JSON %q", got)
	}
}

func TestFindBoundedOnManyBraces(t *testing.T) {
	// Thousands of unclosed braces before a valid object: only maxStarts
	// positions are tried, so the object after them is not found, but the
	// call returns (quickly) with ErrNoJSON instead of running quadratic.
	text := strings.Repeat("{", 5000) + `{"a": 1}`
	if _, err := Find(text); !errors.Is(err, ErrNoJSON) {
		t.Errorf("got %v; want ErrNoJSON", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"```json\n{\"keywords\": [\"a\"]}\n```",
		`{"count": "3", "tables": "*"}`,
		"<think>{}</think>{\"a\": [1,],}",
		"{\"sql\": \"a\nb\" /* c */}",
		`{"tables": [{"table": "t", "columns": ["c"]}]}`,
		"{{{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		obj, err := Find(s)
		if err != nil {
			if !errors.Is(err, ErrNoJSON) {
				t.Fatalf("Find: got %v; want ErrNoJSON", err)
			}
			return
		}
		if !json.Valid([]byte(obj)) {
			t.Fatalf("Find returned invalid JSON %q", obj)
		}
		var a answer
		_ = Decode(s, &a) // must not panic
		var sel struct {
			Tables Tables `json:"tables"`
		}
		_ = Decode(s, &sel)
		var m map[string]any
		if err := Decode(s, &m); err != nil {
			t.Fatalf("Decode into a map after Find succeeded: %v", err)
		}
	})
}

// TestHasKey: the object Decode reads is asked for its keys, as Decode
// matches them; prose, truncated JSON and an object under other keys have
// none of them.
func TestHasKey(t *testing.T) {
	tests := []struct {
		name, text string
		keys       []string
		want       bool
	}{
		{"fenced", "```json\n{\"keywords\": [\"France\"]}\n```", []string{"keywords"}, true},
		{"other case", "{\"Key_Words\": []}", []string{"keywords"}, true},
		{"one of several", "{\"relations\": []}", []string{"intent", "relations"}, true},
		{"wrong keys", "```json\n{\"answer\": [\"singer\"]}\n```", []string{"keywords"}, false},
		{"prose", "The singer table holds it.", []string{"keywords"}, false},
		{"truncated", "```json\n{\"keywords\": [\"Fra", []string{"keywords"}, false},
		{"key only in reasoning", "<think>{\"keywords\": []}</think>\n{\"answer\": 1}", []string{"keywords"}, false},
		{"last object read", "{\"keywords\": []} then {\"other\": 1}", []string{"keywords"}, false},
	}
	for _, tt := range tests {
		if got := HasKey(tt.text, tt.keys...); got != tt.want {
			t.Errorf("%s: HasKey(%q, %v) = %v; want %v", tt.name, tt.text, tt.keys, got, tt.want)
		}
	}
}
