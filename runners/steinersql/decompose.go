package steinersql

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/jsontext"
	"github.com/t2sbench/t2sbench/runners/retrieval"
)

// Decomposition is Stage 1's output (paper Section 3.2): the mathematical
// entities of the question and the terminal tables T_req.
type Decomposition struct {
	// Operations are computational keywords with their target attribute:
	// {"function": "AVG", "target": "enrollment.grade"}.
	Operations []Operation `json:"operations"`
	// Quantities are numerical constraints: {"value": "60", "operator":
	// ">=", "attribute": "enrollment.grade"}.
	Quantities []Quantity `json:"quantities"`
	// Aggregations are grouping needs ("per department").
	Aggregations []string `json:"aggregations"`
	// Temporal are time-based parts ("during 2023").
	Temporal []string `json:"temporal"`
	// Dependencies are the computational dependencies of the entities
	// (paper Section 3.2, Tables 6 and 8 part 1b: "the classification
	// requires transactions and productRevenue; the grouping requires the
	// date and the classification result"). Asked for only when the
	// dependency analysis is on.
	Dependencies Dependencies `json:"dependencies,omitempty"`
	// Terminals is T_req: the tables the computation needs.
	Terminals []string `json:"terminal_tables"`
}

// Dependency is one mathematical entity and what it is computed from:
// schema attributes ("table.column") and the results of other entities
// (by their entity name).
type Dependency struct {
	Entity   string   `json:"entity"`
	Requires []string `json:"requires"`
}

// Dependencies is the dependency list of a decomposition. It decodes the
// forms models write besides the asked one: an entry's name under
// "entity" or "name", what it requires under "requires", "depends_on",
// "inputs" or "uses" (key case and '_'/'-' ignored) as a list or a single
// string; or the whole list as an object mapping each entity to what it
// requires ({"classification": ["totals.transactions"]}, in key order);
// a bare string in the list is an entity without requirements, and a
// scalar where the list belongs is read as no dependencies, so that one
// drifting field does not fail the whole decomposition.
type Dependencies []Dependency

// UnmarshalJSON implements json.Unmarshaler (see Dependencies).
func (ds *Dependencies) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("dependencies: %w", err)
	}
	switch tok {
	case nil:
		*ds = nil
		return nil
	case json.Delim('['):
		var raw []any
		if err := json.Unmarshal(b, &raw); err != nil {
			return fmt.Errorf("dependencies: %w", err)
		}
		out := Dependencies{}
		for _, x := range raw {
			m, ok := x.(map[string]any)
			if !ok {
				// A bare entity name (or prose) in the list: an entity
				// without stated requirements.
				if e := scalarText(x); e != "" {
					out = append(out, Dependency{Entity: e})
				}
				continue
			}
			var d Dependency
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys) // several requirement keys append in a fixed order
			for _, k := range keys {
				v := m[k]
				switch strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(k)) {
				case "entity", "name":
					d.Entity = scalarText(v)
				case "requires", "dependson", "inputs", "uses", "required":
					d.Requires = append(d.Requires, textList(v)...)
				}
			}
			out = append(out, d)
		}
		*ds = out
		return nil
	case json.Delim('{'):
		out := Dependencies{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("dependencies: %w", err)
			}
			var v any
			if err := dec.Decode(&v); err != nil {
				return fmt.Errorf("dependencies: %w", err)
			}
			out = append(out, Dependency{Entity: fmt.Sprint(kt), Requires: textList(v)})
		}
		*ds = out
		return nil
	}
	// A scalar (prose where a list was asked) carries no usable
	// dependency; it does not fail the rest of the decomposition.
	*ds = nil
	return nil
}

// scalarText is a JSON scalar as text ("" for null, objects and lists).
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64, bool:
		return fmt.Sprint(x)
	}
	return ""
}

// textList is a JSON value as a list of strings: a list's scalars, or a
// single scalar.
func textList(v any) []string {
	if xs, ok := v.([]any); ok {
		var out []string
		for _, x := range xs {
			if s := scalarText(x); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if s := scalarText(v); s != "" {
		return []string{s}
	}
	return nil
}

// Operation is one computational keyword and its target attribute.
type Operation struct {
	Function string `json:"function"`
	Target   string `json:"target"`
}

// Quantity is one numerical constraint.
type Quantity struct {
	Value     string `json:"value"`
	Operator  string `json:"operator"`
	Attribute string `json:"attribute"`
}

// decompositionSchema is the JSON schema of the Stage 1 answer. It
// follows OpenAI's strict-mode rules (every property listed in required,
// additionalProperties false on every object, no map-typed property, only
// supported keywords), so that a server enforcing strict mode accepts the
// request; TestSchemasStrict checks it.
const decompositionSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["operations", "quantities", "aggregations", "temporal", "terminal_tables"],
  "properties": {` + schemaEntityProps + `,
    "terminal_tables": {"type": "array", "items": {"type": "string"}}
  }
}`

// decompositionDepSchema is decompositionSchema with the dependencies
// that the dependency analysis (Algorithm 1) reads; the same strict-mode
// rules hold.
const decompositionDepSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["operations", "quantities", "aggregations", "temporal", "dependencies", "terminal_tables"],
  "properties": {` + schemaEntityProps + `,
    "dependencies": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["entity", "requires"],
      "properties": {"entity": {"type": "string", "description": "a short name of one computation, filter, grouping or derived value"},
                     "requires": {"type": "array", "items": {"type": "string"}, "description": "table.column attributes and names of other entities whose result it uses"}}}},
    "terminal_tables": {"type": "array", "items": {"type": "string"}}
  }
}`

// schemaEntityProps are the JSON schema properties of the entities both
// decomposition schemas share.
const schemaEntityProps = `
    "operations": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["function", "target"],
      "properties": {"function": {"type": "string", "description": "COUNT, SUM, AVG, MIN, MAX, or an arithmetic operation such as RATIO, DIFFERENCE, PRODUCT"},
                     "target": {"type": "string", "description": "table.column the operation applies to"}}}},
    "quantities": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["value", "operator", "attribute"],
      "properties": {"value": {"type": "string"}, "operator": {"type": "string"}, "attribute": {"type": "string"}}}},
    "aggregations": {"type": "array", "items": {"type": "string"}},
    "temporal": {"type": "array", "items": {"type": "string"}}`

// SchemaDecomposition names decompositionSchema in requests, and
// SchemaDecompositionDeps decompositionDepSchema.
const (
	SchemaDecomposition     = "math_decomposition"
	SchemaDecompositionDeps = "math_decomposition_dependencies"
)

// Schemas returns every JSON schema the runner can send, by the name it
// sends it under, so that a test can check each against the rules of
// servers that enforce strict mode.
func Schemas() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		SchemaDecomposition:     json.RawMessage(decompositionSchema),
		SchemaDecompositionDeps: json.RawMessage(decompositionDepSchema),
	}
}

// ParseDecomposition reads a Stage 1 answer leniently (jsontext.Decode):
// the last JSON object of the answer, inside a fence or prose, with
// numbers and strings interchangeable (a quantity's value 60 or "60"), key
// case and spelling drift, and a single name where a list is asked
// ("terminal_tables": "student", "requires": "student.age"). Entries left empty (an operation without
// a function, a quantity without a value, blank strings) are dropped.
func ParseDecomposition(out string) (*Decomposition, error) {
	var d Decomposition
	if err := jsontext.Decode(out, &d); err != nil {
		return nil, fmt.Errorf("decomposition: %w", err)
	}
	d.Operations = slices.DeleteFunc(d.Operations, func(o Operation) bool { return strings.TrimSpace(o.Function) == "" })
	d.Quantities = slices.DeleteFunc(d.Quantities, func(q Quantity) bool { return strings.TrimSpace(q.Value) == "" })
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	d.Aggregations = slices.DeleteFunc(d.Aggregations, blank)
	d.Temporal = slices.DeleteFunc(d.Temporal, blank)
	d.Terminals = slices.DeleteFunc(d.Terminals, blank)
	d.Dependencies = slices.DeleteFunc(d.Dependencies, func(x Dependency) bool { return blank(x.Entity) })
	for i := range d.Dependencies {
		d.Dependencies[i].Requires = slices.DeleteFunc(d.Dependencies[i].Requires, blank)
	}
	return &d, nil
}

// Correction records how one terminal name was resolved against the
// schema.
type Correction struct {
	Given string  `json:"given"`
	Table string  `json:"table,omitempty"` // "" when dropped
	Sim   float64 `json:"sim"`
}

// ResolveTerminals maps terminal names to schema tables: exact
// (case-insensitive) names are kept; an unknown name is corrected to the
// table with the highest edit similarity when that is >= threshold, else
// dropped. "schema.table" and quoted forms are reduced to the table name.
// The result is deduplicated, in schema spelling, sorted.
func ResolveTerminals(s *datasets.Schema, names []string, threshold float64) ([]string, []Correction) {
	seen := map[string]bool{}
	var out []string
	var notes []Correction
	for _, raw := range names {
		n := strings.Trim(strings.TrimSpace(raw), "`\"[]")
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			n = n[i+1:]
		}
		if n == "" {
			continue
		}
		name := ""
		if t, ok := s.Table(n); ok {
			name = t.Name
		} else {
			best, bestSim := "", -1.0
			for _, t := range s.Tables {
				sim := retrieval.EditSimilarity(n, t.Name)
				if sim > bestSim || sim == bestSim && t.Name < best {
					best, bestSim = t.Name, sim
				}
			}
			c := Correction{Given: raw, Sim: bestSim}
			if bestSim >= threshold {
				name, c.Table = best, best
			}
			notes = append(notes, c)
		}
		if name != "" && !seen[strings.ToLower(name)] {
			seen[strings.ToLower(name)] = true
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, notes
}

// LinkTerminals is the terminal set without Stage 1 ("w/o decomposition"):
// tables ranked by the lexical overlap of the question (and evidence) with
// the table's name tokens (2 each) and non-key column-name tokens (0.5 per
// column; columns with an "id" token are skipped, they name other tables);
// the top k whose score is positive and at least half the best score are
// kept (at least one table).
func LinkTerminals(s *datasets.Schema, question string, k int) []string {
	qt := map[string]bool{}
	for _, tok := range retrieval.Tokens(question) {
		qt[tok] = true
		qt[strings.TrimSuffix(tok, "s")] = true
	}
	type scored struct {
		name  string
		score float64
	}
	var ss []scored
	for _, t := range s.Tables {
		sc := 0.0
		for _, tok := range retrieval.Tokens(t.Name) {
			if qt[tok] {
				sc += 2
			}
		}
		for _, c := range t.Columns {
			toks := retrieval.Tokens(c.Name)
			if slices.Contains(toks, "id") {
				continue // keys and foreign keys name other tables
			}
			for _, tok := range toks {
				if qt[tok] {
					sc += 0.5
					break
				}
			}
		}
		ss = append(ss, scored{t.Name, sc})
	}
	slices.SortFunc(ss, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.name, b.name)) })
	var out []string
	for i, x := range ss {
		if i >= k || len(out) > 0 && (x.score <= 0 || x.score < ss[0].score/2) {
			break
		}
		out = append(out, x.name)
	}
	slices.Sort(out)
	return out
}

// decomposePrompt builds the Stage 1 messages.
// With deps, it also asks for the computational dependencies that the
// dependency analysis (Algorithm 1) orders.
func decomposePrompt(s *datasets.Schema, question, evidence string, deps bool) (system, user string) {
	system = "You are an expert in mathematical analysis of database questions. Decompose the question into its " +
		"mathematical entities and identify the tables the computation requires."
	var b strings.Builder
	b.WriteString("Database tables:\n")
	for _, t := range s.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name
		}
		fmt.Fprintf(&b, "- %s(%s)\n", t.Name, strings.Join(cols, ", "))
	}
	fmt.Fprintf(&b, "\nQuestion: %s\n", question)
	if strings.TrimSpace(evidence) != "" {
		fmt.Fprintf(&b, "Evidence: %s\n", evidence)
	}
	b.WriteString(`
Analyse the question in four dimensions:
1. Computational keywords: the operations (COUNT, SUM, AVG, MIN, MAX, arithmetic) and the table.column each applies to.
2. Quantitative expressions: numerical constraints, ranges and comparison operators.
3. Aggregation requirements: grouping needs and hierarchical computations.
4. Temporal dependencies: time-based calculations and date ranges.
Then list the terminal tables: tables holding attributes used in the computation, tables needed for
intermediate calculations, and tables needed for constraints and filters. Use exact table names from the list.
`)
	if deps {
		b.WriteString(dependencyInstruction)
		b.WriteString("Answer with one JSON object with the keys operations, quantities, aggregations, temporal, dependencies, terminal_tables.")
	} else {
		b.WriteString("Answer with one JSON object with the keys operations, quantities, aggregations, temporal, terminal_tables.")
	}
	return system, b.String()
}
