package sqltext

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// jsonFence matches a fenced block labelled json (or unlabelled).
var jsonFence = regexp.MustCompile("(?s)```(?:json|JSON)?[ \t]*\\n(.*?)```")

// ErrNoJSON is returned by DecodeJSON when the answer holds no JSON object
// that decodes into the target.
var ErrNoJSON = errors.New("no JSON object in the answer")

// DecodeJSON decodes the JSON object a model answer carries into v. It
// tries, in order: the fenced ```json blocks from last to first, then the
// balanced top-level {...} spans of the text (string literals honoured) from
// last to first, and keeps the first that decodes. Answers that reason
// before they give their JSON, and JSON-mode answers that are nothing else,
// both decode. When nothing decodes it returns an error wrapping ErrNoJSON
// that names the last decoding error seen.
func DecodeJSON(out string, v any) error {
	var last error
	try := func(s string) bool {
		err := json.Unmarshal([]byte(strings.TrimSpace(s)), v)
		if err != nil {
			last = err
		}
		return err == nil
	}
	ms := jsonFence.FindAllStringSubmatch(out, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		if try(ms[i][1]) {
			return nil
		}
	}
	objs := jsonObjects(out)
	for i := len(objs) - 1; i >= 0; i-- {
		if try(objs[i]) {
			return nil
		}
	}
	if last != nil {
		return errors.Join(ErrNoJSON, last)
	}
	return ErrNoJSON
}

// jsonObjects returns the balanced top-level {...} spans of s, honouring
// JSON string literals (quotes and backslash escapes).
func jsonObjects(s string) []string {
	spans := jsonSpans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp[0]:sp[1]]
	}
	return out
}
