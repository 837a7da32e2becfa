package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCheckStrictSchema checks the rules of the "Supported schemas" section
// of OpenAI's Structured Outputs guide
// (platform.openai.com/docs/guides/structured-outputs#supported-schemas).
// The accepted cases are shaped after the guide's own examples (the
// get_weather function with a nullable unit; the query function with an
// anyOf value; a recursive $ref "#" UI schema).
func TestCheckStrictSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string // substrings of the error; none means valid
	}{
		{"flat", `{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"],"additionalProperties":false}`, nil},
		{"nullable by type array", `{"type":"object","properties":{"location":{"type":"string","description":"where"},"unit":{"type":["string","null"],"enum":["F","C",null]}},"required":["location","unit"],"additionalProperties":false}`, nil},
		{"nullable by anyOf", `{"type":"object","properties":{"unit":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["unit"],"additionalProperties":false}`, nil},
		{"nested array of objects with anyOf value", `{"type":"object","properties":{"conditions":{"type":"array","items":{"type":"object","properties":{"column":{"type":"string"},"operator":{"type":"string","enum":["=",">","<"]},"value":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"object","properties":{"column_name":{"type":"string"}},"required":["column_name"],"additionalProperties":false}]}},"required":["column","operator","value"],"additionalProperties":false}}},"required":["conditions"],"additionalProperties":false}`, nil},
		{"defs and recursive ref", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],"additionalProperties":false,"$defs":{"node":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["label","children"],"additionalProperties":false}}}`, nil},
		{"supported type keywords", `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":9,"multipleOf":1},"d":{"type":"string","format":"date","pattern":"^[0-9-]+$"},"l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},"k":{"const":"x"}},"required":["n","d","l","k"],"additionalProperties":false}`, nil},
		{"empty object", `{"type":"object","properties":{},"required":[],"additionalProperties":false}`, nil},

		{"root anyOf", `{"anyOf":[{"type":"object","properties":{},"additionalProperties":false}]}`, []string{"$: the root schema must be an object, not anyOf"}},
		{"root array", `{"type":"array","items":{"type":"string"}}`, []string{`$: the root schema must have type "object" (got "array")`}},
		{"root not an object", `["x"]`, []string{"$: the root schema must be a JSON object"}},
		{"optional field (IESR understand)", `{"type":"object","properties":{"subject":{"type":"string"},"unit":{"type":"string"},"formula":{"type":"string"}},"required":["subject"],"additionalProperties":false}`, []string{`$: required must list every property (optional fields are nullable); missing "formula", "unit"`}},
		{"no additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, []string{"$: additionalProperties must be supplied and be false"}},
		{"additionalProperties true", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":true}`, []string{"$: additionalProperties must be false (got true)"}},
		{"map type (IESR tables)", `{"type":"object","properties":{"tables":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}},"required":["tables"],"additionalProperties":false}`, []string{"$.properties.tables: additionalProperties holds a schema (a map type)"}},
		{"nested missing required", `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}}},"required":["steps"],"additionalProperties":false}`, []string{`$.properties.steps.items: required must list every property (optional fields are nullable); missing "b"`}},
		{"required names unknown", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","z"],"additionalProperties":false}`, []string{`$.required: names z, which is not a property`}},
		{"unsupported keywords", `{"type":"object","properties":{"a":{"type":"string","minLength":1},"b":{"allOf":[{"type":"string"}]},"c":{"type":"string","default":"x"}},"required":["a","b","c"],"additionalProperties":false}`, []string{`$.properties.a: keyword "minLength" is not supported`, `$.properties.b: keyword "allOf" is not supported`, `$.properties.c: keyword "default" is not supported`}},
		{"oneOf", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`, []string{`$.properties.a: keyword "oneOf" is not supported`}},
		{"keyword of another type", `{"type":"object","properties":{"a":{"type":"string","items":{"type":"string"}}},"required":["a"],"additionalProperties":false}`, []string{`$.properties.a: keyword "items" applies to arrays`}},
		{"unsupported format", `{"type":"object","properties":{"u":{"type":"string","format":"uri"}},"required":["u"],"additionalProperties":false}`, []string{`$.properties.u: format uri is not supported`}},
		{"no type", `{"type":"object","properties":{"a":{"description":"anything"}},"required":["a"],"additionalProperties":false}`, []string{"$.properties.a: schema must have a type"}},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"str"}},"required":["a"],"additionalProperties":false}`, []string{`$.properties.a: unknown type "str"`}},
		{"array without items", `{"type":"object","properties":{"a":{"type":"array"}},"required":["a"],"additionalProperties":false}`, []string{"$.properties.a: an array schema must have items"}},
		{"dangling ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}},"required":["a"],"additionalProperties":false}`, []string{"$.properties.a: $ref #/$defs/missing does not name a definition"}},
		{"bad def", `{"type":"object","properties":{"a":{"$ref":"#/$defs/d"}},"required":["a"],"additionalProperties":false,"$defs":{"d":{"type":"object","properties":{"x":{"type":"string"}}}}}`, []string{"$.$defs.d: additionalProperties must be supplied", `$.$defs.d: required must list every property`}},
		{"anyOf branch", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}]}},"required":["v"],"additionalProperties":false}`, []string{`$.properties.v.anyOf[1]: required must list every property`}},
		{"not JSON", `{"type":`, []string{"schema is not valid JSON"}},
		{"trailing data", `{"type":"object","properties":{},"required":[],"additionalProperties":false} {}`, []string{"data after the schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckStrictSchema(json.RawMessage(tt.schema))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("got %v; want no error", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got no error; want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestCheckStrictSchemaLimits checks the size limits of the guide: 10
// levels of object nesting and 5000 properties in all.
func TestCheckStrictSchemaLimits(t *testing.T) {
	nest := func(levels int) string {
		s := `{"type":"object","properties":{},"required":[],"additionalProperties":false}`
		for range levels - 1 {
			s = `{"type":"object","properties":{"c":` + s + `},"required":["c"],"additionalProperties":false}`
		}
		return s
	}
	if err := CheckStrictSchema(json.RawMessage(nest(10))); err != nil {
		t.Errorf("10 levels: got %v; want no error", err)
	}
	err := CheckStrictSchema(json.RawMessage(nest(11)))
	if want := "object nested 11 levels deep; strict mode allows at most 10"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("11 levels: got %v; want %q", err, want)
	}
	wide := func(n int) string {
		var props, req []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
			req = append(req, fmt.Sprintf(`"p%d"`, i))
		}
		return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `],"additionalProperties":false}`
	}
	if err := CheckStrictSchema(json.RawMessage(wide(5000))); err != nil {
		t.Errorf("5000 properties: got %v; want no error", err)
	}
	err = CheckStrictSchema(json.RawMessage(wide(5001)))
	if want := "$: 5001 object properties in all; strict mode allows at most 5000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("5001 properties: got %v; want %q", err, want)
	}
}

// FuzzCheckStrictSchema checks that the validator never panics and that
// it accepts only JSON objects.
func FuzzCheckStrictSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"],"additionalProperties":false}`)
	f.Add(`{"type":"object","properties":{"t":{"type":"object","additionalProperties":{"type":"string"}}}}`)
	f.Add(`{"anyOf":[{"$ref":"#"}],"$defs":{"x":{"items":[1]}}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckStrictSchema(json.RawMessage(s))
		if err == nil && !strings.HasPrefix(strings.TrimSpace(s), "{") {
			t.Errorf("accepted %q, which is not a JSON object", s)
		}
	})
}
