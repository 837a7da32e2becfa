package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench/internal/suggest"
)

// Kind is one benchmark family as the rest of the harness sees it: the
// names Open accepts for it, its loader, and what the commands need to know
// of it (the names a spec takes, whether it needs a database server, its
// recorded checksums, its earlier release, its scoring rule, where its data
// comes from). Each loader file registers its kinds in init (see
// docs/adding-a-benchmark.md); nothing else lists benchmarks by name.
type Kind struct {
	// Names are the names Open accepts for the kind, as Names lists them.
	// Names[0] is the kind's own name.
	Names []string
	// Match, when set, accepts further names (variants such as
	// archer-zh-train) that Names does not list; Open hands them to Load,
	// which rejects the ones it does not know with an error naming them.
	Match func(name string) bool
	// Load loads the benchmark called name (one of Names, or a name Match
	// accepts) from dir.
	Load func(name, dir string, opt LoadOptions) (*Benchmark, error)
	// Specs are the names a spec's benchmarks[].name takes for the kind
	// (`help spec` lists them); nil means Names[0].
	Specs []string
	// Order places the kind in Names and in `help spec`'s list: lower
	// first, then by name.
	Order int
	// Bundled is true when the data ships with the binary (Load accepts
	// dir ""); `help spec` lists bundled kinds first.
	Bundled bool
	// NeedsServer reports whether the benchmark called name runs its gold
	// SQL on a database server (LogicCat's MySQL dialect), so that the
	// commands must be given the server (LoadOptions.MySQL). Nil: never.
	NeedsServer func(name string) bool
	// ChecksumFamily names the entry of the recorded SHA-256 sums
	// (checksums.go) that applies to the benchmark called name, "" for
	// none. Nil: none.
	ChecksumFamily func(name string) string
	// Previous names the earlier release of the benchmark called name whose
	// gold SQL `datasets check` compares with, and says which; "" for none.
	// Nil: none.
	Previous func(name string) (prev, what string)
	// Rule, when set, is a scoring rule of the kind's own: Load sets
	// Benchmark.Mode to Rule.Mode and metrics scores with Rule.Equal. Kinds
	// scored by one of metrics' official comparators leave it nil.
	Rule *Rule
	// Data are the entries `datasets list` measures for the kind, in order.
	Data []DataEntry
}

// Rule is an execution-accuracy comparator a benchmark brings with it, for
// a benchmark whose official evaluator matches none of metrics.Modes.
type Rule struct {
	// Mode names the rule (spec key benchmarks[].mode, eval --mode); it
	// must not be one of metrics' modes.
	Mode string
	// Doc says what the rule compares and where it comes from (the
	// official evaluator's file and line).
	Doc string
	// Equal reports whether pred's result equals gold's, each with its
	// rows in the order the engine returned them. An error is a value the
	// rule cannot compare; the scorer turns it into an error verdict.
	Equal func(gold, pred *ResultSet) (bool, error)
}

// DataEntry is one line of `datasets list`: the benchmark name it
// measures, the folder under the data directory that holds its data
// (scripts/fetch-datasets.sh's layout), the fetch script's argument ("" when
// the script fetches none), the official source and what the data is.
type DataEntry struct {
	Name, Dir, Fetch, Source, What string
}

var (
	kindsMu sync.RWMutex
	kinds   []*Kind
)

// Register makes a benchmark kind available to Open and to everything that
// lists benchmarks. It panics on a kind without names or loader, on a name
// already registered and on a rule mode already registered (programming
// errors at init time).
func Register(k Kind) {
	if len(k.Names) == 0 || k.Load == nil {
		panic("datasets: Register needs Names and Load")
	}
	if k.Rule != nil && (k.Rule.Mode == "" || k.Rule.Equal == nil) {
		panic("datasets: Register " + k.Names[0] + ": a Rule needs Mode and Equal")
	}
	kindsMu.Lock()
	defer kindsMu.Unlock()
	for _, o := range kinds {
		for _, n := range k.Names {
			if slices.Contains(o.Names, n) {
				panic("datasets: duplicate benchmark " + n)
			}
		}
		if k.Rule != nil && o.Rule != nil && o.Rule.Mode == k.Rule.Mode {
			panic("datasets: duplicate scoring rule " + k.Rule.Mode)
		}
	}
	kc := k
	kinds = append(kinds, &kc)
	sort.SliceStable(kinds, func(i, j int) bool {
		if kinds[i].Order != kinds[j].Order {
			return kinds[i].Order < kinds[j].Order
		}
		return kinds[i].Names[0] < kinds[j].Names[0]
	})
}

// Kinds returns the registered kinds in Order.
func Kinds() []Kind {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	out := make([]Kind, len(kinds))
	for i, k := range kinds {
		out[i] = *k
	}
	return out
}

// Lookup returns the kind that accepts benchmark name: the kind listing it
// in Names, else the first whose Match accepts it.
func Lookup(name string) (Kind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	for _, k := range kinds {
		if slices.Contains(k.Names, name) {
			return *k, true
		}
	}
	for _, k := range kinds {
		if k.Match != nil && k.Match(name) {
			return *k, true
		}
	}
	return Kind{}, false
}

// Names lists the benchmark names Open accepts, kind by kind in Order.
func Names() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, k.Names...)
	}
	return out
}

// SpecNames lists the names a spec's benchmarks[].name takes: bundled
// kinds first, then kind by kind in Order.
func SpecNames() []string {
	var bundled, rest []string
	for _, k := range Kinds() {
		specs := k.Specs
		if specs == nil {
			specs = k.Names[:1]
		}
		if k.Bundled {
			bundled = append(bundled, specs...)
		} else {
			rest = append(rest, specs...)
		}
	}
	return append(bundled, rest...)
}

// ErrUnknownBenchmark marks the error of a benchmark name that no kind
// accepts, or a variant its kind's loader does not know: a bad argument,
// not a benchmark that failed to load.
var ErrUnknownBenchmark = errors.New("unknown benchmark")

// Open loads the benchmark called name from dir with the loader of the
// kind that accepts name (Lookup; Names lists them all). An unknown name
// is an error wrapping ErrUnknownBenchmark that suggests the closest
// known one.
func Open(name, dir string, opt LoadOptions) (*Benchmark, error) {
	k, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("datasets: %w %q%s (known: %s)", ErrUnknownBenchmark, name, suggest.Hint(name, Names()), strings.Join(Names(), ", "))
	}
	return k.Load(name, dir, opt)
}

// NeedsServer reports whether the benchmark called name runs its gold SQL
// on a database server (LogicCat in its MySQL dialect: logiccat,
// logiccat-mini500, ...), so that it needs LoadOptions.MySQL; it is false
// for an unknown name.
func NeedsServer(name string) bool {
	k, ok := Lookup(name)
	return ok && k.NeedsServer != nil && k.NeedsServer(name)
}

// Rules returns the scoring rules the registered kinds bring, sorted by
// mode.
func Rules() []Rule {
	var out []Rule
	for _, k := range Kinds() {
		if k.Rule != nil {
			out = append(out, *k.Rule)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Mode < out[j].Mode })
	return out
}

// RuleOf returns the scoring rule registered under mode.
func RuleOf(mode string) (Rule, bool) {
	for _, r := range Rules() {
		if r.Mode == mode {
			return r, true
		}
	}
	return Rule{}, false
}

// DataEntries lists the entries `datasets list` measures, kind by kind in
// Order.
func DataEntries() []DataEntry {
	var out []DataEntry
	for _, k := range Kinds() {
		out = append(out, k.Data...)
	}
	return out
}

// LocateData returns the folder under dir that holds the data of the
// benchmark called name in the layout scripts/fetch-datasets.sh makes
// (dir/spider, or one level deeper: dir/datasets/spider), the folder that
// `datasets list` finds it in: the data folder to give instead of dir when
// the benchmark does not load from dir itself. It is "" when no such
// folder loads.
func LocateData(name, dir string, opt LoadOptions) string {
	k, ok := Lookup(name)
	if !ok || dir == "" {
		return ""
	}
	subs := []string{k.Names[0]}
	for _, e := range k.Data {
		subs = append(subs, e.Dir)
	}
	slices.Sort(subs)
	subs = slices.Compact(subs)
	var cands []string
	for _, s := range subs {
		cands = append(cands, filepath.Join(dir, s))
		deeper, _ := filepath.Glob(filepath.Join(dir, "*", s))
		cands = append(cands, deeper...)
	}
	opt.Limit = 1
	for _, c := range cands {
		if st, err := os.Stat(c); err != nil || !st.IsDir() {
			continue
		}
		b, err := k.Load(name, c, opt)
		if err != nil {
			continue
		}
		if b.Engine != nil {
			b.Engine.Close()
		}
		return c
	}
	return ""
}
