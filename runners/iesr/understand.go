package iesr

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/runners/jsontext"
)

// Number is a numeric expression of the question with its unit.
type Number struct {
	Value string `json:"value"`
	Unit  string `json:"unit,omitempty"`
}

// SemanticState is the latent semantic state S_q = (i, E, R, N, U, P) of
// the paper's equation 1: intent, entities, candidate relations, numbers,
// units and candidate field patterns. It is the JSON answer of the
// understanding call.
type SemanticState struct {
	Intent        string     `json:"intent"`
	Entities      []string   `json:"entities"`
	Relations     []Relation `json:"relations"`
	Numbers       []Number   `json:"numbers"`
	Units         []string   `json:"units"`
	FieldPatterns []string   `json:"field_patterns"`
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
    "field_patterns": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["intent", "entities", "relations", "numbers", "units", "field_patterns"],
  "additionalProperties": false
}`)

// ParseState reads the semantic state from a model answer (a fenced
// ```json block or a bare object, read leniently: see jsontext.Decode; a
// number's value given as a number, or null for an optional unit, is
// read as text).
func ParseState(out string) (SemanticState, error) {
	var s SemanticState
	if err := jsontext.Decode(out, &s); err != nil {
		return SemanticState{}, fmt.Errorf("semantic state: %w", err)
	}
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

const understandInstruction = `Extract the latent semantic state of the question as JSON with these fields:
- intent: what the question asks for, in a few words (e.g. "count", "maximum value", "unit conversion of a value");
- entities: the named things and values the question mentions;
- relations: the relations between quantities, each {subject, predicate, object, unit, formula} (unit and formula null when there is none), e.g. {"subject": "wind speed", "predicate": "converted to", "object": "kilometres per hour", "unit": "km/h", "formula": "km/h = m/s * 3.6"};
- numbers: the numeric expressions with their units, each {value, unit} (unit null when there is none);
- units: every unit of measurement involved;
- field_patterns: the schema columns (table.column) likely needed.
Answer with the JSON object in a ` + "```json" + ` block.`
