package sim

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
)

// This file holds what the simulated model reads from a prompt for its
// intermediate answers: the question's terms, the tables and columns of the
// prompt's schema that relate to them, and the values the schema shows.
// None of it looks at the gold SQL.

var (
	quotedRe  = regexp.MustCompile(`'([^']+)'|"([^"]+)"`)
	capWordRe = regexp.MustCompile(`\b[A-Z][\p{L}\d]*(?:\s+[A-Z][\p{L}\d]*)*\b`)
	numberRe  = regexp.MustCompile(`(?:^|[^\w.])(-?\d+(?:\.\d+)?)`)
)

// stopwords are question words that name no schema item or value.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to for from by with and or not no is are was were be been
		what which who whom whose when where why how many much list show give find return tell name names all each every
		any some than more less most least that this these those there their its it do does did have has had please
		per as into over under between among about after before during also only other same such both either neither
		can could would should will shall may might must me we you they he she them his her our your`) {
		stopwords[w] = true
	}
}

// Terms are what the model takes from a question (and the evidence when the
// prompt carries it) as worth looking up: quoted phrases, capitalised
// phrases past the first word, numbers, then the remaining content words.
func Terms(question, evidence string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(strings.Trim(s, "%?.,;:!"))
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	for _, text := range []string{question, evidence} {
		for _, m := range quotedRe.FindAllStringSubmatch(text, -1) {
			add(m[1] + m[2])
		}
	}
	q := question
	if i := strings.IndexByte(q, ' '); i > 0 {
		q = q[i:]
	}
	for _, m := range capWordRe.FindAllString(q, -1) {
		add(m)
	}
	for _, m := range numberRe.FindAllStringSubmatch(question, -1) {
		add(m[1])
	}
	for _, w := range wordsOf(question) {
		if len(w) >= 3 && !stopwords[w] && !isNumber(w) {
			add(w)
		}
	}
	return out
}

func isNumber(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return s != ""
}

// stem is the prefix two words must share to count as the same word
// ("singers" ~ "singer", "departments" ~ "department", "cities" ~
// "city").
func stem(w string) string {
	w = strings.ToLower(w)
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = strings.TrimSuffix(w, "ies") + "y" // "cities" ~ "city"
	default:
		for _, suf := range []string{"es", "s"} {
			if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
				w = strings.TrimSuffix(w, suf)
				break
			}
		}
	}
	if len(w) > 6 {
		w = w[:6]
	}
	return w
}

// nameWords splits an identifier into lower-case words ("Singer_ID" ->
// singer, id; "songName" -> song, name).
func nameWords(name string) []string { return wordsOf(datasets.SpacedName(name)) }

// weakWords name nearly every table's columns; they do not make a table
// relevant on their own.
var weakWords = map[string]bool{"id": true, "name": true, "type": true, "code": true, "date": true, "number": true, "no": true}

// scoredTable is a prompt table with its lexical relevance to a question.
type scoredTable struct {
	name  string
	score int
	// named is whether the text uses a word of the table's own name.
	named bool
	cols  []string // columns whose name words the question uses
	// valueCols are the columns of cols with a shown value the text uses.
	valueCols []string
	table     PromptTable
}

// numericType reports whether a shown column type is numeric.
func numericType(t string) bool {
	u := strings.ToUpper(t)
	for _, k := range []string{"INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"} {
		if strings.Contains(u, k) {
			return true
		}
	}
	return false
}

// aggTarget is the column an aggregate the question asks for applies to:
// among the tables the question relates to, the first related numeric
// column, else the first numeric column that is not a key ("*" for COUNT
// or when there is none).
func aggTarget(sc []scoredTable, fn string) string {
	if fn == "COUNT" || fn == "" {
		return "*"
	}
	for _, t := range sc {
		if t.score == 0 {
			break
		}
		for _, c := range t.table.Columns {
			if numericType(c.Type) && containsFold(t.cols, c.Name) {
				return t.name + "." + c.Name
			}
		}
	}
	for _, t := range sc {
		if t.score == 0 {
			break
		}
		for _, c := range t.table.Columns {
			low := strings.ToLower(c.Name)
			if numericType(c.Type) && !strings.HasSuffix(low, "id") && !strings.Contains(strings.ToLower(c.Type), "primary") {
				return t.name + "." + c.Name
			}
		}
	}
	return "*"
}

// relevance scores every table of p against the words of text: 2 per word
// of the table's name the text uses, 1 per column whose name (past the
// weak words) the text uses, and 1 per shown value example the text
// mentions. Tables come sorted by score, then prompt order.
func relevance(p *Prompt, text string) []scoredTable {
	stems := map[string]bool{}
	for _, w := range wordsOf(text) {
		if !stopwords[w] {
			stems[stem(w)] = true
		}
	}
	tp := parsePromptText(text)
	// named holds the words of the tables the text names: a column that
	// only repeats one of them (enrollment.student_id when the question
	// says "students") is a join key to that table, not a reason to use
	// its own table.
	named := map[string]bool{}
	for _, t := range p.Tables {
		for _, w := range nameWords(t.Name) {
			if !weakWords[w] && stems[stem(w)] {
				named[stem(w)] = true
			}
		}
	}
	var out []scoredTable
	for _, t := range p.Tables {
		st := scoredTable{name: t.Name, table: t}
		own := map[string]bool{}
		for _, w := range nameWords(t.Name) {
			own[stem(w)] = true
			if !weakWords[w] && stems[stem(w)] {
				st.score += 2
				st.named = true
			}
		}
		for _, c := range t.Columns {
			hit := false
			for _, w := range nameWords(c.Name) {
				if !weakWords[w] && stems[stem(w)] && (own[stem(w)] || !named[stem(w)]) {
					hit = true
				}
			}
			for _, e := range c.Examples {
				if len(e) >= 3 && tp.Contains(e) {
					hit = true
					st.valueCols = append(st.valueCols, c.Name)
					break
				}
			}
			if hit {
				st.score++
				st.cols = append(st.cols, c.Name)
			}
		}
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// scored is the prompt's tables scored against the question and the
// evidence the prompt carries (relevance), computed once per request: the
// samples of a request share its prompt. Callers do not change it.
func (c *Sample) scored() []scoredTable {
	p := c.Prompt
	text := c.Question + " " + c.Evidence
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scored == nil || p.scoredText != text {
		p.scored, p.scoredText = relevance(p, text), text
	}
	return p.scored
}

// related is the model's reading of which tables a question needs, from
// the prompt's tables scored by relevance (sc): the tables it relates to
// (relevance score > 0, best first), then the join tables it implies
// without naming them (bridgeTables).
func related(sc []scoredTable) []scoredTable {
	var out []scoredTable
	for _, t := range sc {
		if t.score > 0 {
			out = append(out, t)
		}
	}
	return append(out, bridgeTables(sc, out)...)
}

// linkColumn reports whether a column name reads as a key that joins
// tables: it ends in "id" and is more than the bare "id".
func linkColumn(name string) bool {
	low := strings.ToLower(name)
	return len(low) > 2 && strings.HasSuffix(low, "id")
}

// bridgeTables are the tables of sc the question does not relate to
// (score 0) that share a key column (linkColumn) with two or more of the
// related tables: the join tables a question implies but does not name
// (a student's courses go through an enrolment table).
func bridgeTables(sc, rel []scoredTable) []scoredTable {
	if len(rel) < 2 {
		return nil
	}
	var out []scoredTable
	for _, t := range sc {
		if t.score > 0 {
			continue
		}
		links := 0
		for _, r := range rel {
			for _, c := range t.table.Columns {
				if linkColumn(c.Name) && r.table.HasColumn(c.Name) {
					links++
					break
				}
			}
		}
		if links >= 2 {
			out = append(out, t)
		}
	}
	return out
}

// displayColumns are the "table.column" names that identify the rows of
// the tables the question relates to by name (relevance score > 0): a
// column "name" or "title", or one ending in "_name": a question about a
// table's rows ("which station ...") asks for what identifies them.
func displayColumns(tables []scoredTable) []string {
	var out []string
	for _, t := range tables {
		if t.score == 0 {
			continue
		}
		for _, c := range t.table.Columns {
			low := strings.ToLower(c.Name)
			if low == "name" || low == "title" || strings.HasSuffix(low, "_name") {
				out = append(out, t.name+"."+c.Name)
				break
			}
		}
	}
	return out
}

// joinColumns are the "table.column" keys that join two of tables: a key
// column (linkColumn) both show, or a column "<name>_id" (or
// "<name>id") of one that names the other, with the other's "id".
func joinColumns(tables []scoredTable) []string {
	var out []string
	add := func(t, c string) {
		if f := t + "." + c; !containsFold(out, f) {
			out = append(out, f)
		}
	}
	for i, a := range tables {
		for j, b := range tables {
			if i == j {
				continue
			}
			for _, c := range a.table.Columns {
				if i < j && linkColumn(c.Name) && b.table.HasColumn(c.Name) {
					add(a.name, c.Name)
					add(b.name, c.Name)
				}
				low := strings.ToLower(c.Name)
				bn := strings.ToLower(b.name)
				if (low == bn+"_id" || low == bn+"id" || low == strings.TrimSuffix(bn, "s")+"_id") && b.table.HasColumn("id") {
					add(a.name, c.Name)
					add(b.name, "id")
				}
			}
		}
	}
	return out
}

// pickTables is the model's choice of tables among those the prompt shows:
// the tables of its ranked reading (keywordReading: the tables the
// question relates to, then the join tables it implies), each kept at its
// tier's rate of the model's schema keep rates, and the other shown
// tables at their pool rate. The rates (KindCalibration.RecallPoint on
// the benchmark's calibration) keep the tiers most precise first until
// the expected recall against the gold is the profile's SchemaRecall, so
// that, as for a keyword extraction, the figure is the profile's against
// the gold, not a share of the reading. Each sample draws its own
// (Sample.Rand). With none kept, the table the question relates to most
// (the first shown when it relates to none).
func pickTables(c *Sample) []scoredTable {
	sc := c.scored()
	byName := map[string]scoredTable{}
	for _, t := range sc {
		byName[strings.ToLower(t.name)] = t
	}
	k := c.model.operatingPoints().schema
	r := tableRanking(c, related(sc), stemsOf(c.Question+" "+c.Evidence))
	var out []scoredTable
	keep := func(name string, rate float64) {
		if t, ok := byName[strings.ToLower(name)]; ok && c.Rand.Float64() < rate {
			out = append(out, t)
		}
	}
	for tier, items := range r.tiers {
		for _, x := range items {
			if tier < len(k.Tier) {
				keep(x, k.Tier[tier])
			}
		}
	}
	for _, x := range r.pool {
		keep(x, k.Pool)
	}
	if len(out) == 0 && len(sc) > 0 {
		out = append(out, sc[0])
	}
	return out
}

// valueMatches finds, for each term, the shown value examples equal to it
// (case-insensitive), as "table.column" -> value.
type valueMatch struct{ term, table, column, value string }

func valueMatches(p *Prompt, terms []string) []valueMatch {
	var out []valueMatch
	for _, term := range terms {
		for _, t := range p.Tables {
			for _, col := range t.Columns {
				for _, e := range col.Examples {
					if strings.EqualFold(strings.TrimSpace(e), term) {
						out = append(out, valueMatch{term, t.Name, col.Name, e})
					}
				}
			}
		}
	}
	return out
}

// intent is what the question asks for, from its wording.
func intent(question string) (name, function string) {
	q := " " + strings.ToLower(question) + " "
	switch {
	case strings.Contains(q, "how many") || strings.Contains(q, " number of ") || strings.Contains(q, " count "):
		return "count", "COUNT"
	case strings.Contains(q, "average") || strings.Contains(q, " mean "):
		return "average", "AVG"
	case strings.Contains(q, " total ") || strings.Contains(q, " sum "):
		return "total", "SUM"
	case strings.Contains(q, "highest") || strings.Contains(q, "maximum") || strings.Contains(q, " most ") || strings.Contains(q, "largest") || strings.Contains(q, "oldest"):
		return "maximum", "MAX"
	case strings.Contains(q, "lowest") || strings.Contains(q, "minimum") || strings.Contains(q, " least ") || strings.Contains(q, "smallest") || strings.Contains(q, "youngest"):
		return "minimum", "MIN"
	}
	return "lookup", ""
}

func fenceJSON(v any) string {
	b, _ := json.Marshal(v)
	return "```json\n" + string(b) + "\n```"
}
