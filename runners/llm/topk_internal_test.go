package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTopKInCacheKey: top_k is part of a request's cache key when set (a
// changed sampling parameter misses), and a request without it keeps the
// key it had before the field existed (the canonical document omits it).
func TestTopKInCacheKey(t *testing.T) {
	t.Parallel()
	id := Ident{Backend: "openai", BaseURL: "http://localhost:8000/v1", Model: "m"}
	req := Request{Role: "reason", Messages: []Message{{Role: "user", Content: "q"}}, Temperature: 0.8, TopP: 0.95}
	keys := map[int]string{}
	for _, k := range []int{0, 20, 40} {
		r := req
		r.TopK = k
		key, doc, err := requestKey(id, r)
		if err != nil {
			t.Fatal(err)
		}
		keys[k] = key
		b, _ := json.Marshal(doc)
		if has := strings.Contains(string(b), `"top_k"`); has != (k > 0) {
			t.Errorf("top_k %d: canonical document %s; want top_k in it only when set", k, b)
		}
	}
	if keys[0] == keys[20] || keys[0] == keys[40] || keys[20] == keys[40] {
		t.Errorf("keys for top_k 0, 20, 40 = %v; want all different", keys)
	}
}
