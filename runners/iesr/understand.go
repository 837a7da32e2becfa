package iesr

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners/jsontext"
)

// Number is a numeric expression of the question with its unit.
type Number struct {
	Value string `json:"value"`
	Unit  string `json:"unit,omitempty"`
}

// UnmarshalJSON reads a number leniently: the object {value, unit} (a
// value given as a JSON number read as its text), or, as models also
// write it, a bare number (5) or a string with its unit ("5 km", "3.6").
func (n *Number) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case map[string]any:
		var f struct {
			Value string `json:"value"`
			Unit  string `json:"unit"`
		}
		if err := jsontext.Decode(string(b), &f); err != nil {
			return err
		}
		*n = Number{Value: strings.TrimSpace(f.Value), Unit: strings.TrimSpace(f.Unit)}
	case float64:
		*n = Number{Value: strconv.FormatFloat(x, 'f', -1, 64)}
	case string:
		*n = splitNumber(x)
	case nil:
		*n = Number{}
	default:
		return fmt.Errorf("want a number, a string or {value, unit}, got %s", b)
	}
	return nil
}

// splitNumber splits "5 km" or "5km" into value and unit; text without a
// leading number is the value.
func splitNumber(s string) Number {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == ',' || (i == 0 && (s[i] == '-' || s[i] == '+'))) {
		i++
	}
	if i == 0 || i == len(s) {
		return Number{Value: s}
	}
	return Number{Value: strings.TrimSpace(s[:i]), Unit: strings.TrimSpace(s[i:])}
}

// SemanticState is the latent semantic state S_q = (i, E, R, N, U, P) of
// the paper's equation 1: intent, entities, candidate relations, numbers,
// units and candidate field patterns, with the keywords the paper's
// Table 4 measures: the schema tables (Tables), the columns (FieldPatterns,
// "table.column"), the numbers with their units (Numbers) and the compute
// operators (Operators, canonical: CanonicalOperator). It is the JSON
// answer of the extraction call and of each keyword-verification round.
type SemanticState struct {
	Intent        string     `json:"intent"`
	Entities      []string   `json:"entities"`
	Relations     []Relation `json:"relations"`
	Numbers       []Number   `json:"numbers"`
	Units         []string   `json:"units"`
	FieldPatterns []string   `json:"field_patterns"`
	Tables        []string   `json:"tables"`
	Operators     []string   `json:"operators"`
}

// StateSchema is the JSON schema of the understanding answer. It follows
// OpenAI's strict-mode rules: every property is required, the optional
// ones (a relation's unit and formula, a number's unit) are nullable, and
// every object sets additionalProperties to false.
var StateSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "intent": {"type": "string"},
    "entities": {"type": "array", "items": {"type": "string"}},
    "relations": {"type": "array", "items": {"type": "object", "properties": {
      "subject": {"type": "string"}, "predicate": {"type": "string"}, "object": {"type": "string"},
      "unit": {"type": ["string", "null"]}, "formula": {"type": ["string", "null"]}},
      "required": ["subject", "predicate", "object", "unit", "formula"], "additionalProperties": false}},
    "numbers": {"type": "array", "items": {"type": "object", "properties": {
      "value": {"type": "string"}, "unit": {"type": ["string", "null"]}},
      "required": ["value", "unit"], "additionalProperties": false}},
    "units": {"type": "array", "items": {"type": "string"}},
    "field_patterns": {"type": "array", "items": {"type": "string"}},
    "tables": {"type": "array", "items": {"type": "string"}},
    "operators": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["intent", "entities", "relations", "numbers", "units", "field_patterns", "tables", "operators"],
  "additionalProperties": false
}`)

// ParseState reads the semantic state from a model answer (a fenced
// ```json block or a bare object, read leniently: see jsontext.Decode; a
// number's value given as a number, or null for an optional unit, is
// read as text; keys in any case; missing fields empty; the last object
// of an answer that drafts one and then corrects it). Operators are
// canonicalised (CanonicalOperator) and an operator outside the
// vocabulary is kept as written; numbers without a value are dropped.
func ParseState(out string) (SemanticState, error) {
	var s SemanticState
	if err := jsontext.Decode(out, &s); err != nil {
		return SemanticState{}, fmt.Errorf("semantic state: %w", err)
	}
	var ops []string
	for _, o := range s.Operators {
		if c, ok := CanonicalOperator(o); ok {
			o = c
		} else if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if !slices.Contains(ops, o) {
			ops = append(ops, o)
		}
	}
	s.Operators = ops
	nums := s.Numbers[:0]
	for _, n := range s.Numbers {
		if n.Value != "" {
			nums = append(nums, n)
		}
	}
	s.Numbers = nums
	return s, nil
}

// ValidatedState is the semantic state after rule-guided verification:
// the kept relations R_high, with the unit-conversion facts and equations
// of the rules they matched.
type ValidatedState struct {
	State     SemanticState      `json:"state"`
	Verified  []VerifiedRelation `json:"verified"`
	Kept      []VerifiedRelation `json:"kept"`
	Facts     []string           `json:"facts,omitempty"`
	Equations []string           `json:"equations,omitempty"`
}

// Validate verifies s against the rule base (Algorithm 1).
func Validate(rb *RuleBase, s SemanticState, g Grounding, deltaMatch, tau float64) ValidatedState {
	v := ValidatedState{State: s}
	v.Verified = rb.Verify(s.Relations, g, deltaMatch, tau)
	units := append([]string(nil), s.Units...)
	eqs := map[string]bool{}
	for _, r := range v.Verified {
		if r.Stage != "kept" {
			continue
		}
		v.Kept = append(v.Kept, r)
		if r.Unit != "" {
			units = append(units, r.Unit)
		}
		eqs[r.Rule+": "+r.Equation] = true
	}
	for _, n := range s.Numbers {
		if n.Unit != "" {
			units = append(units, n.Unit)
		}
	}
	v.Facts = rb.ConversionFacts(units)
	for e := range eqs {
		v.Equations = append(v.Equations, e)
	}
	sort.Strings(v.Equations)
	return v
}

// Terms returns the words the state contributes to schema linking:
// entities, kept relations' subjects and objects, and field patterns.
func (v *ValidatedState) Terms() []string {
	if v == nil {
		return nil
	}
	out := append([]string(nil), v.State.Entities...)
	for _, r := range v.Kept {
		out = append(out, r.Subject, r.Object)
	}
	return append(out, v.State.FieldPatterns...)
}

// SchemaItems returns the schema items the state names for schema
// linking: its tables and its field patterns ("table.column"), as the
// state gives them (LinkSchema resolves them against the schema).
func (v *ValidatedState) SchemaItems() []string {
	if v == nil {
		return nil
	}
	return append(append([]string(nil), v.State.Tables...), v.State.FieldPatterns...)
}

// Text renders the validated state for the reasoning prompts.
func (v *ValidatedState) Text() string {
	if v == nil {
		return ""
	}
	var b strings.Builder
	if v.State.Intent != "" {
		b.WriteString("Intent: " + v.State.Intent + "\n")
	}
	if len(v.State.Entities) > 0 {
		b.WriteString("Entities: " + strings.Join(v.State.Entities, "; ") + "\n")
	}
	if len(v.Kept) > 0 {
		b.WriteString("Relations:\n")
		for _, r := range v.Kept {
			line := "- " + strings.TrimSpace(r.Subject+" "+r.Predicate+" "+r.Object)
			if r.Unit != "" {
				line += " [" + r.Unit + "]"
			}
			if r.Formula != "" {
				line += ": " + r.Formula
			}
			b.WriteString(line + "\n")
		}
	}
	if len(v.State.Numbers) > 0 {
		var ns []string
		for _, n := range v.State.Numbers {
			ns = append(ns, strings.TrimSpace(n.Value+" "+n.Unit))
		}
		b.WriteString("Numbers: " + strings.Join(ns, "; ") + "\n")
	}
	if len(v.Equations) > 0 {
		b.WriteString("Rules:\n")
		for _, e := range v.Equations {
			b.WriteString("- " + e + "\n")
		}
	}
	if len(v.Facts) > 0 {
		b.WriteString("Unit conversions:\n")
		for _, f := range v.Facts {
			b.WriteString("- " + f + "\n")
		}
	}
	if len(v.State.FieldPatterns) > 0 {
		b.WriteString("Likely fields: " + strings.Join(v.State.FieldPatterns, ", ") + "\n")
	}
	return b.String()
}

var understandInstruction = `Extract the latent semantic state of the question as JSON with these fields:
- intent: what the question asks for, in a few words (e.g. "count", "maximum value", "unit conversion of a value");
- entities: the named things and values the question mentions;
- relations: the relations between quantities, each {subject, predicate, object, unit, formula} (unit and formula null when there is none), e.g. {"subject": "wind speed", "predicate": "converted to", "object": "kilometres per hour", "unit": "km/h", "formula": "km/h = m/s * 3.6"};
- numbers: the numeric expressions with their units, each {value, unit} (unit null when there is none);
- units: every unit of measurement involved;
- field_patterns: the schema columns (table.column) likely needed;
- tables: the schema tables likely needed;
- operators: the compute operators the query needs, each one of ` + operatorList + `.
Answer with the JSON object in a ` + "```json" + ` block.`

// verifyInstruction is the keyword-verification round (Ve, paper Table 4):
// the model checks the extracted keywords against the schema and the
// question and repairs them.
var verifyInstruction = `The extracted keywords above may miss items or contain wrong ones. Verify each against the schema and the question, and repair them:
- tables: keep the tables of the schema that the question needs, drop any that is not in the schema or not needed, add any needed table that is missing;
- field_patterns: the same for columns, written table.column with the schema's spelling;
- numbers: every number the question or hint states, with its unit (null when there is none), the value in digits; drop numbers the question does not state;
- operators: the compute operators the query needs, each one of ` + operatorList + `;
- intent, entities, relations, units: correct them where the question says otherwise.
Answer with the complete corrected JSON object, with the same fields, in a ` + "```json" + ` block.`
