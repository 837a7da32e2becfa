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
// ("singers" ~ "singer", "departments" ~ "department").
func stem(w string) string {
	w = strings.ToLower(w)
	for _, suf := range []string{"ies", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			w = strings.TrimSuffix(w, suf)
			break
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
	cols  []string // columns whose name words the question uses
	table PromptTable
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

// Recall is the share of the tables a question relates to that a schema
// selection or decomposition of a model with accuracy p keeps:
//
//	recall = (1 + p) / 2
//
// so a perfect model keeps them all and a useless one half of them.
func Recall(p float64) float64 { return (1 + p) / 2 }

// pickTables is the model's choice of tables among those the prompt shows:
// each table the question relates to (relevance score > 0) is kept with
// probability Recall(p); the best-scored one is kept always. With no
// related table, the first table shown.
func pickTables(c *Sample) []scoredTable {
	sc := relevance(c.Prompt, c.Question+" "+c.Evidence)
	var out []scoredTable
	for i, t := range sc {
		if t.score == 0 {
			break
		}
		if i == 0 || c.Rand.Float64() < Recall(c.P) {
			out = append(out, t)
		}
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
