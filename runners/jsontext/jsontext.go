package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners/think"
)

// ErrNoJSON is wrapped by the error Decode and Find return when the answer
// holds no JSON object that parses.
var ErrNoJSON = errors.New("no JSON object in the answer")

// FieldError says which field of the answer could not be decoded into the
// target, what the target wanted and what the answer held.
type FieldError struct {
	Path string // "tables[1].columns"; "" for the object itself
	Want string // "a list of strings"
	Got  string // "an object"
	Err  error  // the conversion error, when there is one (strconv ...)
}

func (e *FieldError) Error() string {
	where := "the answer"
	if e.Path != "" {
		where = "field " + e.Path
	}
	msg := fmt.Sprintf("%s: want %s, got %s", where, e.Want, e.Got)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *FieldError) Unwrap() error { return e.Err }

// maxStarts bounds the number of '{' positions Find tries, so that a
// pathological answer (thousands of unclosed braces) costs linear time in
// practice.
const maxStarts = 512

// Decode finds the JSON object of a model answer (see the package
// documentation: the last complete top-level object outside reasoning,
// fenced or not) and decodes it leniently into v, which must be a non-nil
// pointer.
func Decode(text string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("jsontext: decode target must be a non-nil pointer, got %T", v)
	}
	obj, err := Find(text)
	if err != nil {
		return err
	}
	val, err := parse(obj)
	if err != nil { // Find parsed it already
		return fmt.Errorf("jsontext: %w", err)
	}
	return assign("", val, rv.Elem())
}

// Find returns the JSON object Decode would decode, cleaned to standard
// JSON (comments, trailing commas and Python literals removed, raw control
// characters inside strings escaped).
func Find(text string) (string, error) {
	text, _ = think.Split(text)
	var last string
	found := false
	starts := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		if starts++; starts > maxStarts {
			break
		}
		obj, end, ok := scanObject(text, i)
		if !ok {
			continue
		}
		if _, err := parse(obj); err != nil {
			continue
		}
		last, found = obj, true
		i = end // the next top-level object starts after this one
	}
	if !found {
		return "", ErrNoJSON
	}
	return last, nil
}

// scanObject reads the balanced {...} span of s starting at s[start] ==
// '{'. It honours string literals and returns the span cleaned to standard
// JSON, the index of its closing brace, and whether the span closed.
func scanObject(s string, start int) (string, int, bool) {
	var b strings.Builder
	depth := 0
	inStr, esc := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
				b.WriteByte(c)
			case c == '\\':
				esc = true
				b.WriteByte(c)
			case c == '"':
				inStr = false
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			default:
				b.WriteByte(c)
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return "", 0, false
			}
			i += 2 + j + 1
			b.WriteByte(' ')
		case c == ',' && closesNext(s, i+1):
			// trailing comma: drop it
		case c == '{' || c == '[':
			depth++
			b.WriteByte(c)
		case c == '}' || c == ']':
			depth--
			b.WriteByte(c)
			if depth == 0 {
				if c != '}' {
					return "", 0, false
				}
				return b.String(), i, true
			}
			if depth < 0 {
				return "", 0, false
			}
		case isIdentStart(c) && (i == 0 || !isIdent(s[i-1])):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			switch w := s[i:j]; w {
			case "True":
				b.WriteString("true")
			case "False":
				b.WriteString("false")
			case "None":
				b.WriteString("null")
			default:
				b.WriteString(w)
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// closesNext reports whether the next significant character of s from i
// (skipping whitespace and comments) closes an object or a list.
func closesNext(s string, i int) bool {
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += 2 + j + 2
		default:
			return c == '}' || c == ']'
		}
	}
	return false
}

func isIdentStart(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }

// parse decodes standard JSON into a tree of nil, bool, json.Number,
// string, []any and map[string]any.
func parse(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("not an object")
	}
	return v, nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// assign stores the parsed value src into dst, converting where the type
// of dst makes the meaning clear.
func assign(path string, src any, dst reflect.Value) error {
	if dst.CanAddr() && dst.Kind() != reflect.Pointer && dst.Addr().Type().Implements(unmarshalerType) {
		raw, err := json.Marshal(src)
		if err != nil {
			return &FieldError{Path: path, Want: "a value", Got: describe(src), Err: err}
		}
		if err := dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				fe.Path = join(path, fe.Path)
				return err
			}
			return &FieldError{Path: path, Want: "a valid " + dst.Type().String(), Got: describe(src), Err: err}
		}
		return nil
	}
	if src == nil { // null leaves the zero value, as in encoding/json
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if src == nil {
			dst.SetZero()
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return assign(path, src, dst.Elem())
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			return &FieldError{Path: path, Want: "a concrete type", Got: describe(src)}
		}
		if src == nil {
			dst.SetZero()
			return nil
		}
		dst.Set(reflect.ValueOf(plain(src)))
		return nil
	case reflect.Struct:
		return assignStruct(path, src, dst)
	case reflect.Map:
		return assignMap(path, src, dst)
	case reflect.Slice:
		return assignSlice(path, src, dst)
	case reflect.String:
		s, ok := asString(src)
		if !ok {
			return &FieldError{Path: path, Want: "a string", Got: describe(src)}
		}
		dst.SetString(s)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return assignInt(path, unwrap(src), dst)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return assignUint(path, unwrap(src), dst)
	case reflect.Float32, reflect.Float64:
		f, err := asFloat(unwrap(src))
		if err != nil {
			return &FieldError{Path: path, Want: "a number", Got: describe(src), Err: err}
		}
		dst.SetFloat(f)
		return nil
	case reflect.Bool:
		b, ok := asBool(unwrap(src))
		if !ok {
			return &FieldError{Path: path, Want: "a boolean", Got: describe(src)}
		}
		dst.SetBool(b)
		return nil
	}
	return &FieldError{Path: path, Want: "a decodable Go type", Got: dst.Type().String()}
}

func assignStruct(path string, src any, dst reflect.Value) error {
	if src == nil {
		return nil
	}
	obj, ok := src.(map[string]any)
	if !ok {
		return &FieldError{Path: path, Want: "an object", Got: describe(src)}
	}
	fields := map[string][]int{}
	for _, f := range reflect.VisibleFields(dst.Type()) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		k := normKey(name)
		if _, dup := fields[k]; !dup || len(f.Index) == 1 {
			fields[k] = f.Index
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		idx, ok := fields[normKey(k)]
		if !ok {
			continue
		}
		fv, err := dst.FieldByIndexErr(idx)
		if err != nil {
			continue // a field promoted through a nil embedded pointer
		}
		if err := assign(join(path, k), obj[k], fv); err != nil {
			return err
		}
	}
	return nil
}

func assignMap(path string, src any, dst reflect.Value) error {
	if src == nil {
		dst.SetZero()
		return nil
	}
	obj, ok := src.(map[string]any)
	if !ok {
		return &FieldError{Path: path, Want: "an object", Got: describe(src)}
	}
	if dst.Type().Key().Kind() != reflect.String {
		return &FieldError{Path: path, Want: "a map with string keys", Got: dst.Type().String()}
	}
	m := reflect.MakeMapWithSize(dst.Type(), len(obj))
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ev := reflect.New(dst.Type().Elem()).Elem()
		if err := assign(join(path, k), obj[k], ev); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
	}
	dst.Set(m)
	return nil
}

func assignSlice(path string, src any, dst reflect.Value) error {
	if src == nil {
		dst.SetZero()
		return nil
	}
	list, ok := src.([]any)
	if !ok {
		list = []any{src} // a single value where a list is expected
	}
	s := reflect.MakeSlice(dst.Type(), len(list), len(list))
	for i, e := range list {
		if err := assign(fmt.Sprintf("%s[%d]", path, i), e, s.Index(i)); err != nil {
			if _, isList := src.([]any); !isList {
				var fe *FieldError
				if errors.As(err, &fe) && fe.Path == path+"[0]" {
					fe.Path, fe.Want = path, want(dst.Type())
				}
			}
			return err
		}
	}
	dst.Set(s)
	return nil
}

func assignInt(path string, src any, dst reflect.Value) error {
	n, err := asInt(src)
	if err == nil && dst.OverflowInt(n) {
		err = fmt.Errorf("%d overflows %s", n, dst.Type())
	}
	if err != nil {
		return &FieldError{Path: path, Want: "an integer", Got: describe(src), Err: err}
	}
	dst.SetInt(n)
	return nil
}

func assignUint(path string, src any, dst reflect.Value) error {
	n, err := asInt(src)
	if err == nil && (n < 0 || dst.OverflowUint(uint64(n))) {
		err = fmt.Errorf("%d out of range for %s", n, dst.Type())
	}
	if err != nil {
		return &FieldError{Path: path, Want: "a non-negative integer", Got: describe(src), Err: err}
	}
	dst.SetUint(uint64(n))
	return nil
}

// unwrap returns the element of a one-element list, for scalar targets.
func unwrap(src any) any {
	if l, ok := src.([]any); ok && len(l) == 1 {
		return l[0]
	}
	return src
}

func asString(src any) (string, bool) {
	switch v := src.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if n, isNum := e.(json.Number); isNum {
				s, ok = n.String(), true
			}
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), true
	}
	return "", false
}

func asInt(src any) (int64, error) {
	var s string
	switch v := src.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = strings.TrimSpace(v)
	default:
		return 0, errors.New("not a number")
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if f != float64(int64(f)) {
		return 0, fmt.Errorf("%s is not a whole number", s)
	}
	return int64(f), nil
}

func asFloat(src any) (float64, error) {
	switch v := src.(type) {
	case json.Number:
		return v.Float64()
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", v)
		}
		return f, nil
	}
	return 0, errors.New("not a number")
}

func asBool(src any) (bool, bool) {
	switch v := src.(type) {
	case bool:
		return v, true
	case json.Number:
		switch v.String() {
		case "1":
			return true, true
		case "0":
			return false, true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "1":
			return true, true
		case "false", "no", "0":
			return false, true
		}
	}
	return false, false
}

// plain converts json.Numbers to float64 throughout, as encoding/json
// fills an `any`.
func plain(src any) any {
	switch v := src.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return f
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plain(e)
		}
		return out
	}
	return src
}

func describe(src any) string {
	switch src.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", src)
}

// want names what a Go type asks for, in the words of an error message.
func want(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "a list of " + plural(want(t.Elem()))
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a value"
}

func plural(w string) string {
	w = strings.TrimPrefix(strings.TrimPrefix(w, "an "), "a ")
	if strings.HasPrefix(w, "list of ") {
		return "lists of " + strings.TrimPrefix(w, "list of ")
	}
	return w + "s"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	if key == "" {
		return path
	}
	return path + "." + key
}

// normKey folds a key for matching: lower case, without '_', '-' and
// spaces.
func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if r != '_' && r != '-' && r != ' ' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Selection is a choice of items from a set: Items, or All when the model
// answered "*", "all" (or a list holding one of them). A single name where
// a list is expected is a one-item selection; a string of comma-separated
// names is split. Numbers are read as their text.
type Selection struct {
	All   bool
	Items []string
}

// allWords are the answers that select every item.
var allWords = map[string]bool{"*": true, "all": true, "all tables": true, "all columns": true, "everything": true}

// UnmarshalJSON implements json.Unmarshaler leniently (see Selection).
func (s *Selection) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	*s = Selection{}
	var items []any
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		for _, p := range strings.Split(x, ",") {
			items = append(items, p)
		}
	case json.Number:
		items = []any{x}
	case []any:
		items = x
	default:
		return &FieldError{Want: "a list of names or \"*\"", Got: describe(v)}
	}
	for _, it := range items {
		name, ok := asString(it)
		if _, isList := it.([]any); isList || !ok {
			return &FieldError{Want: "a list of names or \"*\"", Got: "a list holding " + describe(it)}
		}
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case allWords[strings.ToLower(name)]:
			s.All = true
		default:
			s.Items = append(s.Items, name)
		}
	}
	return nil
}

// HasKey reports whether the JSON object Decode would read from text has
// at least one of keys (compared as Decode matches fields: letter case,
// '_', '-' and spaces ignored). An object under other keys decodes without error
// into an empty value; callers that must tell such an answer from an empty
// one ask HasKey.
func HasKey(text string, keys ...string) bool {
	obj, err := Find(text)
	if err != nil {
		return false
	}
	val, err := parse(obj)
	if err != nil {
		return false
	}
	m, ok := val.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		for _, want := range keys {
			if normKey(k) == normKey(want) {
				return true
			}
		}
	}
	return false
}
