package sim

import (
	"encoding/binary"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// This file holds the model's ranked reading of a question's keywords
// (tables, columns, numbers with units, operators) and the extraction
// that keeps part of it at a profile row's operating point. Like
// reading.go, it reads the prompt only, never the gold SQL.

// Tiers of each kind's ranking: a reading item belongs to the first tier
// that lists it. The tiers say how the reading found an item, which is
// how confident a model would be in it; the calibration (Calibration)
// orders them by their measured precision.
const (
	// Tables.
	tierTableBest    = iota // the related table the text relates to most
	tierTableExact          // another table every word of whose name the text uses
	tierTableNamed          // another table whose name the text uses a word of
	tierTableRelated        // related by a column name or a shown value only
	tierTableBridge         // a join table the related tables imply
)

const (
	// Columns.
	tierColumnValue   = iota // a column with a shown value the text uses
	tierColumnExact          // a column every word of whose name the text uses
	tierColumnNamed          // another column the text names, of a table it names
	tierColumnRelated        // a column the text names, of another table
	tierColumnDisplay        // the column identifying a named table's rows
	tierColumnJoin           // a key joining two listed tables
)

const (
	// Numbers.
	tierNumberQuestion = iota // written in digits in the question
	tierNumberWord            // spelt out in the question
	tierNumberHint            // in the hint the prompt carries
	tierNumberText            // part of a date, a time, a name or a unit's definition
)

const (
	// Operators.
	tierOperatorIntent      = iota // the aggregate the question's intent asks for, by its name
	tierOperatorTotal              // another COUNT, AVG or SUM the wording names
	tierOperatorExtreme            // MAX or MIN the wording names, or the COUNT of "most"
	tierOperatorWording            // a comparison or arithmetic the wording implies
	tierOperatorHint               // in the hint's formula
	tierOperatorValue              // "=" for a value the question names
	tierOperatorEqual              // "=" for a join
	tierOperatorLoose              // IN for a negation, a division for "per"
	tierOperatorSuperlative        // MAX or MIN a superlative implies ("the highest")
	tierOperatorDefault            // "=" otherwise: most queries filter or join
)

// numTiers is the number of tiers of each kind.
var numTiers = [numKinds]int{5, 6, 4, 10}

// kindNames name the kinds in Table 4's order.
var kindNames = [numKinds]string{"table", "column", "number", "operator"}

// ranking is one kind's reading: its items by tier, and the pool the
// extraction draws its lowest-confidence items from (what the reading does
// not list: another shown table, another column of a related table, a
// number with a misread magnitude, another operator).
type ranking struct {
	tiers [][]string
	pool  []string
}

// add lists item in tier unless an earlier item is the same
// (case-insensitive).
func (r *ranking) add(tier int, item string) {
	if item == "" || r.has(item) {
		return
	}
	for len(r.tiers) <= tier {
		r.tiers = append(r.tiers, nil)
	}
	r.tiers[tier] = append(r.tiers[tier], item)
}

func (r *ranking) has(item string) bool {
	for _, t := range r.tiers {
		if containsFold(t, item) {
			return true
		}
	}
	return false
}

// items are the reading's items, tier by tier.
func (r *ranking) items() []string {
	var out []string
	for _, t := range r.tiers {
		out = append(out, t...)
	}
	return out
}

// setPool makes the pool the candidates the reading does not list.
func (r *ranking) setPool(candidates []string) {
	r.pool = nil
	for _, x := range candidates {
		if !r.has(x) && !containsFold(r.pool, x) {
			r.pool = append(r.pool, x)
		}
	}
}

// keywordNumber is a number of the question with its unit.
type keywordNumber struct {
	Value string `json:"value"`
	Unit  string `json:"unit"`
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// questionKeywords is what the simulated model reads as the question's
// keywords.
type questionKeywords struct {
	// rank is the ranked reading of each kind.
	rank [numKinds]ranking
	// numbers are the numbers with their units.
	numbers []keywordNumber
}

// hasNumber is whether the reading lists number v.
func (k questionKeywords) hasNumber(v string) bool {
	return slices.ContainsFunc(k.numbers, func(n keywordNumber) bool { return n.Value == v })
}

// unitOf is the unit the reading gives number v ("" for none).
func (k questionKeywords) unitOf(v string) string {
	for _, n := range k.numbers {
		if n.Value == v {
			return n.Unit
		}
	}
	return ""
}

// numbersOf gives each value its unit.
func (k questionKeywords) numbersOf(vals []string) []keywordNumber {
	out := []keywordNumber{}
	for _, v := range vals {
		out = append(out, keywordNumber{Value: v, Unit: k.unitOf(v)})
	}
	return out
}

// readableOperators are the operators a model names for a question: the
// pool a lowest-confidence operator comes from.
var readableOperators = []string{"=", ">", "<", ">=", "<=", "<>", "LIKE", "IN", "BETWEEN", "COUNT", "SUM", "AVG", "MAX", "MIN", "-", "+", "*", "/"}

// unitWords are the units the simulated model recognises after a number.
var unitWords = map[string]bool{"km": true, "m": true, "cm": true, "mm": true, "kg": true, "g": true, "t": true, "s": true,
	"h": true, "min": true, "hours": true, "hour": true, "minutes": true, "seconds": true, "days": true, "years": true,
	"km/h": true, "m/s": true, "mph": true, "kw": true, "kwh": true, "w": true, "v": true, "a": true, "l": true, "ml": true,
	"%": true, "percent": true, "°c": true, "°f": true, "k": true, "pa": true, "kpa": true, "mb": true, "gb": true}

// numberWords are the number words a question spells out, by value.
var numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// spelledNumbers are the values of the number words the lower-case text
// q (padded with spaces) spells out, in the order q first uses them, so
// that a reading lists them as it lists the numbers written in digits.
func spelledNumbers(q string) []string {
	type hit struct{ at, value int }
	var hits []hit
	for i, w := range numberWords {
		if at := strings.Index(q, " "+w+" "); at >= 0 {
			hits = append(hits, hit{at, i + 1})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.at - b.at })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = strconv.Itoa(h.value)
	}
	return out
}

// hintComparisonRe finds the comparison operators a hint writes.
var hintComparisonRe = regexp.MustCompile(`>=|<=|<>|!=|=|<|>`)

var numberUnitRe = regexp.MustCompile(`(?:^|[^\w.])(-?\d+(?:\.\d+)?)\s*(%|°[CcFf]|[A-Za-z]+(?:/[A-Za-z]+)?)?`)

// keywordReading reads the keywords of the question from the prompt, each
// kind ranked in tiers: the tables the question relates to by their name,
// then by a column name or shown value only (relevance > 0), then the
// join tables it implies (bridgeTables); the columns the question names
// (fieldPatterns) of the tables it names, then of the others, the names
// that identify the related tables' rows (displayColumns) where the
// question lists rows, and the keys that join them (joinColumns); the
// numbers of the question, those it spells out, then those of the hint
// the prompt carries (quoted literals aside), with the unit written after
// them, and last those a date, a time, a shown name or a unit's
// definition writes (textOnly); and the operators (operatorRanking).
// Each kind's pool is what a lowest-confidence item comes from.
func keywordReading(c *Sample) questionKeywords {
	var k questionKeywords
	text := c.Question + " " + c.Evidence
	sc := c.scored()
	rel := related(sc)
	stems := stemsOf(text)
	k.rank[KindTable] = tableRanking(c, rel, stems)
	cr, nr := &k.rank[KindColumn], &k.rank[KindNumber]
	// exact is whether the text uses every word of name.
	exact := func(name string) bool { return usesName(stems, name) }
	for _, t := range sc {
		for _, col := range t.cols {
			tier := tierColumnRelated
			if t.named {
				tier = tierColumnNamed
			}
			if exact(col) {
				tier = tierColumnExact
			}
			if containsFold(t.valueCols, col) {
				tier = tierColumnValue
			}
			cr.add(tier, t.name+"."+col)
		}
	}
	// A question for a count, an average or a total asks for no row's
	// name unless it lists rows too ("which", "for each").
	if _, fn := intent(c.Question); fn == "" || fn == "MAX" || fn == "MIN" || listsRows(c.Question) {
		for _, f := range displayColumns(rel) {
			cr.add(tierColumnDisplay, f)
		}
	}
	for _, f := range joinColumns(rel) {
		cr.add(tierColumnJoin, f)
	}
	var relCols []string
	for _, t := range rel {
		for _, col := range t.table.Columns {
			relCols = append(relCols, t.name+"."+col.Name)
		}
	}
	cr.setPool(relCols)

	// The hint's numbers count as the question's (a hint is read with
	// it), its quoted literals aside: a date or code is a value.
	hint := quotedRe.ReplaceAllString(c.Evidence, "''")
	addNum := func(tier int, v, unit string) {
		if !unitWords[strings.ToLower(unit)] {
			unit = ""
		}
		if !k.hasNumber(v) {
			k.numbers = append(k.numbers, keywordNumber{Value: v, Unit: unit})
			nr.add(tier, v)
		}
	}
	// The numbers a date, a time, a name or a unit's definition writes
	// are text, not constants: they rank last.
	question, plainHint := textOnly(c, c.Question), textOnly(c, hint)
	for _, m := range numberUnitRe.FindAllStringSubmatch(question, -1) {
		addNum(tierNumberQuestion, m[1], m[2])
	}
	q := " " + strings.ToLower(c.Question) + " "
	for _, v := range spelledNumbers(q) {
		addNum(tierNumberWord, v, "")
	}
	for _, m := range numberUnitRe.FindAllStringSubmatch(plainHint, -1) {
		addNum(tierNumberHint, m[1], m[2])
	}
	for _, text := range []string{c.Question, hint} {
		for _, m := range numberUnitRe.FindAllStringSubmatch(text, -1) {
			addNum(tierNumberText, m[1], m[2])
		}
	}
	nr.setPool(misreadNumbers(nr.items()))

	k.rank[KindOperator] = operatorRanking(c, hint, k.rank[KindTable])
	return k
}

// listRowsRe finds the wording of a question that lists rows.
var listRowsRe = regexp.MustCompile(`(?i)\b(which|who|list|names?|show|give|each|every|per)\b`)

// listsRows is whether the question lists rows ("which", "list", "for
// each"), not only a figure.
func listsRows(question string) bool { return listRowsRe.MatchString(question) }

// monthNames are the months a date names, in English.
const monthNames = `(?:January|February|March|April|May|June|July|August|September|October|November|December)`

// textNumberRe finds the numbers that are part of a date or a time ("15
// January 2024", "July 2024", "2024-01-15", "12:00") or the 1 that
// defines a unit ("1 kg = 1000 g").
var textNumberRe = regexp.MustCompile(`\b\d{1,2}\s+` + monthNames + `(?:\s+\d{4})?\b|\b` + monthNames + `\s+\d{1,4}(?:,\s*\d{4})?\b|` +
	`\b\d{4}-\d{1,2}(?:-\d{1,2})?\b|\b\d{1,2}:\d{2}(?::\d{2})?\b|(?:^|[^\w.])1\s*[A-Za-z]+\s*=`)

// digitsRe finds the digit runs of a text.
var digitsRe = regexp.MustCompile(`\d+(?:\.\d+)?`)

// textOnly is text with what writes numbers as text blanked out: dates,
// times and a unit's definition (textNumberRe), the values the schema
// shows, with letters and digits, that the text uses ("Espresso Beans
// 1kg"), and the numbers the hint writes inside a quoted literal (a
// year the hint compares as '2023%').
func textOnly(c *Sample, text string) string {
	blank := func(s string) string { return strings.Repeat(" ", len(s)) }
	out := textNumberRe.ReplaceAllStringFunc(text, blank)
	low := strings.ToLower(out)
	for _, t := range c.Prompt.Tables {
		for _, col := range t.Columns {
			for _, e := range col.Examples {
				e = strings.ToLower(strings.TrimSpace(e))
				if len(e) < 3 || !strings.ContainsAny(e, "0123456789") || !strings.ContainsFunc(e, unicode.IsLetter) || len(e) != len(strings.ToUpper(e)) {
					continue
				}
				for i := strings.Index(low, e); i >= 0; i = strings.Index(low, e) {
					out, low = out[:i]+blank(e)+out[i+len(e):], low[:i]+blank(e)+low[i+len(e):]
				}
			}
		}
	}
	for _, m := range quotedRe.FindAllString(c.Evidence, -1) {
		for _, v := range digitsRe.FindAllString(m, -1) {
			re := regexp.MustCompile(`(?:^|[^\w.])` + regexp.QuoteMeta(v) + `(?:$|[^\w.])`)
			out = re.ReplaceAllStringFunc(out, blank)
		}
	}
	return out
}

// misreadNumbers are the wrong numbers a model writes for the question's
// numbers: each ten times larger, a misread magnitude (a modelling
// choice), written as a number of another value ("0.5" -> "5", "20" ->
// "200").
func misreadNumbers(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		out = append(out, strconv.FormatFloat(f*10, 'f', -1, 64))
	}
	return out
}

// Stages of a keyword answer: the extraction (a profile's Extract row)
// and a verification round (its Verified row).
const (
	stageExtract = iota
	stageVerified
)

// keywords are the items of each kind a keyword answer lists at a stage:
// each item of tier t of the ranked reading k when its draw
// (Sample.itemDraw) is below the stage's keep rate for t, and each pool
// item when its draw is below the pool rate (Model.operatingPoints). The
// draws do not depend on the stage, so the verified state keeps every
// item the extraction kept whose tier the Verified row keeps more of, and
// drops only items whose tier it keeps less of. shown, when not nil, are
// the items a verification prompt shows: those of them outside the
// reading and its pool join the pool.
func (c *Sample) keywords(k questionKeywords, stage int, shown *[numKinds][]string) [numKinds][]string {
	var out [numKinds][]string
	ops := c.model.operatingPoints().stage[stage]
	for kind := range numKinds {
		r := k.rank[kind]
		// The pool is clipped so that the shown items go to a new array,
		// never into the spare capacity of the reading's own.
		r.pool = slices.Clip(r.pool)
		if shown != nil {
			for _, s := range shown[kind] {
				if !r.has(s) && !containsFold(r.pool, s) {
					r.pool = append(r.pool, s)
				}
			}
		}
		list := []string{}
		for t, items := range r.tiers {
			for _, x := range items {
				if t < len(ops[kind].Tier) && c.itemDraw(kind, x) < ops[kind].Tier[t] {
					list = append(list, x)
				}
			}
		}
		for _, x := range r.pool {
			if c.itemDraw(kind, x) < ops[kind].Pool {
				list = append(list, x)
			}
		}
		out[kind] = list
	}
	return out
}

// itemDraw is the uniform draw in [0, 1) of one keyword item: keyed by the
// model's seed, the request's seed, the question (its database and text),
// the kind and the item (lower case), and by nothing else of the prompt,
// so that a question's extraction and its verification rounds share it.
// It is the model's confidence in the item for that question and seed;
// the samples of one request share it too.
func (c *Sample) itemDraw(kind int, item string) float64 {
	h := seedHash(c.model.cfg.Seed, c.Request.Seed)
	h.Write([]byte(c.example.DBID + "\x00" + c.Question + "\x00" + kindNames[kind] + "\x00" + strings.ToLower(item)))
	sum := h.Sum(nil)
	return float64(binary.LittleEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// stemsOf is the set of the stems of text's words.
func stemsOf(text string) map[string]bool {
	stems := map[string]bool{}
	for _, w := range wordsOf(text) {
		stems[stem(w)] = true
	}
	return stems
}

// usesName is whether a text with the word stems stems uses every word
// of name.
func usesName(stems map[string]bool, name string) bool {
	return !slices.ContainsFunc(nameWords(name), func(w string) bool { return !stems[stem(w)] })
}

// tableRanking is the ranked reading of the tables (keywordReading): the
// related tables rel, the one the question relates to most first, then
// those whose name the text (its word stems) uses in full or in part, by
// a column or a value, and the join tables; the prompt's other shown
// tables are the pool.
func tableRanking(c *Sample, rel []scoredTable, stems map[string]bool) ranking {
	var tr ranking
	for i, t := range rel {
		switch {
		case i == 0 && t.score > 0:
			tr.add(tierTableBest, t.name)
		case t.named && usesName(stems, t.name):
			tr.add(tierTableExact, t.name)
		case t.named:
			tr.add(tierTableNamed, t.name)
		case t.score > 0:
			tr.add(tierTableRelated, t.name)
		default:
			tr.add(tierTableBridge, t.name)
		}
	}
	var shownTables []string
	for _, t := range c.Prompt.Tables {
		shownTables = append(shownTables, t.Name)
	}
	tr.setPool(shownTables)
	return tr
}

// phraseOp is an operator a phrase of the wording names.
type phraseOp struct{ phrase, op string }

// addPhrases lists in tier the operator of each phrase of list that text
// (phraseText) uses.
func (r *ranking) addPhrases(tier int, text string, list []phraseOp) {
	for _, w := range list {
		if strings.Contains(text, w.phrase) {
			r.add(tier, w.op)
		}
	}
}

// functionWords are the aggregate names a question uses for MAX and MIN
// themselves, not as the superlative of a quantity.
var functionWords = []phraseOp{{" maximum ", "MAX"}, {" max ", "MAX"}, {" minimum ", "MIN"}, {" min ", "MIN"}}

// superlatives are the words that ask for the largest or smallest of a
// quantity: the row that has it (ORDER BY ... LIMIT 1) as often as the
// value (MAX, MIN).
var superlatives = []phraseOp{{"highest", "MAX"}, {"largest", "MAX"}, {"biggest", "MAX"}, {"greatest", "MAX"},
	{"oldest", "MAX"}, {"longest", "MAX"}, {"strongest", "MAX"}, {"heaviest", "MAX"}, {"latest", "MAX"}, {" most ", "MAX"},
	{"lowest", "MIN"}, {"smallest", "MIN"}, {"youngest", "MIN"}, {"shortest", "MIN"}, {"cheapest", "MIN"}, {"earliest", "MIN"},
	{" least ", "MIN"}}

// wordingOperators are the comparisons and arithmetic a question's
// wording implies (comparatives besides: comparativeRe).
var wordingOperators = []phraseOp{{" more than ", ">"}, {" over ", ">"}, {" above ", ">"},
	{" less than ", "<"}, {" below ", "<"}, {" under ", "<"}, {" at least ", ">="}, {" at most ", "<="},
	{" contain", "LIKE"}, {" start with ", "LIKE"}, {" starts with ", "LIKE"}, {" begin with ", "LIKE"}, {" end with ", "LIKE"},
	{" ends with ", "LIKE"}, {" substring ", "LIKE"}, {" other than ", "<>"},
	{" difference ", "-"}, {" minus ", "-"}, {" range ", "-"}, {" percentage ", "/"}}

// boundRe finds "after", "before" and "between" before a number or a
// date ("after 2013", "between 10 and 20"): a comparison, where "after
// discounts" or "between ordering and shipping" is none.
var boundRe = regexp.MustCompile(` (after|before|between) (?:\d|` + monthNames + `)`)

// boundOperators are the comparisons of boundRe's words.
var boundOperators = map[string]string{"after": ">", "before": "<", "between": "BETWEEN"}

// looseOperators are operators a wording suggests more loosely: a
// negation is as often an EXCEPT or a missing value as a NOT IN, and
// "per" as often a grouping as a division.
var looseOperators = []phraseOp{{" not ", "IN"}, {" never ", "IN"}, {" per ", "/"}}

// totalWords are the wordings of COUNT, AVG and SUM.
var totalWords = []phraseOp{{" how many ", "COUNT"}, {" number of ", "COUNT"}, {" count ", "COUNT"},
	{" average ", "AVG"}, {" mean ", "AVG"}, {" total ", "SUM"}, {" sum ", "SUM"}}

// comparativeRe finds a comparative before "than" ("warmer than",
// "fewer than"); lessComparatives are those that compare with "<".
var comparativeRe = regexp.MustCompile(`\b([a-z]+er) than\b`)

var lessComparatives = map[string]bool{"fewer": true, "lower": true, "smaller": true, "younger": true, "shorter": true,
	"earlier": true, "cheaper": true, "lighter": true, "colder": true, "slower": true, "poorer": true, "thinner": true}

// durationRe finds a question for a duration ("how many days ...").
var durationRe = regexp.MustCompile(` how many (years|months|weeks|days|hours|minutes|seconds) `)

// countedRe finds a bound on a number of things ("more than two
// orders", "at least 3 different courses"): the word after the number
// is what is counted.
var countedRe = regexp.MustCompile(` (?:more than|fewer than|less than|at least|at most) (\d+|one|two|three|four|five|six|seven|eight|nine|ten) (?:different |distinct )?([a-z]+) `)

// countedComparison is whether the phrase text (phraseText) bounds the
// number of the rows of a table the prompt shows ("at least four
// courses" with a table course): a comparison of a COUNT.
func countedComparison(p *Prompt, text string) bool {
	for _, m := range countedRe.FindAllStringSubmatch(text, -1) {
		for _, t := range p.Tables {
			if slices.ContainsFunc(nameWords(t.Name), func(w string) bool {
				return !weakWords[w] && (stem(w) == stem(m[2]) || stem(w+"s") == stem(m[2]))
			}) {
				return true
			}
		}
	}
	return false
}

// phraseText is text as the phrase lists match it: lower case, each
// character that is no letter, digit or hyphen a space, padded with
// spaces ("On average, how many?" -> " on average  how many  ").
func phraseText(text string) string {
	return " " + strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' {
			return unicode.ToLower(r)
		}
		return ' '
	}, text) + " "
}

// hintFunctionRe finds a function call the hint writes ("CAST(", "round (").
var hintFunctionRe = regexp.MustCompile(`(?i)\b(COUNT|SUM|AVG|MIN|MAX|ROUND|ABS|SQRT|POWER|EXP|LN|LOG|CAST)\s*\(`)

// hintWordRe finds the operators a hint writes as SQL words, in upper
// case as SQL is written (the English "between" is none): LIKE,
// BETWEEN, and IN before a list or a subquery.
var hintWordRe = regexp.MustCompile(`\b(LIKE|BETWEEN|IN\s*\()`)

// conversionRe finds a unit conversion a hint states ("1 metre = 3.28084
// feet"): a quantity converts by a product.
var conversionRe = regexp.MustCompile(`(?:^|[^\w.])1\s*[A-Za-z]+\s*=\s*\d`)

// operatorRanking is the ranked reading of the operators (keywordReading):
// the aggregate of the question's intent when the wording names it (a
// MAX or MIN only for "maximum" or "minimum": a superlative more often
// asks for the row that has it), the other aggregates the wording names,
// the comparisons and arithmetic it implies, those of the hint's formula
// (hint: the hint with its quoted literals blanked), "=" for a value the
// question names and for a join (joined: the reading relates the
// question to more than one table), the MAX or MIN of a superlative, and
// "=" by default. The pool is the operators a model names.
func operatorRanking(c *Sample, hint string, tables ranking) ranking {
	var or ranking
	q, h := phraseText(c.Question), phraseText(hint)
	// "at least" and "at most" are comparisons, not superlatives.
	qs := strings.NewReplacer(" at least ", " at-least ", " at most ", " at-most ").Replace(q)
	named := func(op string) bool {
		return slices.ContainsFunc(functionWords, func(w phraseOp) bool { return w.op == op && strings.Contains(qs, w.phrase) })
	}
	_, fn := intent(c.Question)
	if durationRe.MatchString(q) {
		// "How many days passed between ...": a difference of dates,
		// not a count of rows.
		fn = ""
		q = strings.Replace(q, " how many ", " ", 1)
		or.add(tierOperatorWording, "-")
	}
	// A MAX or MIN of the intent counts only where the wording names the
	// function: a superlative's is ranked with the superlatives below.
	if fn != "" && (fn != "MAX" && fn != "MIN" || named(fn)) {
		or.add(tierOperatorIntent, fn)
	}
	// The totals the question or the hint names.
	for _, text := range []string{q, h} {
		or.addPhrases(tierOperatorTotal, text, totalWords)
	}
	or.addPhrases(tierOperatorExtreme, qs, functionWords)
	or.addPhrases(tierOperatorExtreme, qs, []phraseOp{{" most ", "COUNT"}, {" least ", "COUNT"}, {" fewest ", "COUNT"}})
	// The comparisons and arithmetic the question or the hint words.
	for _, text := range []string{q, h} {
		or.addPhrases(tierOperatorWording, text, wordingOperators)
		for _, m := range boundRe.FindAllStringSubmatch(text, -1) {
			or.add(tierOperatorWording, boundOperators[m[1]])
		}
		if countedComparison(c.Prompt, text) {
			or.add(tierOperatorWording, "COUNT")
		}
		for _, m := range comparativeRe.FindAllStringSubmatch(text, -1) {
			if lessComparatives[m[1]] {
				or.add(tierOperatorWording, "<")
			} else {
				or.add(tierOperatorWording, ">")
			}
		}
	}
	// The hint's formula: arithmetic signs between spaces ("salary / 12",
	// not the unit "m/s"), a conversion's product, comparisons, the SQL
	// words of a condition and function calls.
	for _, op := range []string{"*", "/", "+", "-"} {
		if strings.Contains(hint, " "+op+" ") {
			or.add(tierOperatorHint, op)
		}
	}
	if conversionRe.MatchString(hint) {
		or.add(tierOperatorHint, "*")
	}
	for _, m := range hintComparisonRe.FindAllString(hint, -1) {
		if m == "!=" {
			m = "<>"
		}
		or.add(tierOperatorHint, m)
	}
	for _, m := range hintWordRe.FindAllStringSubmatch(hint, -1) {
		or.add(tierOperatorHint, strings.TrimRight(m[1], " \t("))
	}
	for _, m := range hintFunctionRe.FindAllStringSubmatch(hint, -1) {
		or.add(tierOperatorHint, strings.ToUpper(m[1]))
	}
	if len(valueMatches(c.Prompt, Terms(c.Question, c.Evidence))) > 0 || strings.ContainsAny(c.Question, `'"`) {
		or.add(tierOperatorValue, "=")
	}
	// A join of two tables the question relates to by their full names,
	// a column or a value; one named only in part or implied as a join
	// table is less sure (the default "=").
	joined := 0
	for t, items := range tables.tiers {
		if t != tierTableNamed && t != tierTableBridge {
			joined += len(items)
		}
	}
	if joined > 1 {
		or.add(tierOperatorEqual, "=")
	}
	or.addPhrases(tierOperatorLoose, q, looseOperators)
	or.addPhrases(tierOperatorSuperlative, qs, superlatives)
	or.add(tierOperatorDefault, "=")
	or.setPool(readableOperators)
	return or
}
