package retrieval

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Defaults, from Alpha-SQL's paper (Section 3.4 and Table 7) and released
// code (lsh_index.py: 128 permutations, 3-grams, threshold 0.5; value
// retrieval top_k 20, edit threshold 0.3, embedding threshold 0.6; 3 values
// per column in the schema).
const (
	DefaultPerms       = 128
	DefaultNGram       = 3
	DefaultThreshold   = 0.5
	DefaultTopK        = 20
	DefaultEditMin     = 0.3
	DefaultEmbedMin    = 0.6
	DefaultPerColumn   = 3
	defaultPageSize    = 5000
	indexFormatVersion = 1
)

// Options configure an index.
type Options struct {
	// Perms, NGram and Threshold default to DefaultPerms, DefaultNGram and
	// DefaultThreshold.
	Perms     int
	NGram     int
	Threshold float64
	// Seed seeds the permutations (fixed, so cached indexes stay valid).
	Seed uint64
	// MaxValuesPerColumn caps the distinct values read per column; 0 means
	// all.
	MaxValuesPerColumn int
}

func (o Options) withDefaults() Options {
	if o.Perms <= 0 {
		o.Perms = DefaultPerms
	}
	if o.NGram <= 0 {
		o.NGram = DefaultNGram
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	return o
}

// Value is one stored database value.
type Value struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Value  string `json:"value"`
}

// Index is a MinHash-LSH index over a database's text values. It is safe
// for concurrent queries once built.
type Index struct {
	DBID        string
	Fingerprint string
	Version     int
	Opt         Options
	Bands, Rows int
	Values      []Value
	Sigs        [][]uint64

	hasher  *MinHasher
	buckets []map[uint64][]int32
}

// Build reads db's text values and indexes them.
func Build(ctx context.Context, db datasets.Database, opt Options) (*Index, error) {
	opt = opt.withDefaults()
	sch, err := db.Schema(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieval: schema of %s: %w", db.ID(), err)
	}
	ix := &Index{DBID: db.ID(), Fingerprint: db.Fingerprint(), Version: indexFormatVersion, Opt: opt}
	ix.Bands, ix.Rows = OptimalBands(opt.Threshold, opt.Perms)
	ix.hasher = NewMinHasher(opt.Perms, opt.Seed)
	for _, t := range sch.Tables {
		for _, c := range t.Columns {
			if c.Primary || isPrimary(t, c.Name) || !TextAffinity(c.Type) {
				continue
			}
			vals, err := distinctValues(ctx, db, t.Name, c.Name, opt.MaxValuesPerColumn)
			if err != nil {
				return nil, err
			}
			for _, v := range vals {
				ix.Values = append(ix.Values, Value{Table: t.Name, Column: c.Name, Value: v})
				ix.Sigs = append(ix.Sigs, ix.hasher.Signature(CharNGrams(v, opt.NGram)))
			}
		}
	}
	ix.index()
	return ix, nil
}

func isPrimary(t datasets.Table, col string) bool {
	for _, p := range t.PrimaryKey {
		if strings.EqualFold(p, col) {
			return true
		}
	}
	return false
}

// TextAffinity reports whether a declared column type has SQLite text
// affinity (contains CHAR, CLOB or TEXT, and not INT).
func TextAffinity(typ string) bool {
	u := strings.ToUpper(typ)
	if strings.Contains(u, "INT") {
		return false
	}
	return strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") || strings.Contains(u, "TEXT")
}

func quoteIdent(dialect, s string) string {
	if dialect == "mysql" {
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// distinctValues pages through the distinct non-blank values of a column
// in a stable order.
func distinctValues(ctx context.Context, db datasets.Database, table, col string, limit int) ([]string, error) {
	q := quoteIdent(db.Dialect(), col)
	base := fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL AND TRIM(CAST(%s AS CHAR)) <> '' ORDER BY 1",
		q, quoteIdent(db.Dialect(), table), q, q)
	if db.Dialect() != "mysql" {
		base = strings.Replace(base, "AS CHAR", "AS TEXT", 1)
	}
	var out []string
	for off := 0; ; {
		rs, err := db.Execute(ctx, fmt.Sprintf("%s LIMIT %d OFFSET %d", base, defaultPageSize, off))
		if err != nil {
			return nil, fmt.Errorf("retrieval: values of %s.%s: %w", table, col, err)
		}
		for _, r := range rs.Rows {
			if len(r) == 0 {
				continue
			}
			var s string
			switch v := r[0].(type) {
			case string:
				s = v
			case []byte:
				s = string(v)
			default:
				s = fmt.Sprint(v)
			}
			out = append(out, s)
			if limit > 0 && len(out) >= limit {
				return out, nil
			}
		}
		off += len(rs.Rows)
		if len(rs.Rows) == 0 || (!rs.Truncated && len(rs.Rows) < defaultPageSize) {
			return out, nil
		}
	}
}

// index fills the LSH buckets from the signatures.
func (ix *Index) index() {
	ix.buckets = make([]map[uint64][]int32, ix.Bands)
	for b := range ix.buckets {
		ix.buckets[b] = map[uint64][]int32{}
	}
	for i, sig := range ix.Sigs {
		for b := 0; b < ix.Bands; b++ {
			k := bandKey(sig, b*ix.Rows, (b+1)*ix.Rows)
			ix.buckets[b][k] = append(ix.buckets[b][k], int32(i))
		}
	}
}

// Len is the number of indexed values.
func (ix *Index) Len() int { return len(ix.Values) }

// Match is one retrieved value with its similarities to the keyword.
type Match struct {
	Value
	Keyword string  `json:"keyword"`
	Jaccard float64 `json:"jaccard"`
	Edit    float64 `json:"edit"`
	// Embedding is the cosine similarity, or 0 when no embedder was used.
	Embedding float64 `json:"embedding,omitempty"`
}

// Query returns the values colliding with keyword in at least one LSH band,
// ranked by estimated Jaccard (ties by table, column, value), at most topK
// (0 means DefaultTopK). Edit similarity is filled in but not filtered.
func (ix *Index) Query(keyword string, topK int) []Match {
	if topK <= 0 {
		topK = DefaultTopK
	}
	sig := ix.hasher.Signature(CharNGrams(keyword, ix.Opt.NGram))
	cand := map[int32]bool{}
	for b := 0; b < ix.Bands; b++ {
		for _, id := range ix.buckets[b][bandKey(sig, b*ix.Rows, (b+1)*ix.Rows)] {
			cand[id] = true
		}
	}
	out := make([]Match, 0, len(cand))
	for id := range cand {
		out = append(out, Match{Value: ix.Values[id], Keyword: keyword, Jaccard: EstimateJaccard(sig, ix.Sigs[id])})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Jaccard != b.Jaccard {
			return a.Jaccard > b.Jaccard
		}
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Value.Value < b.Value.Value
	})
	if len(out) > topK {
		out = out[:topK]
	}
	for i := range out {
		out[i].Edit = EditSimilarity(keyword, out[i].Value.Value)
	}
	return out
}

// Open returns db's index from cacheDir (<cacheDir>/<fingerprint>.gob),
// building and storing it when absent or stale. An empty cacheDir builds
// without caching. built reports whether the index was built now.
func Open(ctx context.Context, db datasets.Database, cacheDir string, opt Options) (ix *Index, built bool, err error) {
	opt = opt.withDefaults()
	fp := db.Fingerprint()
	if cacheDir == "" || fp == "" {
		ix, err = Build(ctx, db, opt)
		return ix, true, err
	}
	path := filepath.Join(cacheDir, safeName(fp)+".gob")
	if data, rerr := os.ReadFile(path); rerr == nil {
		var c Index
		if derr := gob.NewDecoder(bytes.NewReader(data)).Decode(&c); derr == nil &&
			c.Version == indexFormatVersion && c.Fingerprint == fp && c.Opt == opt && len(c.Values) == len(c.Sigs) {
			c.hasher = NewMinHasher(c.Opt.Perms, c.Opt.Seed)
			c.index()
			return &c, false, nil
		}
	} else if !errors.Is(rerr, os.ErrNotExist) {
		return nil, false, fmt.Errorf("retrieval: read index cache: %w", rerr)
	}
	ix, err = Build(ctx, db, opt)
	if err != nil {
		return nil, true, err
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, true, fmt.Errorf("retrieval: index cache: %w", err)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(ix); err != nil {
		return nil, true, fmt.Errorf("retrieval: encode index: %w", err)
	}
	tmp, err := os.CreateTemp(cacheDir, ".index-*")
	if err != nil {
		return nil, true, fmt.Errorf("retrieval: index cache: %w", err)
	}
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return nil, true, fmt.Errorf("retrieval: write index cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return nil, true, fmt.Errorf("retrieval: write index cache: %w", err)
	}
	return ix, true, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Embedder computes text embeddings; llm.Router and llm.OpenAI satisfy it.
type Embedder interface {
	Embed(ctx context.Context, role string, texts []string) ([][]float32, llm.Usage, error)
}

// Retriever filters index matches for a question's keywords.
type Retriever struct {
	Index *Index
	// TopK, EditMin, EmbedMin and PerColumn default to DefaultTopK,
	// DefaultEditMin, DefaultEmbedMin and DefaultPerColumn.
	TopK      int
	EditMin   float64
	EmbedMin  float64
	PerColumn int
	// Embedder, when set, adds the embedding filter; Role names the model
	// role it is called with.
	Embedder Embedder
	Role     string
}

// Retrieval is the outcome of Retrieve.
type Retrieval struct {
	// Mode is "lexical" or "lexical+embedding".
	Mode string `json:"mode"`
	// Matches are the kept matches, best first per column.
	Matches []Match `json:"matches"`
	// ByColumn maps "table.column" to its kept values (at most PerColumn).
	ByColumn map[string][]string `json:"by_column"`
	// Candidates counts matches before the similarity filters.
	Candidates int       `json:"candidates"`
	Usage      llm.Usage `json:"usage,omitempty"`
}

// Retrieve queries every keyword, keeps matches with edit similarity >=
// EditMin (and embedding cosine >= EmbedMin when an embedder is set), and
// keeps the best PerColumn distinct values of each column, ranked by edit
// similarity (then embedding, Jaccard, value).
func (r *Retriever) Retrieve(ctx context.Context, keywords []string) (*Retrieval, error) {
	topK, editMin, embedMin, per := r.TopK, r.EditMin, r.EmbedMin, r.PerColumn
	if topK <= 0 {
		topK = DefaultTopK
	}
	if editMin <= 0 {
		editMin = DefaultEditMin
	}
	if embedMin <= 0 {
		embedMin = DefaultEmbedMin
	}
	if per <= 0 {
		per = DefaultPerColumn
	}
	out := &Retrieval{Mode: "lexical", ByColumn: map[string][]string{}}
	var kept []Match
	for _, kw := range keywords {
		kw = strings.TrimSpace(kw)
		if kw == "" {
			continue
		}
		ms := r.Index.Query(kw, topK)
		out.Candidates += len(ms)
		for _, m := range ms {
			if m.Edit >= editMin {
				kept = append(kept, m)
			}
		}
	}
	if r.Embedder != nil && len(kept) > 0 {
		out.Mode = "lexical+embedding"
		texts := make([]string, 0, 2*len(kept))
		for _, m := range kept {
			texts = append(texts, m.Keyword, m.Value.Value)
		}
		vecs, u, err := r.Embedder.Embed(ctx, r.Role, texts)
		if err != nil {
			return nil, fmt.Errorf("retrieval: embeddings: %w", err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("retrieval: got %d embeddings for %d texts", len(vecs), len(texts))
		}
		out.Usage = u
		var f []Match
		for i, m := range kept {
			m.Embedding = Cosine(vecs[2*i], vecs[2*i+1])
			if m.Embedding >= embedMin {
				f = append(f, m)
			}
		}
		kept = f
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Edit != b.Edit {
			return a.Edit > b.Edit
		}
		if a.Embedding != b.Embedding {
			return a.Embedding > b.Embedding
		}
		if a.Jaccard != b.Jaccard {
			return a.Jaccard > b.Jaccard
		}
		return a.Value.Value < b.Value.Value
	})
	for _, m := range kept {
		key := m.Table + "." + m.Column
		vals := out.ByColumn[key]
		if len(vals) >= per || slices.Contains(vals, m.Value.Value) {
			continue
		}
		out.ByColumn[key] = append(vals, m.Value.Value)
		out.Matches = append(out.Matches, m)
	}
	return out, nil
}
