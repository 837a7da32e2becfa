package datasets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LogicCat reasoning types by the JSON "type" field. The mapping 1..4 ->
// physical, mathematical, commonsense, hypothetical is INFERRED from the
// examples (shared/datasets/logiccat/SOURCE.md); the dataset README does not
// define it.
var logicCatTypes = map[string]string{
	"1": "physical",
	"2": "mathematical",
	"3": "commonsense",
	"4": "hypothetical",
}

// LogicCatDBMap maps LogicCat db ids to the schema names of the MySQL dumps
// where they differ (MARIADB.md §3). Used as the default MySQLConfig.DBMap.
var LogicCatDBMap = map[string]string{
	"concert":      "Concert",
	"exerciseclub": "exercise_club",
}

// LogicCat gold statuses, in Example.Extra["gold_status"].
const (
	// LogicCatGoldOK: the gold SQL comes from the dialect's gold list.
	LogicCatGoldOK = "ok"
	// LogicCatGoldMissing: the dialect's gold list has no line for the
	// question (MySQL: the 310 questions of concert, Population, contract,
	// exerciseclub, hospital and school). GoldSQL is empty, the JSON's
	// query is kept in Extra["json_query"], and the benchmark's engine
	// reports the database missing (ErrMissingDB), so these questions score
	// missing_db: they are reported, never dropped.
	LogicCatGoldMissing = "missing_gold"
)

// LoadLogicCat loads LogicCat from dir (shared/datasets/logiccat layout):
//
//	dialect "mysql" (default) or "sqlite": which gold list and schema;
//	split "test" (default): <dialect>/cop_cot_test_2369.json paired, in
//	    order, with <dialect>/gold2369.sql (lines "SQL<TAB>db_id<TAB>type");
//	split "mini500": miniset/<dialect>_mini_500.{json,sql};
//	split "full-gold": <dialect>/data_full_gold.sql alone (4,036 golds, no
//	    questions: the matching data.json is not public; for gold checks).
//
// ID is "<db_id>/<idx>" ("<db_id>/L<line>" for full-gold), ReasoningTypes
// from "type" (see logicCatTypes), Extra keeps type, idx, step, format,
// gold_line and gold_status. Mode is "logiccat". Questions without a gold
// line stay, with gold_status missing_gold (see LogicCatGoldMissing).
//
// Engine: with opt.MySQL set, a MySQL engine over the loaded dumps (see
// ImportMySQLDumps), with LogicCatDBMap as default DBMap; otherwise the
// SQLite files in sqlite/database, 39 of 45 of which hold the schema only
// (every table empty), so most golds return no rows there.
func LoadLogicCat(dir, dialect, split string, opt LoadOptions) (*Benchmark, error) {
	if dialect == "" {
		dialect = "mysql"
	}
	if dialect != "mysql" && dialect != "sqlite" {
		return nil, fmt.Errorf("logiccat: unknown dialect %q (want mysql or sqlite)", dialect)
	}
	if split == "" {
		split = "test"
	}
	var jsonPath, goldPath string
	switch split {
	case "test":
		jsonPath = filepath.Join(dir, dialect, "cop_cot_test_2369.json")
		goldPath = filepath.Join(dir, dialect, "gold2369.sql")
	case "mini500":
		jsonPath = filepath.Join(dir, "miniset", dialect+"_mini_500.json")
		goldPath = filepath.Join(dir, "miniset", dialect+"_mini_500.sql")
	case "full-gold":
		goldPath = filepath.Join(dir, dialect, "data_full_gold.sql")
	default:
		return nil, fmt.Errorf("logiccat: unknown split %q (want test, mini500 or full-gold)", split)
	}
	golds, err := readLogicCatGold(goldPath)
	if err != nil {
		return nil, err
	}
	var ex []Example
	if jsonPath == "" {
		ex = logicCatGoldOnly(golds)
	} else {
		data, err := os.ReadFile(jsonPath)
		if err != nil {
			return nil, fmt.Errorf("logiccat: %w", err)
		}
		ex, err = parseLogicCat(jsonPath, data, golds)
		if err != nil {
			return nil, err
		}
	}
	ex = applyLimit(ex, opt.Limit)
	b := &Benchmark{Name: "logiccat", Split: split, Dir: dir, Mode: "logiccat", Examples: ex}

	withGold := map[string]bool{}
	for _, e := range ex {
		if e.GoldSQL != "" {
			withGold[e.DBID] = true
		}
	}
	if opt.MySQL != nil {
		cfg := *opt.MySQL
		m := map[string]string{}
		for k, v := range LogicCatDBMap {
			m[k] = v
		}
		for k, v := range cfg.DBMap {
			m[k] = v
		}
		cfg.DBMap = m
		eng, err := NewMySQLEngine(cfg)
		if err != nil {
			return nil, fmt.Errorf("logiccat: %w", err)
		}
		b.Engine = &goldOnlyEngine{Engine: eng, with: withGold}
		return b, nil
	}
	locate, err := logicCatLocator(filepath.Join(dir, "sqlite", "database"))
	if err != nil {
		return nil, err
	}
	b.Engine = &goldOnlyEngine{Engine: newFileEngine(locate, opt.SQLite), with: withGold, locate: locate}
	return b, nil
}

// goldOnlyEngine reports the databases of questions without any gold as
// missing (ErrMissingDB), so that those questions score missing_db.
type goldOnlyEngine struct {
	Engine
	with   map[string]bool
	locate func(string) (string, bool)
}

// Open opens dbID, or fails with ErrMissingDB when no question of the
// benchmark on dbID has a gold SQL.
func (e *goldOnlyEngine) Open(ctx context.Context, dbID string) (Database, error) {
	if !e.with[dbID] {
		return nil, fmt.Errorf("logiccat: %s has no gold SQL in this dialect's gold list: %w", dbID, ErrMissingDB)
	}
	return e.Engine.Open(ctx, dbID)
}

// Has reports whether dbID can be opened (without opening it for SQLite).
func (e *goldOnlyEngine) Has(dbID string) bool {
	if !e.with[dbID] {
		return false
	}
	if e.locate != nil {
		_, ok := e.locate(dbID)
		return ok
	}
	_, err := e.Engine.Open(context.Background(), dbID)
	return err == nil
}

// logicCatGold is one line of a gold list.
type logicCatGold struct {
	sql, dbID, typ string
	line           int
}

func readLogicCatGold(path string) ([]logicCatGold, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("logiccat: %w", err)
	}
	var out []logicCatGold
	for i, l := range strings.Split(strings.TrimRight(string(data), "\r\n"), "\n") {
		l = strings.TrimRight(l, "\r")
		parts := strings.Split(l, "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: want SQL<TAB>db_id<TAB>type, got %d fields", path, i+1, len(parts))
		}
		if parts[1] == "" {
			return nil, fmt.Errorf("%s:%d: empty db_id", path, i+1)
		}
		out = append(out, logicCatGold{sql: parts[0], dbID: parts[1], typ: parts[2], line: i + 1})
	}
	return out, nil
}

// logicCatItem is one element of cop_cot_test_2369.json.
type logicCatItem struct {
	DBID     string          `json:"db_id"`
	Type     json.RawMessage `json:"type"` // "1".."4"; the MySQL file also has bare numbers
	Idx      int             `json:"idx"`
	Question string          `json:"question"`
	Query    string          `json:"query"`
	Step     string          `json:"step"`
	Format   string          `json:"format"`
}

// collapseSpace joins the whitespace-separated fields of s with one space.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseLogicCat decodes the question file and pairs it, in order, with the
// gold list: the next unused gold line is a question's gold when its db_id
// and type match and its SQL equals the JSON query up to whitespace;
// otherwise the question has no gold line (missing_gold). Gold lines left
// over are an error.
func parseLogicCat(file string, data []byte, golds []logicCatGold) ([]Example, error) {
	items, err := splitJSONArray(file, data)
	if err != nil {
		return nil, err
	}
	ex := make([]Example, 0, len(items))
	seen := map[string]int{}
	g := 0
	for i, it := range items {
		var x logicCatItem
		if _, err := decodeItem(file, data, it, &x); err != nil {
			return nil, err
		}
		typ := strings.Trim(string(x.Type), `"`)
		if err := requireFields(file, data, it, [2]string{"db_id", x.DBID}, [2]string{"question", x.Question}, [2]string{"type", typ}); err != nil {
			return nil, err
		}
		rt, ok := logicCatTypes[typ]
		if !ok {
			l, c := lineCol(data, it.start)
			return nil, fmt.Errorf("%s:%d:%d: unknown type %s (want 1-4)", file, l, c, x.Type)
		}
		id := x.DBID + "/" + strconv.Itoa(x.Idx)
		if prev, dup := seen[id]; dup {
			l, c := lineCol(data, it.start)
			return nil, fmt.Errorf("%s:%d:%d: duplicate (db_id, idx) %s (also item %d)", file, l, c, id, prev)
		}
		seen[id] = i
		e := Example{
			ID: id, Index: i, DBID: x.DBID, Question: x.Question,
			ReasoningTypes: []string{rt},
			Extra: map[string]any{
				"type": typ, "idx": x.Idx, "step": x.Step, "format": x.Format,
			},
		}
		if g < len(golds) && golds[g].dbID == x.DBID && golds[g].typ == typ &&
			collapseSpace(golds[g].sql) == collapseSpace(x.Query) {
			e.GoldSQL = golds[g].sql
			e.Extra["gold_line"] = golds[g].line
			e.Extra["gold_status"] = LogicCatGoldOK
			g++
		} else {
			e.Extra["gold_status"] = LogicCatGoldMissing
			e.Extra["json_query"] = x.Query
		}
		ex = append(ex, e)
	}
	if g < len(golds) {
		return nil, fmt.Errorf("logiccat: gold line %d (%s) matches no question of %s in order", golds[g].line, golds[g].dbID, file)
	}
	return ex, nil
}

// logicCatGoldOnly turns a gold list into examples without questions.
func logicCatGoldOnly(golds []logicCatGold) []Example {
	ex := make([]Example, len(golds))
	for i, g := range golds {
		ex[i] = Example{
			ID: g.dbID + "/L" + strconv.Itoa(g.line), Index: i, DBID: g.dbID, GoldSQL: g.sql,
			ReasoningTypes: []string{logicCatTypes[g.typ]},
			Extra:          map[string]any{"type": g.typ, "gold_line": g.line, "gold_status": LogicCatGoldOK},
		}
		if ex[i].ReasoningTypes[0] == "" {
			ex[i].ReasoningTypes = nil
		}
	}
	return ex
}

// logicCatKey folds a db id or file stem for matching: lower case, no
// spaces or underscores (AirCraft -> aircraft.db, electric_scooter ->
// "electric scooter.db").
func logicCatKey(s string) string {
	return strings.NewReplacer(" ", "", "_", "").Replace(strings.ToLower(s))
}

// logicCatLocator maps db ids to the SQLite files of dir (*.db, *.sqlite).
func logicCatLocator(dir string) (func(string) (string, bool), error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("logiccat: %w", err)
	}
	files := map[string]string{}
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".db" && ext != ".sqlite") {
			continue
		}
		files[logicCatKey(strings.TrimSuffix(e.Name(), ext))] = filepath.Join(dir, e.Name())
	}
	return func(id string) (string, bool) {
		p, ok := files[logicCatKey(id)]
		return p, ok
	}, nil
}

// openLogicCat parses an Open name logiccat[-mysql|-sqlite][-test|-mini500|-full-gold].
func openLogicCat(name, dir string, opt LoadOptions) (*Benchmark, error) {
	dialect, split := "mysql", "test"
	rest := strings.TrimPrefix(strings.TrimPrefix(name, "logiccat"), "-")
	for _, d := range []string{"mysql", "sqlite"} {
		if rest == d || strings.HasPrefix(rest, d+"-") {
			dialect, rest = d, strings.TrimPrefix(strings.TrimPrefix(rest, d), "-")
		}
	}
	if rest != "" {
		split = rest
	}
	switch split {
	case "test", "mini500", "full-gold":
	default:
		return nil, fmt.Errorf("datasets: unknown logiccat variant %q (want logiccat[-mysql|-sqlite][-test|-mini500|-full-gold]): %w", name, ErrUnknownBenchmark)
	}
	return LoadLogicCat(dir, dialect, split, opt)
}

func init() {
	Register(Kind{
		Names: []string{"logiccat", "logiccat-mini500", "logiccat-full-gold",
			"logiccat-sqlite", "logiccat-sqlite-mini500", "logiccat-sqlite-full-gold"},
		Match: func(name string) bool { return strings.HasPrefix(name, "logiccat-") },
		Load:  openLogicCat,
		Specs: []string{"logiccat", "logiccat-sqlite"},
		Order: 50,
		// LogicCat's MySQL-dialect gold SQL only runs on a MySQL/MariaDB
		// server; logiccat-sqlite* uses the SQLite files.
		NeedsServer: func(name string) bool { return !strings.Contains(name, "sqlite") },
		ChecksumFamily: func(name string) string {
			if strings.Contains(name, "sqlite") {
				return "logiccat-sqlite"
			}
			return "logiccat"
		},
		Data: []DataEntry{{"logiccat-sqlite", "logiccat", "logiccat", "https://github.com/Ffunkytao/LogicCat", "LogicCat on its SQLite files (most hold no rows; logiccat proper runs on MySQL)"}},
	})
}
