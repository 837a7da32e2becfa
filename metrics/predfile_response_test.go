package metrics

import (
	"strings"
	"testing"
)

func TestParseJSONLResponseField(t *testing.T) {
	tests := []struct {
		name, field, line string
		want              string // the Response read; ignored when err is set
		err               string // a substring of the error, "" for none
	}{
		{"string field", "response", "{\"question_id\": \"q1\", \"response\": \"```sql\\nSELECT 1\\n```\"}", "```sql\nSELECT 1\n```", ""},
		{"sql not required", "output", `{"question_id": 3, "output": "SELECT 1"}`, "SELECT 1", ""},
		{"null is an empty response", "response", `{"question_id": "q1", "response": null}`, "", ""},
		{"empty string", "response", `{"question_id": "q1", "response": ""}`, "", ""},
		{"chat message object", "message", `{"question_id": "q1", "message": {"role": "assistant", "content": "SELECT 2"}}`, "SELECT 2", ""},
		{"dotted path", "response.choices.0.message.content", `{"question_id": "q1", "response": {"choices": [{"message": {"content": "SELECT 3"}}]}}`, "SELECT 3", ""},
		{"key holding a dot", "model.output", `{"question_id": "q1", "model.output": "SELECT 4"}`, "SELECT 4", ""},
		{"missing field", "response", `{"question_id": "q1", "sql": "SELECT 1"}`, "", `pred.jsonl:1: field "response": missing`},
		{"number", "response", `{"question_id": "q1", "response": 5}`, "", `pred.jsonl:1: field "response": want a string (the raw model response), got 5`},
		{"index out of range", "choices.1", `{"question_id": "q1", "choices": ["a"]}`, "", `no element "1" in an array of 1`},
		{"path through a string", "response.text", `{"question_id": "q1", "response": "x"}`, "", `"text" is inside a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ParsePredictionsWith("pred.jsonl", []byte(tt.line+"\n"), FormatJSONL, ReadOptions{ResponseField: tt.field})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 || ps[0].Response != tt.want || ps[0].SQL != "" || ps[0].Line != 1 {
				t.Fatalf("got %+v; want one prediction with Response %q, no SQL, line 1", ps, tt.want)
			}
		})
	}
}

func TestParseResponseFieldNeedsJSONL(t *testing.T) {
	_, err := ParsePredictionsWith("pred.sql", []byte("SELECT 1\n"), FormatSQLLines, ReadOptions{ResponseField: "response"})
	if err == nil || !strings.Contains(err.Error(), "jsonl") {
		t.Fatalf("err = %v; want one saying a response field needs jsonl", err)
	}
}

func TestParseJSONLResponsePrefix(t *testing.T) {
	prefix := func(s string) *string { return &s }
	tests := []struct {
		name, line string
		want       *string // nil: the record names no prefix
		err        string  // a substring of the error, "" for none
	}{
		{"no field", `{"question_id": 1, "sql": "count(*) FROM t"}`, nil, ""},
		{"a prefix", `{"question_id": 1, "sql": "count(*) FROM t", "response_prefix": "SELECT"}`, prefix("SELECT"), ""},
		{"empty turns the flag off", `{"question_id": 1, "sql": "SELECT 1", "response_prefix": ""}`, prefix(""), ""},
		{"not a string", `{"question_id": 1, "sql": "SELECT 1", "response_prefix": 5}`, nil, "pred.jsonl:1: invalid JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ParsePredictions("pred.jsonl", []byte(tt.line+"\n"), FormatJSONL)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ps[0].ResponsePrefix
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("got ResponsePrefix %v; want %v", got, tt.want)
			}
		})
	}
}
