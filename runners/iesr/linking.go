package iesr

import (
	"slices"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/retrieval"
)

// Linking parameters (t2sbench's choices; the paper names the two
// strategies, LSH and similarity ranking, without values).
const (
	// linkPerms and linkNGram: MinHash signatures of 64 permutations over
	// character 3-grams of schema names and query terms.
	linkPerms = 64
	linkNGram = 3
	// linkSeed fixes the permutations.
	linkSeed = 0x69657372
	// DefaultLinkLSH is the LSH Jaccard threshold that picks candidates.
	DefaultLinkLSH = 0.3
	// DefaultLinkThreshold is the similarity a column or table needs to be
	// retained.
	DefaultLinkThreshold = 0.6
	// DefaultLinkMaxTables caps the retained tables: the tables the
	// validated state names come first and are never cut (they come on
	// top when they are more), and bridging tables that join the retained
	// ones come on top.
	DefaultLinkMaxTables = 6
)

// Link is the outcome of schema linking and compression.
type Link struct {
	// Tables is the retained selection (datasets.RenderOptions.Tables):
	// table -> columns; an empty list keeps every column of the table.
	Tables map[string][]string `json:"tables"`
	// Scores are the best similarities of retained items ("t" or "t.c");
	// an item the validated state names scores 1.
	Scores map[string]float64 `json:"scores"`
	// Named are the schema items ("t" or "t.c") the validated state names,
	// retained whatever their lexical similarity.
	Named []string `json:"named,omitempty"`
	// Bridges are tables added only to join retained tables.
	Bridges []string `json:"bridges,omitempty"`
	// Candidates is the number of schema items LSH proposed.
	Candidates int `json:"candidates"`
	// Fallback is set when nothing passed the threshold and the whole
	// schema is kept.
	Fallback bool `json:"fallback,omitempty"`
}

// linkItem is one schema element: a table ("t") or a column ("t.c").
type linkItem struct {
	table, column string
	names         []string // texts compared with query terms
}

// LinkSchema retains the tables and columns whose names (split into
// words), comments or example values are lexically similar to the query
// terms (question words and phrases, plus the validated state's entities,
// relation arguments and field patterns): MinHash-LSH over character
// 3-grams proposes candidates (Jaccard threshold lsh), each candidate is
// ranked by
//
//	sim(term, name) = max(EditSimilarity, 3-gram Jaccard, token Jaccard)
//
// and an item scoring at least threshold is retained. Key columns
// (primary and foreign keys) are not linked themselves. The schema items
// the validated state names (named: its tables and its field patterns,
// "t" or "t.c", see ValidatedState.SchemaItems) are retained as they are:
// linking is conditioned on the state, whose keywords verification has
// already checked against the schema, so a column the state names is kept
// even when its name shares few characters with the question (the state
// names station.name for "which station"; a bare column name, "name",
// resolves to the tables the state names that hold it: resolveNamed). A
// named column that is a key is shown as a key. A table is retained when
// its name or one of its columns is (the tables the state names first,
// never cut, then the others best first, up to maxTables in all), and
// shows the columns named or linked, all of them when none is; tables on
// the shortest foreign-key paths between retained tables are added as
// bridges, showing only their keys. When nothing is retained the whole
// schema is kept (Fallback).
func LinkSchema(s *datasets.Schema, terms, named []string, lsh, threshold float64, maxTables int) Link {
	keys := map[string]bool{} // lower-case "t.c" of key columns
	for _, fk := range s.ForeignKeys {
		keys[strings.ToLower(fk.FromTable+"."+fk.FromColumn)] = true
		keys[strings.ToLower(fk.ToTable+"."+fk.ToColumn)] = true
	}
	var items []linkItem
	for _, t := range s.Tables {
		items = append(items, linkItem{table: t.Name, names: []string{datasets.SpacedName(t.Name)}})
		for _, c := range t.Columns {
			if c.Primary || isPrimary(t, c.Name) || keys[strings.ToLower(t.Name+"."+c.Name)] {
				// Keys are join structure, not content: the renderer and
				// the bridges keep those a selection needs.
				continue
			}
			names := []string{datasets.SpacedName(c.Name)}
			if c.Comment != "" {
				names = append(names, c.Comment)
			}
			for i, e := range c.Examples {
				if i < 3 && len(e) <= 40 {
					names = append(names, e)
				}
			}
			items = append(items, linkItem{table: t.Name, column: c.Name, names: names})
		}
	}
	// LSH index over every name of every item.
	hasher := retrieval.NewMinHasher(linkPerms, linkSeed)
	bands, rows := retrieval.OptimalBands(lsh, linkPerms)
	type ref struct{ item, name int }
	buckets := make([]map[string][]ref, bands)
	for b := range buckets {
		buckets[b] = map[string][]ref{}
	}
	sigKey := func(sig []uint64, b int) string {
		var sb strings.Builder
		for _, v := range sig[b*rows : (b+1)*rows] {
			for k := 0; k < 8; k++ {
				sb.WriteByte(byte(v >> (8 * k)))
			}
		}
		return sb.String()
	}
	for i, it := range items {
		for j, n := range it.names {
			sig := hasher.Signature(retrieval.CharNGrams(strings.ToLower(n), linkNGram))
			for b := 0; b < bands; b++ {
				k := sigKey(sig, b)
				buckets[b][k] = append(buckets[b][k], ref{i, j})
			}
		}
	}
	best := make([]float64, len(items))
	cands := map[int]bool{}
	for _, term := range dedupe(terms) {
		lt := strings.ToLower(term)
		sig := hasher.Signature(retrieval.CharNGrams(lt, linkNGram))
		hit := map[ref]bool{}
		for b := 0; b < bands; b++ {
			for _, r := range buckets[b][sigKey(sig, b)] {
				hit[r] = true
			}
		}
		for r := range hit {
			cands[r.item] = true
			n := strings.ToLower(items[r.item].names[r.name])
			sim := max(retrieval.EditSimilarity(lt, n),
				retrieval.Jaccard(retrieval.CharNGrams(lt, linkNGram), retrieval.CharNGrams(n, linkNGram)),
				retrieval.TokenJaccard(lt, n))
			if sim > best[r.item] {
				best[r.item] = sim
			}
		}
	}
	l := Link{Tables: map[string][]string{}, Scores: map[string]float64{}, Candidates: len(cands)}
	tableScore := map[string]float64{}
	cols := map[string][]string{}
	pinned := map[string]bool{} // tables the state names, or one of whose columns it names
	// retain shows the column of it (if any) in its table and returns its
	// key, "t" or "t.c".
	retain := func(it linkItem) string {
		if it.column == "" {
			return it.table
		}
		if !slices.Contains(cols[it.table], it.column) {
			cols[it.table] = append(cols[it.table], it.column)
		}
		return it.table + "." + it.column
	}
	for _, it := range resolveNamed(s, named) {
		key := retain(it)
		if _, dup := l.Scores[key]; !dup {
			l.Named = append(l.Named, key)
		}
		l.Scores[key] = 1
		tableScore[it.table] = 1
		pinned[it.table] = true
	}
	for i, it := range items {
		if best[i] < threshold {
			continue
		}
		key := retain(it)
		l.Scores[key] = max(l.Scores[key], round6(best[i]))
		tableScore[it.table] = max(tableScore[it.table], best[i])
	}
	ranked := make([]string, 0, len(tableScore))
	for t := range tableScore {
		ranked = append(ranked, t)
	}
	sort.Slice(ranked, func(i, j int) bool {
		if pinned[ranked[i]] != pinned[ranked[j]] {
			return pinned[ranked[i]]
		}
		if tableScore[ranked[i]] != tableScore[ranked[j]] {
			return tableScore[ranked[i]] > tableScore[ranked[j]]
		}
		return ranked[i] < ranked[j]
	})
	if limit := max(maxTables, len(pinned)); maxTables > 0 && len(ranked) > limit {
		for _, t := range ranked[limit:] {
			for k := range l.Scores {
				if k == t || strings.HasPrefix(k, t+".") {
					delete(l.Scores, k)
				}
			}
		}
		ranked = ranked[:limit]
	}
	if len(ranked) == 0 {
		l.Fallback = true
		l.Tables = nil
		return l
	}
	for _, t := range ranked {
		if len(cols[t]) == 0 { // the table's name matched: keep all its columns
			l.Tables[t] = []string{}
			continue
		}
		l.Tables[t] = cols[t]
	}
	for _, b := range bridges(s, ranked) {
		l.Bridges = append(l.Bridges, b)
		l.Tables[b] = keyColumns(s, b)
	}
	return l
}

// resolveNamed resolves the state's schema items against s: a table
// name, "table.column", or a bare column name (names compared
// case-insensitively after cleanName). A bare column resolves to the
// tables the state names (as tables or in "table.column") that hold it,
// else to the one table of s that holds it; it is dropped when none of
// the named tables holds it and several other tables do. Items that name
// nothing in s are dropped.
func resolveNamed(s *datasets.Schema, named []string) []linkItem {
	type ref struct{ table, column string }
	var refs []ref
	tables := map[string]bool{} // lower-case names of the tables the state names
	for _, n := range named {
		n = cleanName(n)
		if n == "" {
			continue
		}
		tname, cname, dotted := strings.Cut(n, ".")
		if !dotted {
			if t, ok := s.Table(n); ok {
				tables[strings.ToLower(t.Name)] = true
				refs = append(refs, ref{table: t.Name})
				continue
			}
			tname, cname = "", n
		} else if t, ok := s.Table(tname); ok {
			tables[strings.ToLower(t.Name)] = true
		}
		refs = append(refs, ref{tname, cname})
	}
	var out []linkItem
	for _, r := range refs {
		if r.column == "" {
			out = append(out, linkItem{table: r.table})
			continue
		}
		var hits, inNamed []linkItem
		for _, t := range s.Tables {
			if r.table != "" && !strings.EqualFold(t.Name, r.table) {
				continue
			}
			for _, c := range t.Columns {
				if strings.EqualFold(c.Name, r.column) {
					hits = append(hits, linkItem{table: t.Name, column: c.Name})
					if tables[strings.ToLower(t.Name)] {
						inNamed = append(inNamed, hits[len(hits)-1])
					}
				}
			}
		}
		switch {
		case r.table == "" && len(inNamed) > 0:
			out = append(out, inNamed...)
		case len(hits) == 1:
			out = append(out, hits[0])
		}
	}
	return out
}

// bridges returns the tables (not in keep) on shortest foreign-key paths
// from the first retained table to each other one, sorted.
func bridges(s *datasets.Schema, keep []string) []string {
	if len(keep) < 2 {
		return nil
	}
	adj := map[string][]string{}
	lower := func(x string) string { return strings.ToLower(x) }
	for _, fk := range s.ForeignKeys {
		a, b := lower(fk.FromTable), lower(fk.ToTable)
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	for k := range adj {
		sort.Strings(adj[k])
	}
	in := map[string]bool{}
	for _, t := range keep {
		in[lower(t)] = true
	}
	names := map[string]string{}
	for _, t := range s.Tables {
		names[lower(t.Name)] = t.Name
	}
	added := map[string]bool{}
	src := lower(keep[0])
	prev := map[string]string{src: ""}
	queue := []string{src}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range adj[cur] {
			if _, seen := prev[n]; !seen {
				prev[n] = cur
				queue = append(queue, n)
			}
		}
	}
	for _, t := range keep[1:] {
		cur := lower(t)
		if _, ok := prev[cur]; !ok {
			continue // not connected
		}
		for cur != src {
			cur = prev[cur]
			if cur != src && !in[cur] && names[cur] != "" {
				added[names[cur]] = true
			}
		}
	}
	out := make([]string, 0, len(added))
	for t := range added {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// keyColumns lists a table's primary-key and foreign-key columns.
func keyColumns(s *datasets.Schema, table string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(c string) {
		if !seen[strings.ToLower(c)] {
			seen[strings.ToLower(c)] = true
			out = append(out, c)
		}
	}
	if t, ok := s.Table(table); ok {
		for _, c := range t.PrimaryKey {
			add(c)
		}
		for _, c := range t.Columns {
			if c.Primary {
				add(c.Name)
			}
		}
	}
	for _, fk := range s.ForeignKeys {
		if strings.EqualFold(fk.FromTable, table) {
			add(fk.FromColumn)
		}
		if strings.EqualFold(fk.ToTable, table) {
			add(fk.ToColumn)
		}
	}
	if len(out) == 0 {
		return []string{}
	}
	return out
}

func isPrimary(t datasets.Table, col string) bool {
	for _, p := range t.PrimaryKey {
		if strings.EqualFold(p, col) {
			return true
		}
	}
	return false
}

// QueryTerms returns the linking terms of a question: its content words,
// its two-word phrases and its quoted or capitalised phrases, followed by
// extra terms (from the validated state).
func QueryTerms(question, evidence string, extra []string) []string {
	var out []string
	words := []string{}
	for _, w := range retrieval.Tokens(question + " " + evidence) {
		if !stopWords[w] && len(w) > 1 {
			words = append(words, w)
		}
	}
	out = append(out, words...)
	for i := 0; i+1 < len(words); i++ {
		out = append(out, words[i]+" "+words[i+1])
	}
	for _, e := range extra {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e, datasets.SpacedName(strings.ReplaceAll(e, ".", " ")))
		}
	}
	return dedupe(out)
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		k := strings.ToLower(strings.TrimSpace(x))
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of in on at to for from by with and or not is are was were be been being
		what which who whom whose when where why how many much do does did has have had give list show find tell me
		all any each every that this these those it its their his her they them there than then as into per
		please return their our your i we you also only most least more less after before
		during between over under same other`) {
		m[w] = true
	}
	return m
}()
