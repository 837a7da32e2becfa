package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Archer reasoning types (the paper's three classes; arithmetic covers the
// operator tags + - * /).
const (
	ReasoningArithmetic   = "arithmetic"
	ReasoningCommonsense  = "commonsense"
	ReasoningHypothetical = "hypothetical"
)

// archerItem is one element of Archer's {en,zh}/{train,dev}.json.
type archerItem struct {
	DBID          string `json:"db_id"`
	Query         string `json:"query"`
	Question      string `json:"question"`
	ReasoningType string `json:"reasoning_type"`
	Commonsense   string `json:"commonsense_knowledge"`
}

// LoadArcher loads Archer (lang "en" or "zh", split "dev" or "train") from
// dir, the directory holding en/ and zh/. Example.ID is the 0-based index;
// reasoning_type tags become ReasoningTypes (arithmetic, commonsense,
// hypothetical; the raw string stays in Extra["reasoning_type"]) and
// commonsense_knowledge becomes Evidence. Archer's databases are Spider
// databases: they are looked up in dir/database/<db>/<db>.sqlite (the
// official database.zip) and then in <SpiderDir>/database, where SpiderDir
// defaults to dir/../spider.
func LoadArcher(dir, lang, split string, opt LoadOptions) (*Benchmark, error) {
	if lang == "" {
		lang = "en"
	}
	if split == "" {
		split = "dev"
	}
	if lang != "en" && lang != "zh" {
		return nil, fmt.Errorf("datasets: archer: unknown language %q (want en or zh)", lang)
	}
	if split != "dev" && split != "train" {
		return nil, fmt.Errorf("datasets: archer: unknown split %q (want dev or train; test is blind)", split)
	}
	file := filepath.Join(dir, lang, split+".json")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("datasets: archer: %w", err)
	}
	ex, err := ParseArcher(file, data)
	if err != nil {
		return nil, fmt.Errorf("datasets: archer: %w", err)
	}
	spider := opt.SpiderDir
	if spider == "" {
		spider = filepath.Join(dir, "..", "spider")
	}
	s := split
	if lang != "en" {
		s = lang + "-" + split
	}
	return &Benchmark{
		Name:     "archer",
		Split:    s,
		Dir:      dir,
		Mode:     "archer",
		Examples: applyLimit(ex, opt.Limit),
		Engine:   newFileEngine(dirLocator(filepath.Join(dir, "database"), filepath.Join(spider, "database")), opt.SQLite),
	}, nil
}

// ParseArcher parses an Archer question file.
func ParseArcher(file string, data []byte) ([]Example, error) {
	items, err := splitJSONArray(file, data)
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(items))
	for i, it := range items {
		var a archerItem
		extra, err := decodeItem(file, data, it, &a, "db_id", "query", "question", "commonsense_knowledge")
		if err != nil {
			return nil, err
		}
		if err := requireFields(file, data, it, [2]string{"db_id", a.DBID}, [2]string{"query", a.Query}, [2]string{"question", a.Question}); err != nil {
			return nil, err
		}
		types, err := ArcherReasoningTypes(a.ReasoningType)
		if err != nil {
			return nil, posError(file, data, it.start, err)
		}
		out = append(out, Example{
			ID:             strconv.Itoa(i),
			Index:          i,
			DBID:           a.DBID,
			Question:       a.Question,
			Evidence:       a.Commonsense,
			GoldSQL:        a.Query,
			ReasoningTypes: types,
			Extra:          extra,
		})
	}
	return out, nil
}

// ArcherReasoningTypes maps Archer's space-separated reasoning_type tags
// (+ - * / arithmetic, C commonsense, H hypothetical) to the reasoning
// classes, in the order arithmetic, commonsense, hypothetical.
func ArcherReasoningTypes(tags string) ([]string, error) {
	var arith, common, hypo bool
	for _, t := range strings.Fields(tags) {
		switch t {
		case "+", "-", "*", "/":
			arith = true
		case "C":
			common = true
		case "H":
			hypo = true
		default:
			return nil, fmt.Errorf("field \"reasoning_type\": unknown tag %q (want + - * / C H)", t)
		}
	}
	var out []string
	if arith {
		out = append(out, ReasoningArithmetic)
	}
	if common {
		out = append(out, ReasoningCommonsense)
	}
	if hypo {
		out = append(out, ReasoningHypothetical)
	}
	return out, nil
}

func init() {
	Register(Kind{
		Names:          []string{"archer", "archer-en", "archer-zh", "archer-train", "archer-en-train", "archer-zh-train", "archer-dev", "archer-en-dev", "archer-zh-dev"},
		Match:          func(name string) bool { return strings.HasPrefix(name, "archer-") },
		Load:           openArcher,
		Order:          30,
		ChecksumFamily: func(string) string { return "archer" },
		Data:           []DataEntry{{"archer", "archer", "archer", "https://github.com/sig4kg/archer-bench", "Archer dev (English)"}},
	})
}

// openArcher parses an Open name archer[-en|-zh][-dev|-train] (default
// en dev).
func openArcher(name, dir string, opt LoadOptions) (*Benchmark, error) {
	lang, split := "en", "dev"
	for _, part := range strings.Split(name, "-")[1:] {
		switch part {
		case "en", "zh":
			lang = part
		case "dev", "train":
			split = part
		default:
			return nil, fmt.Errorf("datasets: unknown archer variant %q in %q (want archer[-en|-zh][-dev|-train]): %w", part, name, ErrUnknownBenchmark)
		}
	}
	return LoadArcher(dir, lang, split, opt)
}
