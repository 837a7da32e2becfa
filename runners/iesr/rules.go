package iesr

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/runners/retrieval"
)

// defaultRulesYAML is the bundled rule base (rules.yaml).
//
//go:embed rules.yaml
var defaultRulesYAML []byte

// Unit is one unit of measurement of the rule base. A value v in this unit
// is v*Factor + Offset in the base unit of its dimension.
type Unit struct {
	Name      string   `yaml:"name"`
	Dimension string   `yaml:"dimension"`
	Factor    float64  `yaml:"factor"`
	Offset    float64  `yaml:"offset"`
	Symbols   []string `yaml:"symbols"`
}

// Rule is one consistency constraint C_j = (Enti_j, Uni_j, Equt_j) of the
// paper's Section 3.1: keywords naming the entities and operations it is
// about, the dimensions of the units it relates, and its equation.
type Rule struct {
	ID         string   `yaml:"id"`
	Keywords   []string `yaml:"keywords"`
	Dimensions []string `yaml:"dimensions"`
	Equation   string   `yaml:"equation"`

	kw map[string]bool // stemmed keyword tokens
}

// RuleBase is the rule base B of Algorithm 1: units and rules.
type RuleBase struct {
	Version int    `yaml:"version"`
	Units   []Unit `yaml:"units"`
	Rules   []Rule `yaml:"rules"`

	bySymbol map[string]*Unit
}

// DefaultRules returns the bundled rule base (rules.yaml).
func DefaultRules() *RuleBase {
	rb, err := ParseRules(defaultRulesYAML, "rules.yaml")
	if err != nil {
		panic("iesr: bundled rules.yaml: " + err.Error())
	}
	return rb
}

// LoadRules reads a rule base file.
func LoadRules(path string) (*RuleBase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("iesr: rules: %w", err)
	}
	return ParseRules(data, path)
}

// ParseRules parses and validates a rule base; errors name the file and,
// where known, the line.
func ParseRules(data []byte, file string) (*RuleBase, error) {
	var rb RuleBase
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&rb); err != nil {
		return nil, fmt.Errorf("iesr: rules %s: %w", file, err)
	}
	var node yaml.Node
	_ = yaml.Unmarshal(data, &node)
	line := func(section string, i int) string {
		if n := seqItem(&node, section, i); n != nil {
			return file + ":" + strconv.Itoa(n.Line)
		}
		return file
	}
	if rb.Version != 1 {
		return nil, fmt.Errorf("iesr: rules %s: version %d unsupported (want 1)", file, rb.Version)
	}
	rb.bySymbol = map[string]*Unit{}
	var errs []error
	for i := range rb.Units {
		u := &rb.Units[i]
		switch {
		case u.Name == "" || u.Dimension == "":
			errs = append(errs, fmt.Errorf("%s: units[%d]: name and dimension are required", line("units", i), i))
		case u.Factor <= 0 || math.IsNaN(u.Factor) || math.IsInf(u.Factor, 0):
			errs = append(errs, fmt.Errorf("%s: units[%d] (%s): factor %g must be positive", line("units", i), i, u.Name, u.Factor))
		}
		for _, s := range append([]string{u.Name}, u.Symbols...) {
			k := strings.ToLower(strings.TrimSpace(s))
			if prev, dup := rb.bySymbol[k]; dup && prev != u {
				errs = append(errs, fmt.Errorf("%s: units[%d] (%s): symbol %q already names unit %s", line("units", i), i, u.Name, s, prev.Name))
				continue
			}
			rb.bySymbol[k] = u
		}
	}
	dims := map[string]bool{}
	for _, u := range rb.Units {
		dims[u.Dimension] = true
	}
	ids := map[string]bool{}
	for i := range rb.Rules {
		r := &rb.Rules[i]
		switch {
		case r.ID == "" || r.Equation == "" || len(r.Keywords) == 0:
			errs = append(errs, fmt.Errorf("%s: rules[%d]: id, keywords and equation are required", line("rules", i), i))
		case ids[r.ID]:
			errs = append(errs, fmt.Errorf("%s: rules[%d]: duplicate id %q", line("rules", i), i, r.ID))
		}
		ids[r.ID] = true
		for _, d := range r.Dimensions {
			if !dims[d] {
				errs = append(errs, fmt.Errorf("%s: rules[%d] (%s): dimension %q has no unit", line("rules", i), i, r.ID, d))
			}
		}
		r.kw = map[string]bool{}
		for _, k := range r.Keywords {
			for _, t := range stemTokens(k) {
				r.kw[t] = true
			}
		}
	}
	if len(rb.Rules) == 0 {
		errs = append(errs, fmt.Errorf("%s: no rules", file))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("iesr: rules: %w", err)
	}
	return &rb, nil
}

// seqItem returns the i-th item node of the top-level sequence key.
func seqItem(doc *yaml.Node, key string, i int) *yaml.Node {
	if doc == nil || len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == key && i < len(m.Content[j+1].Content) {
			return m.Content[j+1].Content[i]
		}
	}
	return nil
}

// Unit returns the unit a symbol or name denotes (case-insensitive).
func (rb *RuleBase) Unit(s string) (*Unit, bool) {
	u, ok := rb.bySymbol[strings.ToLower(strings.TrimSpace(s))]
	return u, ok
}

// Convert converts v from unit a to unit b of the same dimension.
func (rb *RuleBase) Convert(v float64, from, to string) (float64, error) {
	a, ok := rb.Unit(from)
	if !ok {
		return 0, fmt.Errorf("iesr: unknown unit %q", from)
	}
	b, ok := rb.Unit(to)
	if !ok {
		return 0, fmt.Errorf("iesr: unknown unit %q", to)
	}
	if a.Dimension != b.Dimension {
		return 0, fmt.Errorf("iesr: cannot convert %s (%s) to %s (%s)", a.Name, a.Dimension, b.Name, b.Dimension)
	}
	return (v*a.Factor + a.Offset - b.Offset) / b.Factor, nil
}

// ConversionFacts returns "1 <a> = x <b>" lines for every ordered pair of
// distinct units among names that share a dimension (affine units get their
// formula), sorted.
func (rb *RuleBase) ConversionFacts(names []string) []string {
	var us []*Unit
	seen := map[*Unit]bool{}
	for _, n := range names {
		if u, ok := rb.Unit(n); ok && !seen[u] {
			seen[u] = true
			us = append(us, u)
		}
	}
	var out []string
	for _, a := range us {
		for _, b := range us {
			if a == b || a.Dimension != b.Dimension || a.Name > b.Name {
				continue
			}
			if a.Offset != 0 || b.Offset != 0 {
				k := a.Factor / b.Factor
				c := (a.Offset - b.Offset) / b.Factor
				out = append(out, fmt.Sprintf("%s = %s * %s + %s", b.Name, a.Name, fmtNum(k), fmtNum(c)))
				continue
			}
			x, _ := rb.Convert(1, a.Name, b.Name)
			out = append(out, fmt.Sprintf("1 %s = %s %s", a.Name, fmtNum(x), b.Name))
		}
	}
	sort.Strings(out)
	return out
}

func fmtNum(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'g', -1, 64)
}

// Relation is one candidate relation r_i of the latent semantic state: a
// subject, a predicate and an object, with an optional unit and formula.
type Relation struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	Unit      string `json:"unit,omitempty"`
	Formula   string `json:"formula,omitempty"`
}

// Text is the relation as one phrase.
func (r Relation) Text() string {
	return strings.TrimSpace(strings.Join([]string{r.Subject, r.Predicate, r.Object, r.Formula}, " "))
}

// Similarity is the matcher M_match's sim(r_i, Uni_j, Equt_j): the keyword
// overlap K of the stemmed word tokens T of the relation's subject,
// predicate and formula (the quantity and the operation; the object is
// usually an entity or table) with the rule's stemmed keywords W (overlap
// coefficient),
//
//	K = |T ∩ W| / min(|T|, |W|)      (0 when either is empty)
//
// combined with unit compatibility U when the relation names a unit and the
// rule names dimensions:
//
//	sim = K                          when r has no unit or the rule no dimensions
//	sim = 0.5*K + 0.5*U              otherwise, U = 1 if the unit is known and
//	                                 its dimension is one of the rule's, else 0
func (rb *RuleBase) Similarity(r Relation, rule *Rule) float64 {
	toks := map[string]bool{}
	for _, t := range stemTokens(r.Subject + " " + r.Predicate + " " + r.Formula) {
		toks[t] = true
	}
	k := 0.0
	if len(toks) > 0 && len(rule.kw) > 0 {
		inter := 0
		for t := range toks {
			if rule.kw[t] {
				inter++
			}
		}
		k = float64(inter) / float64(min(len(toks), len(rule.kw)))
	}
	if strings.TrimSpace(r.Unit) == "" || len(rule.Dimensions) == 0 {
		return k
	}
	u := 0.0
	if unit, ok := rb.Unit(r.Unit); ok {
		for _, d := range rule.Dimensions {
			if d == unit.Dimension {
				u = 1
			}
		}
	}
	return 0.5*k + 0.5*u
}

// Match returns the best rule for r (Plan(r_i, B): the highest similarity,
// ties to the earlier rule) and its similarity; ok is false when no rule
// exceeds deltaMatch (Match(r_i, C) of equation 2).
func (rb *RuleBase) Match(r Relation, deltaMatch float64) (rule *Rule, sim float64, ok bool) {
	for i := range rb.Rules {
		if s := rb.Similarity(r, &rb.Rules[i]); rule == nil || s > sim {
			rule, sim = &rb.Rules[i], s
		}
	}
	return rule, sim, rule != nil && sim > deltaMatch
}

// Grounding is what the executor checks a relation against: the word
// tokens of the question, evidence and schema names, and the numbers of
// the question and evidence.
type Grounding struct {
	Words   map[string]bool
	Numbers map[string]bool
}

// NewGrounding tokenises the texts.
func NewGrounding(texts ...string) Grounding {
	g := Grounding{Words: map[string]bool{}, Numbers: map[string]bool{}}
	for _, s := range texts {
		for _, t := range stemTokens(s) {
			g.Words[t] = true
		}
		for _, n := range numbers(s) {
			g.Numbers[n] = true
		}
	}
	return g
}

// Consistency is the Plan & Executor soft consistency score s_i of
// equation 3 for relation r under its planned rule: the mean of three
// checks, each in [0, 1],
//
//	grounded = share of the stemmed words of subject and object that occur
//	           in the question, evidence or schema names (1 when none)
//	unit     = 1 when r names no unit, or a known unit whose dimension the
//	           rule relates (or the rule relates none); 0 otherwise
//	numbers  = share of the numbers in r's subject and object found in the
//	           question or evidence (1 when they have none)
//
//	s = (grounded + unit + numbers) / 3
//
// The numbers check reads the subject and object only, the quantities the
// question states: a formula's constants (3.6 in "km/h = m/s * 3.6") come
// from the model's knowledge, never from the question, and counting them
// would drop every correct conversion relation.
func (rb *RuleBase) Consistency(r Relation, rule *Rule, g Grounding) float64 {
	var words []string
	for _, t := range stemTokens(r.Subject + " " + r.Object) {
		if !isNumber(t) {
			words = append(words, t)
		}
	}
	grounded := 1.0
	if len(words) > 0 {
		hit := 0
		for _, w := range words {
			if g.Words[w] {
				hit++
			}
		}
		grounded = float64(hit) / float64(len(words))
	}
	unit := 1.0
	if strings.TrimSpace(r.Unit) != "" {
		u, ok := rb.Unit(r.Unit)
		switch {
		case !ok:
			unit = 0
		case rule != nil && len(rule.Dimensions) > 0:
			unit = 0
			for _, d := range rule.Dimensions {
				if d == u.Dimension {
					unit = 1
				}
			}
		}
	}
	nums := numbers(r.Subject + " " + r.Object)
	numScore := 1.0
	if len(nums) > 0 {
		hit := 0
		for _, n := range nums {
			if g.Numbers[n] {
				hit++
			}
		}
		numScore = float64(hit) / float64(len(nums))
	}
	return (grounded + unit + numScore) / 3
}

// VerifiedRelation is a relation with its verification outcome.
type VerifiedRelation struct {
	Relation
	Rule       string  `json:"rule,omitempty"`
	Equation   string  `json:"equation,omitempty"`
	Similarity float64 `json:"similarity"`
	Score      float64 `json:"score"`
	// Stage is "kept", "no_rule" (failed Match) or "low_score" (s <= tau).
	Stage string `json:"stage"`
}

// Verify runs Algorithm 1's filtering: a relation is a candidate when its
// best rule's similarity exceeds deltaMatch (R_cand), and kept when its
// consistency score exceeds tau (R_high). It returns every relation with
// its outcome, in input order.
func (rb *RuleBase) Verify(rels []Relation, g Grounding, deltaMatch, tau float64) []VerifiedRelation {
	out := make([]VerifiedRelation, 0, len(rels))
	for _, r := range rels {
		v := VerifiedRelation{Relation: r}
		rule, sim, ok := rb.Match(r, deltaMatch)
		v.Similarity = round6(sim)
		if !ok {
			v.Stage = "no_rule"
			out = append(out, v)
			continue
		}
		v.Rule, v.Equation = rule.ID, rule.Equation
		v.Score = round6(rb.Consistency(r, rule, g))
		if v.Score > tau {
			v.Stage = "kept"
		} else {
			v.Stage = "low_score"
		}
		out = append(out, v)
	}
	return out
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// stemTokens splits s into lower-case word tokens (retrieval.Tokens, which
// also splits snake_case) and strips a plural "s"/"es" from words longer
// than three letters.
func stemTokens(s string) []string {
	toks := retrieval.Tokens(s)
	for i, t := range toks {
		toks[i] = stem(t)
	}
	return toks
}

func stem(t string) string {
	switch {
	case len(t) > 4 && strings.HasSuffix(t, "ies"):
		return t[:len(t)-3] + "y"
	case len(t) > 4 && (strings.HasSuffix(t, "ses") || strings.HasSuffix(t, "xes")):
		return t[:len(t)-2]
	case len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss"):
		return t[:len(t)-1]
	}
	return t
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// numbers returns the numeric literals of s, normalised (12.0 -> 12).
func numbers(s string) []string {
	var out []string
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= '0' && c <= '9' && (i == 0 || !isWordByte(s[i-1])) {
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
				j++
			}
			if f, err := strconv.ParseFloat(s[i:j], 64); err == nil {
				out = append(out, strconv.FormatFloat(f, 'g', -1, 64))
			}
			i = j
			continue
		}
		i++
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
