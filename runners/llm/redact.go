package llm

import (
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Redacted is what a Redactor puts in place of a secret.
const Redacted = "[REDACTED]"

// MinSecretLen is the fewest characters (not counting surrounding white
// space) a credential must have to be redacted. A shorter value ("x",
// "key", "1234") occurs inside ordinary words, SQL and error messages:
// replacing it would rewrite text ("department" with a key "a"), and a
// value that short protects nothing anyway.
const MinSecretLen = 8

// Placeholders are API-key values that servers without authentication
// accept and their documentation tells clients to send, because the
// OpenAI client libraries refuse an empty key. They are not secrets: they
// are never redacted (compared case-insensitively, surrounding white space
// ignored), so that a model's answer holding the word EMPTY or "None"
// stays as it was. Where each comes from:
//
//   - EMPTY: vLLM's OpenAI-compatible server docs (openai_api_key =
//     "EMPTY") and SGLang's examples.
//   - sk-no-key-required: llama.cpp server's README (the OpenAI Python
//     client example) and llamafile's.
//   - ollama: Ollama's OpenAI-compatibility docs (api_key='ollama',
//     "required but ignored").
//   - lm-studio, not-needed: LM Studio's OpenAI-compatibility docs and
//     examples (api_key="lm-studio").
//   - anything: LiteLLM proxy docs' client examples (api_key="anything").
//   - -: Hugging Face text-generation-inference's Messages API examples
//     (api_key="-").
//   - none, null, nil, no-key, nokey, dummy, placeholder, unused, x: the
//     spellings of "no key" that YAML files, shell profiles and tutorials
//     use (None and null included by case-insensitivity).
//
// Most are shorter than MinSecretLen and would be left alone for that
// alone; the list says why even a longer one is.
var Placeholders = []string{
	"EMPTY", "sk-no-key-required", "ollama", "lm-studio", "not-needed", "anything", "-",
	"none", "null", "nil", "no-key", "nokey", "dummy", "placeholder", "unused", "x",
}

// IsSecret reports whether credential s could be a secret worth redacting:
// at least MinSecretLen characters and not one of the Placeholders. Every
// redaction of the harness (the OpenAI client's logs and errors, the
// model cache's stored requests, the run store's error texts and spec,
// and what commands display) decides by it.
func IsSecret(s string) bool {
	t := strings.TrimSpace(s)
	if utf8.RuneCountInString(t) < MinSecretLen {
		return false
	}
	for _, p := range Placeholders {
		if strings.EqualFold(t, p) {
			return false
		}
	}
	return true
}

// keyLike matches text that looks like an API key whatever the run's
// configuration: OpenAI-style "sk-..." keys and bearer tokens. Display
// redaction (NewDisplayRedactor) replaces those too, so that a key the
// current environment does not hold is still hidden.
var keyLike = regexp.MustCompile(`\b(sk-[A-Za-z0-9_\-]{12,}|Bearer\s+[A-Za-z0-9_\-.=]{12,})`)

// Redactor replaces secrets in text with Redacted. The zero value and a
// nil *Redactor redact nothing. A Redactor is safe for concurrent use.
//
// Redaction is for what the harness logs, reports as an error or stores
// as request metadata, and for what commands display or export; it is
// never applied to a model's answer before the answer is scored or
// stored: an answer is kept as the server sent it, and a secret echoed in
// it is hidden when it is shown.
type Redactor struct {
	// secrets are the values redacted, longest first, so that a secret
	// holding another is replaced whole.
	secrets []string
	// keyLike also replaces what looks like an API key.
	keyLike bool
}

// NewRedactor returns a Redactor of the values of secrets that IsSecret
// accepts; the others are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, s := range secrets {
		if IsSecret(s) && !seen[s] {
			seen[s] = true
			r.secrets = append(r.secrets, s)
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool {
		if len(r.secrets[i]) != len(r.secrets[j]) {
			return len(r.secrets[i]) > len(r.secrets[j])
		}
		return r.secrets[i] < r.secrets[j]
	})
	return r
}

// NewDisplayRedactor is NewRedactor that also replaces text looking like
// an API key (an OpenAI-style sk-... key, a bearer token) unless it is a
// placeholder: what commands apply to stored answers and errors before
// they print, serve or export them.
func NewDisplayRedactor(secrets ...string) *Redactor {
	r := NewRedactor(secrets...)
	r.keyLike = true
	return r
}

// Active reports whether r redacts anything at all.
func (r *Redactor) Active() bool { return r != nil && (len(r.secrets) > 0 || r.keyLike) }

// Redact returns s with every secret of r replaced by Redacted.
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	if r.keyLike && (strings.Contains(s, "sk-") || strings.Contains(s, "Bearer")) {
		s = keyLike.ReplaceAllStringFunc(s, func(m string) string {
			tok := strings.TrimSpace(strings.TrimPrefix(m, "Bearer"))
			if !IsSecret(tok) {
				return m
			}
			return Redacted
		})
	}
	return s
}

// maxRedactDepth bounds how deep Value descends (a guard against cyclic
// pointers; stored results are trees a few levels deep).
const maxRedactDepth = 64

// Value redacts, in place, every string reachable from v, which must be a
// pointer (to a struct, slice, map, ...): exported struct fields, slice
// and array elements, map values and the dynamic values of interfaces,
// at any depth. Map keys and unexported fields are left alone. Commands
// use it on what they are about to show (a viewer's question, a stored
// result) so that no field is forgotten.
func (r *Redactor) Value(v any) {
	if !r.Active() || v == nil {
		return
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return
	}
	r.walk(rv.Elem(), 0)
}

// walk redacts the strings of v, which is settable where it must be set,
// and reports whether it changed any. A map entry or an interface is
// written back only when its copy changed, so that a value with nothing
// to redact is only read (a map shared by several readers, such as a
// package's table, is never written).
func (r *Redactor) walk(v reflect.Value, depth int) bool {
	if depth > maxRedactDepth {
		return false
	}
	changed := false
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if s := r.Redact(v.String()); s != v.String() {
				v.SetString(s)
				changed = true
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			changed = r.walk(v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				changed = r.walk(f, depth+1) || changed
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false // bytes, not text
		}
		if v.Kind() == reflect.Array && !v.CanSet() {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			changed = r.walk(v.Index(i), depth+1) || changed
		}
	case reflect.Map:
		if v.IsNil() {
			return false
		}
		// Map values are not addressable: each is redacted in a copy,
		// put back once the iteration is over if it changed.
		iter := v.MapRange()
		var keys, vals []reflect.Value
		for iter.Next() {
			nv := reflect.New(iter.Value().Type()).Elem()
			nv.Set(iter.Value())
			if r.walk(nv, depth+1) {
				keys, vals = append(keys, iter.Key()), append(vals, nv)
			}
		}
		for i := range keys {
			v.SetMapIndex(keys[i], vals[i])
		}
		changed = len(keys) > 0
	case reflect.Interface:
		if v.IsNil() {
			return false
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice:
			// Their contents are reachable (and settable) through the
			// copy the interface holds.
			changed = r.walk(e, depth+1)
		default:
			if !v.CanSet() {
				return false
			}
			nv := reflect.New(e.Type()).Elem()
			nv.Set(e)
			if r.walk(nv, depth+1) {
				v.Set(nv)
				changed = true
			}
		}
	}
	return changed
}
