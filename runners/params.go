package runners

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/internal/suggest"
)

// Reader reads typed parameters from Params, remembering every key it
// consumed so that Err can report unknown keys and bad values together,
// and every parameter it read with its default and valid values, which
// Described lists (`help runners`, through Describe). A runner's factory
// is handed one (runners.New makes it over a spec's parameters; a Go
// caller with NewReader):
//
//	func New(r *runners.Reader) (runners.Runner, error) {
//		n := r.Int("n_rollout", DefaultRollouts, 1, 10000)
//		if err := r.Err(); err != nil { return nil, err }
//		...
type Reader struct {
	p    Params
	used map[string]bool
	// taken are the keys the factory reads by hand (Take): neither
	// unknown nor listed among the known keys.
	taken map[string]bool
	errs  ParamErrors
	read  []ParamInfo
}

// NewReader wraps p.
func NewReader(p Params) *Reader {
	return &Reader{p: p, used: map[string]bool{}, taken: map[string]bool{}}
}

// ParamInfo describes one parameter a runner reads: its kind (integer,
// number, boolean, string, duration, list of strings), default and valid
// values ("[1, 128]", "one of a, b", or "" for any).
type ParamInfo struct {
	Key, Kind string
	Default   any
	Valid     string
}

func (r *Reader) note(key, kind string, def any, valid string) {
	for _, p := range r.read {
		if p.Key == key {
			return
		}
	}
	r.read = append(r.read, ParamInfo{Key: key, Kind: kind, Default: def, Valid: valid})
}

// Described returns every parameter read through r's typed methods, in the
// order first read, each with the default and valid values of that read.
func (r *Reader) Described() []ParamInfo { return r.read }

// Take returns the value of a parameter the factory reads by hand (a kind
// the Reader has no method for; Info.Extra documents it) and takes it out
// of Err's checks: it is neither an unknown key nor listed among the known
// ones.
func (r *Reader) Take(key string) (any, bool) {
	r.taken[key] = true
	v, ok := r.p[key]
	return v, ok
}

// Describe builds the runner registered under name with its defaults (a
// Reader over no parameters) and returns every parameter its factory read
// through the Reader, in the order read. Parameters a factory reads
// without a Reader are not listed.
func Describe(name string) ([]ParamInfo, error) {
	info, err := lookupInfo(name)
	if err != nil {
		return nil, err
	}
	r := NewReader(nil)
	_, err = info.New(r)
	return r.Described(), err
}

func (r *Reader) get(key string) (any, bool) {
	r.used[key] = true
	v, ok := r.p[key]
	return v, ok
}

func (r *Reader) fail(key, format string, args ...any) {
	r.errs = append(r.errs, &ParamError{Key: key, Err: fmt.Errorf(format, args...)})
}

// Int reads an integer in [lo, hi].
func (r *Reader) Int(key string, def, lo, hi int) int {
	r.note(key, "integer", def, fmt.Sprintf("[%d, %d]", lo, hi))
	v, ok := r.get(key)
	if !ok {
		return def
	}
	var n int
	switch x := v.(type) {
	case int:
		n = x
	case int64:
		n = int(x)
	case float64:
		if x != float64(int(x)) {
			r.fail(key, "want an integer, got %v", x)
			return def
		}
		n = int(x)
	default:
		r.fail(key, "want an integer, got %T %v", v, v)
		return def
	}
	if n < lo || n > hi {
		r.fail(key, "%d out of range [%d, %d]", n, lo, hi)
		return def
	}
	return n
}

// Float reads a number in [lo, hi].
func (r *Reader) Float(key string, def, lo, hi float64) float64 {
	r.note(key, "number", def, fmt.Sprintf("[%g, %g]", lo, hi))
	v, ok := r.get(key)
	if !ok {
		return def
	}
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		r.fail(key, "want a number, got %T %v", v, v)
		return def
	}
	if f < lo || f > hi {
		r.fail(key, "%g out of range [%g, %g]", f, lo, hi)
		return def
	}
	return f
}

// Bool reads a boolean.
func (r *Reader) Bool(key string, def bool) bool {
	r.note(key, "boolean", def, "true or false")
	v, ok := r.get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		r.fail(key, "want true or false, got %T %v", v, v)
		return def
	}
	return b
}

// String reads a string; when allowed is non-empty the value must be one of
// them.
func (r *Reader) String(key, def string, allowed ...string) string {
	valid := ""
	if len(allowed) > 0 {
		valid = "one of " + strings.Join(allowed, ", ")
	}
	r.note(key, "string", def, valid)
	v, ok := r.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr {
		r.fail(key, "want a string, got %T %v", v, v)
		return def
	}
	if len(allowed) > 0 {
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
		r.fail(key, "%q is not one of %s", s, strings.Join(allowed, ", "))
		return def
	}
	return s
}

// Duration reads a Go duration string ("30s") or a number of seconds.
func (r *Reader) Duration(key string, def time.Duration) time.Duration {
	r.note(key, "duration", def, "e.g. 30s, or seconds")
	v, ok := r.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case string:
		d, err := time.ParseDuration(x)
		if err != nil {
			r.fail(key, "bad duration %q: %v", x, err)
			return def
		}
		return d
	case int:
		return time.Duration(x) * time.Second
	case float64:
		return time.Duration(x * float64(time.Second))
	}
	r.fail(key, "want a duration, got %T %v", v, v)
	return def
}

// Strings reads a list of strings.
func (r *Reader) Strings(key string, def []string) []string {
	r.note(key, "list of strings", def, "")
	v, ok := r.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, isStr := e.(string)
			if !isStr {
				r.fail(fmt.Sprintf("%s[%d]", key, i), "want a string, got %T %v", e, e)
				return def
			}
			out = append(out, s)
		}
		return out
	}
	r.fail(key, "want a list of strings, got %T %v", v, v)
	return def
}

// Err reports unknown keys and bad values, or nil: a ParamErrors, bad
// values first, then unknown keys in sorted order.
func (r *Reader) Err() error {
	var unknown []string
	for k := range r.p {
		if !r.used[k] && !r.taken[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	errs := append(ParamErrors(nil), r.errs...)
	for _, k := range unknown {
		known := make([]string, 0, len(r.used))
		for u := range r.used {
			known = append(known, u)
		}
		sort.Strings(known)
		errs = append(errs, &ParamError{Key: k, Err: fmt.Errorf("unknown parameter%s (known: %s)", suggest.Hint(k, known), strings.Join(known, ", "))})
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// ParamError is a bad runner parameter. Runner factories return it (or
// ParamErrors), possibly wrapped, so that callers find the parameter with
// errors.As, never by reading the message: spec.NewPlan points at the
// parameter's line of the spec.
type ParamError struct {
	// Key is the parameter's key in Params ("n_rollout"), or the keys of
	// a constraint between parameters ("alpha+beta+gamma").
	Key string
	// Elem is a subscript within the parameter, such as "[2]" for the
	// third element of a list; usually "".
	Elem string
	// Err says what is wrong with the value.
	Err error
}

// Error is "params.<key><elem>: <err>".
func (e *ParamError) Error() string { return "params." + e.Key + e.Elem + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *ParamError) Unwrap() error { return e.Err }

// ParamErrors are several parameter errors, reported together; errors.As
// finds the first.
type ParamErrors []*ParamError

// Error joins the errors' messages with "; ".
func (es ParamErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the errors.
func (es ParamErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Number returns a parameter value as a float64: the numbers a spec's YAML
// (int, float64), a stored plan's JSON (float64, json.Number) or code
// (int64) give. ok is false for anything else.
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
