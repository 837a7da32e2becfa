package llm

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// keyJSONCases are key documents of realistic and adversarial requests:
// prompts with fences, <think> blocks, quotes, HTML characters, control
// characters, invalid UTF-8 and line separators; every optional field
// set and unset; floats at json.Marshal's format cut-offs.
func keyJSONCases() []keyDoc {
	seed, neg := int64(42), int64(-7)
	id := Ident{Backend: "openai", BaseURL: "http://localhost:8000/v1", Model: "qwen2.5-coder-7b"}
	texts := []string{
		"", "plain", "```sql\nSELECT \"a\" FROM t WHERE b = 'x;y' -- c\n```",
		"<think>a < b && c > d</think>\n\nSELECT 1;", "tab\there\r\nback\\slash \b\f \x00\x01\x1f\x7f",
		"bad utf8 \xff\xfe \xc3 end", "sep \u2028 and \u2029 é 中文 😀", strings.Repeat("paragraph\n\n", 300),
		"/* comment; with semicolon */ SELECT ';' AS s", "truncated ```sql\nSELECT",
	}
	var out []keyDoc
	for i, t := range texts {
		d := keyDoc{V: cacheKeyVersion, Ident: id, Role: "reason", Answer: AnswerSQL,
			Messages: []Message{{Role: "system", Content: texts[(i+3)%len(texts)]}, {Role: "user", Content: t}}}
		out = append(out, d)
	}
	full := keyDoc{V: cacheKeyVersion, Ident: Ident{Backend: "o<p>", BaseURL: "u&v", Model: "m\"", Options: "top_k=5", Server: "srv system_fingerprint=fp"},
		Role: "r\n", Messages: []Message{}, Temperature: 0.7, TopP: 0.95, TopK: 40, MaxTokens: 1024, Stop: []string{"\n\n", "</s>"},
		Seed: &seed, Answer: AnswerJSON, Schema: json.RawMessage(`{"a":"\u003cb\u003e","z":[1,2.5]}`), SchemaName: "s", Responder: "alphasql/rephrase"}
	out = append(out, full)
	for _, f := range []float64{0, -0.0, 1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, -2.5, 1.0 / 3, 5e-324, math.MaxFloat64} {
		d := full
		d.Temperature, d.TopP, d.Seed, d.Stop = f, -f, &neg, []string{}
		out = append(out, d)
	}
	return out
}

// TestKeyJSONMatchesMarshal: appendKeyJSON writes exactly what json.Marshal
// writes, so request keys are unchanged.
func TestKeyJSONMatchesMarshal(t *testing.T) {
	for i, d := range keyJSONCases() {
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendKeyJSON(nil, &d)
		if !ok || string(got) != string(want) {
			t.Errorf("case %d: appendKeyJSON = %q, %v; want %q", i, got, ok, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		d := keyDoc{Temperature: f}
		if _, ok := appendKeyJSON(nil, &d); ok {
			t.Errorf("temperature %v: appendKeyJSON ok; want not (json.Marshal rejects it)", f)
		}
		d = keyDoc{TopP: f}
		if _, ok := appendKeyJSON(nil, &d); ok {
			t.Errorf("top_p %v: appendKeyJSON ok; want not (json.Marshal rejects it)", f)
		}
	}
}

// TestRequestKeyNaN: a request json.Marshal cannot encode keeps its error.
func TestRequestKeyNaN(t *testing.T) {
	_, _, err := requestKey(Ident{}, Request{Temperature: math.NaN()})
	if err == nil || err.Error() != "llm: cache key: json: unsupported value: NaN" {
		t.Errorf("requestKey(NaN) error = %v; want llm: cache key: json: unsupported value: NaN", err)
	}
}

// FuzzKeyJSONMatchesMarshal compares appendKeyJSON with json.Marshal on
// key documents made by newKeyDoc from arbitrary requests.
func FuzzKeyJSONMatchesMarshal(f *testing.F) {
	for _, d := range keyJSONCases() {
		f.Add(d.Role, firstContent(d), d.Ident.Model, d.Temperature, d.TopK, int64(d.MaxTokens), string(d.Schema), d.Responder)
	}
	f.Fuzz(func(t *testing.T, role, content, model string, temp float64, topK int, seed int64, schema, responder string) {
		req := Request{Role: role, Messages: []Message{{Role: "user", Content: content}, {Role: content, Content: role}},
			Temperature: temp, TopP: -temp / 3, TopK: topK, MaxTokens: int(seed), Stop: []string{content, model}, Seed: &seed,
			Schema: json.RawMessage(schema), SchemaName: model, Responder: responder}
		if seed%2 == 0 {
			req.Messages, req.Seed, req.Stop = nil, nil, nil
		}
		doc, err := newKeyDoc(Ident{Backend: content, Model: model, Server: responder}, req)
		if err != nil {
			return
		}
		want, err := json.Marshal(doc)
		got, ok := appendKeyJSON(nil, &doc)
		if ok != (err == nil) || (ok && string(got) != string(want)) {
			t.Errorf("appendKeyJSON = %q, %v; json.Marshal = %q, %v", got, ok, want, err)
		}
	})
}

// firstContent is d's first message's content ("" when none), a fuzz seed.
func firstContent(d keyDoc) string {
	if len(d.Messages) == 0 {
		return ""
	}
	return d.Messages[0].Content
}
