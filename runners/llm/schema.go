package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Limits of OpenAI strict mode, from the "Supported schemas" section of
// OpenAI's Structured Outputs guide
// (platform.openai.com/docs/guides/structured-outputs#supported-schemas; the
// figures as of its 2025-2026 revision, which raised the earlier limits of
// 100 properties and 5 levels).
const (
	// StrictMaxProperties: "A schema may have up to 5000 object properties
	// total".
	StrictMaxProperties = 5000
	// StrictMaxDepth: "with up to 10 levels of nesting" (objects nested in
	// objects; the root object is level 1).
	StrictMaxDepth = 10
	// StrictMaxEnumValues: "A schema may have up to 1000 enum values across
	// all enum properties".
	StrictMaxEnumValues = 1000
	// StrictMaxStringLength: the total length of all property names,
	// definition names, enum values and const values may not exceed 120,000
	// characters.
	StrictMaxStringLength = 120000
	// StrictLargeEnum and StrictLargeEnumLength: "For a single enum property
	// with string values, the total string length of all enum values cannot
	// exceed 15,000 characters when there are more than 250 enum values".
	StrictLargeEnum       = 250
	StrictLargeEnumLength = 15000
)

// strictKeywords are the keywords strict mode accepts, by the types they
// belong to ("" for any schema). Everything else (allOf, oneOf, not,
// if/then/else, patternProperties, minLength, maxLength, uniqueItems,
// default, ...) is rejected.
var strictKeywords = map[string]string{
	"type": "", "description": "", "title": "", "enum": "", "const": "", "anyOf": "",
	"$ref": "", "$defs": "", "definitions": "",
	"properties": "object", "required": "object", "additionalProperties": "object",
	"items": "array", "minItems": "array", "maxItems": "array",
	"pattern": "string", "format": "string",
	"multipleOf": "number", "maximum": "number", "exclusiveMaximum": "number",
	"minimum": "number", "exclusiveMinimum": "number",
}

// strictFormats are the string formats strict mode supports.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

var strictTypes = map[string]bool{
	"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true,
}

// CheckStrictSchema reports whether schema conforms to OpenAI's
// Structured Outputs strict mode, following the rules of the "Supported
// schemas" section of OpenAI's Structured Outputs guide:
//
//   - the root is an object schema (type "object"), not anyOf;
//   - every object sets additionalProperties: false and lists every key of
//     its properties in required (an optional field is expressed as
//     nullable: type ["string", "null"] or anyOf with {"type": "null"});
//   - no map types (additionalProperties holding a schema);
//   - only the supported keywords: type, properties, required,
//     additionalProperties, items, enum, const, anyOf, $defs/$ref,
//     description, title, and for strings pattern and format (date-time,
//     time, date, duration, email, hostname, ipv4, ipv6, uuid), for numbers
//     multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum, for
//     arrays minItems and maxItems; every subschema has a type (or is an
//     anyOf, $ref, enum or const); every array has items;
//   - at most StrictMaxDepth levels of object nesting, StrictMaxProperties
//     properties in all, StrictMaxEnumValues enum values and
//     StrictMaxStringLength characters of names and enum and const values.
//
// The error joins every violation found, each naming the JSON path of the
// offending node ("$" is the root, e.g. "$.properties.tables.items").
func CheckStrictSchema(schema json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("schema is not valid JSON: data after the schema")
	}
	c := &strictChecker{}
	obj, ok := root.(map[string]any)
	if !ok {
		return errors.New("$: the root schema must be a JSON object")
	}
	if _, ok := obj["anyOf"]; ok {
		c.errorf("$", "the root schema must be an object, not anyOf")
	} else if t, _ := obj["type"].(string); t != "object" {
		c.errorf("$", `the root schema must have type "object" (got %s)`, describeType(obj["type"]))
	}
	c.defs = map[string]any{}
	for _, key := range []string{"$defs", "definitions"} {
		d, ok := obj[key]
		if !ok {
			continue
		}
		dm, ok := d.(map[string]any)
		if !ok {
			c.errorf("$."+key, "must be an object of schemas")
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(dm)) {
			c.defs["#/"+key+"/"+name] = dm[name]
			c.chars += len(name)
		}
	}
	c.node("$", obj, 0, true)
	for _, ref := range slices.Sorted(maps.Keys(c.defs)) {
		path := "$" + strings.ReplaceAll(strings.TrimPrefix(ref, "#"), "/", ".")
		c.node(path, c.defs[ref], 0, false)
	}
	if c.props > StrictMaxProperties {
		c.errorf("$", "%d object properties in all; strict mode allows at most %d", c.props, StrictMaxProperties)
	}
	if c.enums > StrictMaxEnumValues {
		c.errorf("$", "%d enum values in all; strict mode allows at most %d", c.enums, StrictMaxEnumValues)
	}
	if c.chars > StrictMaxStringLength {
		c.errorf("$", "%d characters of property names, definition names, enum and const values; strict mode allows at most %d", c.chars, StrictMaxStringLength)
	}
	return errors.Join(c.errs...)
}

type strictChecker struct {
	errs                []error
	defs                map[string]any
	props, enums, chars int
}

func (c *strictChecker) errorf(path, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

// node checks the subschema v at path; depth is the number of objects it is
// nested in.
func (c *strictChecker) node(path string, v any, depth int, root bool) {
	s, ok := v.(map[string]any)
	if !ok {
		c.errorf(path, "a schema must be a JSON object (got %s)", describeType(v))
		return
	}
	types := c.types(path, s)
	is := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	_, hasAnyOf := s["anyOf"]
	_, hasRef := s["$ref"]
	_, hasEnum := s["enum"]
	_, hasConst := s["const"]
	if len(types) == 0 && !hasAnyOf && !hasRef && !hasEnum && !hasConst && !root {
		c.errorf(path, "schema must have a type (or be an anyOf, $ref, enum or const)")
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		owner, known := strictKeywords[k]
		switch {
		case !known:
			c.errorf(path, "keyword %q is not supported in strict mode", k)
		case (k == "$defs" || k == "definitions") && !root:
			c.errorf(path, "%s is only supported at the root", k)
		case owner == "number" && !is("number") && !is("integer"):
			c.errorf(path, "keyword %q applies to numbers, but the type is %s", k, describeType(s["type"]))
		case owner != "" && owner != "number" && !is(owner):
			c.errorf(path, "keyword %q applies to %ss, but the type is %s", k, owner, describeType(s["type"]))
		}
	}
	if f, ok := s["format"]; ok {
		if fs, _ := f.(string); !strictFormats[fs] {
			c.errorf(path, "format %v is not supported in strict mode", f)
		}
	}
	if e, ok := s["enum"]; ok {
		vals, ok := e.([]any)
		if !ok || len(vals) == 0 {
			c.errorf(path, "enum must be a non-empty array")
		}
		c.enums += len(vals)
		n := 0
		for _, x := range vals {
			if str, ok := x.(string); ok {
				n += len(str)
			}
		}
		c.chars += n
		if len(vals) > StrictLargeEnum && n > StrictLargeEnumLength {
			c.errorf(path, "enum of %d values with %d characters; strict mode allows at most %d characters when there are more than %d values", len(vals), n, StrictLargeEnumLength, StrictLargeEnum)
		}
	}
	if cv, ok := s["const"].(string); ok {
		c.chars += len(cv)
	}
	if r, ok := s["$ref"]; ok {
		ref, _ := r.(string)
		if _, ok := c.defs[ref]; !ok && ref != "#" {
			c.errorf(path, "$ref %v does not name a definition in $defs", r)
		}
	}
	if a, ok := s["anyOf"]; ok {
		branches, ok := a.([]any)
		if !ok || len(branches) == 0 {
			c.errorf(path+".anyOf", "must be a non-empty array of schemas")
		}
		for i, b := range branches {
			c.node(fmt.Sprintf("%s.anyOf[%d]", path, i), b, depth, false)
		}
	}
	if is("array") {
		if it, ok := s["items"]; !ok {
			c.errorf(path, "an array schema must have items")
		} else {
			c.node(path+".items", it, depth, false)
		}
	}
	if is("object") {
		c.object(path, s, depth+1)
	}
}

// object checks the object rules of s, an object schema at nesting level
// depth.
func (c *strictChecker) object(path string, s map[string]any, depth int) {
	if depth > StrictMaxDepth {
		c.errorf(path, "object nested %d levels deep; strict mode allows at most %d", depth, StrictMaxDepth)
	}
	switch ap := s["additionalProperties"].(type) {
	case bool:
		if ap {
			c.errorf(path, "additionalProperties must be false (got true)")
		}
	case nil:
		c.errorf(path, "additionalProperties must be supplied and be false")
	case map[string]any:
		c.errorf(path, "additionalProperties holds a schema (a map type); strict mode supports only fixed properties with additionalProperties: false")
	default:
		c.errorf(path, "additionalProperties must be false (got %s)", describeType(ap))
	}
	var props map[string]any
	if p, ok := s["properties"]; ok {
		if props, ok = p.(map[string]any); !ok {
			c.errorf(path+".properties", "must be an object of schemas")
		}
	}
	required := map[string]bool{}
	if r, ok := s["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			c.errorf(path+".required", "must be an array of property names")
		}
		for _, x := range list {
			name, _ := x.(string)
			required[name] = true
			if _, ok := props[name]; !ok {
				c.errorf(path+".required", "names %v, which is not a property", x)
			}
		}
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		c.props++
		c.chars += len(name)
		if !required[name] {
			missing = append(missing, strconv.Quote(name))
		}
	}
	if len(missing) > 0 {
		c.errorf(path, "required must list every property (optional fields are nullable); missing %s", strings.Join(missing, ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		c.node(path+".properties."+name, props[name], depth, false)
	}
}

// types returns the type names of s (type may be a name or an array of
// names), reporting unknown ones.
func (c *strictChecker) types(path string, s map[string]any) []string {
	t, ok := s["type"]
	if !ok {
		return nil
	}
	var names []string
	switch t := t.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			n, ok := x.(string)
			if !ok {
				c.errorf(path, "type must be a name or an array of names (got %s)", describeType(x))
				continue
			}
			names = append(names, n)
		}
		if len(t) == 0 {
			c.errorf(path, "type must not be an empty array")
		}
	default:
		c.errorf(path, "type must be a name or an array of names (got %s)", describeType(t))
	}
	for _, n := range names {
		if !strictTypes[n] {
			c.errorf(path, "unknown type %q", n)
		}
	}
	return names
}

// describeType renders the JSON type of v for messages.
func describeType(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case string:
		return strconv.Quote(v)
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case []any:
		b, _ := json.Marshal(v)
		return string(b)
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
