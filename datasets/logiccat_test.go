package datasets

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

func TestParseLogicCatPairing(t *testing.T) {
	data := []byte(`[
 {"db_id": "a", "type": "1", "idx": 1, "question": "q1", "query": "SELECT  1", "step": "s1", "format": "MySQL"},
 {"db_id": "b", "type": 2, "idx": 2, "question": "q2", "query": "SELECT 2", "step": "s2", "format": "MySQL"},
 {"db_id": "a", "type": "4", "idx": 3, "question": "q3", "query": "SELECT 3", "step": "", "format": "MySQL"}
]`)
	golds := []logicCatGold{{sql: "SELECT 1", dbID: "a", typ: "1", line: 1}, {sql: "SELECT 3", dbID: "a", typ: "4", line: 2}}
	ex, err := parseLogicCat("t.json", data, golds)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 3 {
		t.Fatalf("got %d examples; want 3 (none dropped)", len(ex))
	}
	if ex[0].ID != "a/1" || ex[0].GoldSQL != "SELECT 1" || ex[0].ReasoningTypes[0] != "physical" || ex[0].Extra["gold_line"] != 1 {
		t.Errorf("ex[0] = %+v", ex[0])
	}
	if ex[1].GoldSQL != "" || ex[1].Extra["gold_status"] != LogicCatGoldMissing || ex[1].Extra["json_query"] != "SELECT 2" || ex[1].ReasoningTypes[0] != "mathematical" {
		t.Errorf("ex[1] (no gold line) = %+v", ex[1])
	}
	if ex[2].GoldSQL != "SELECT 3" || ex[2].ReasoningTypes[0] != "hypothetical" || ex[2].Extra["step"] != "" {
		t.Errorf("ex[2] = %+v", ex[2])
	}

	// A gold line that matches no question is an error naming it.
	_, err = parseLogicCat("t.json", data, append(golds, logicCatGold{sql: "SELECT 9", dbID: "z", typ: "1", line: 3}))
	if err == nil || !strings.Contains(err.Error(), "gold line 3") {
		t.Errorf("leftover gold: err = %v; want one naming gold line 3", err)
	}
	// A bad type names file:line.
	bad := []byte("[\n{\"db_id\": \"a\", \"type\": \"7\", \"idx\": 1, \"question\": \"q\", \"query\": \"x\"}]")
	if _, err := parseLogicCat("t.json", bad, nil); err == nil || !strings.Contains(err.Error(), "t.json:2:") {
		t.Errorf("bad type: err = %v; want t.json:2:...", err)
	}
	dup := []byte(`[{"db_id": "a", "type": "1", "idx": 1, "question": "q", "query": "x"}, {"db_id": "a", "type": "1", "idx": 1, "question": "q", "query": "x"}]`)
	if _, err := parseLogicCat("t.json", dup, nil); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate id: err = %v", err)
	}
}

func TestOpenLogicCatNames(t *testing.T) {
	if _, err := Open("logiccat-bogus", t.TempDir(), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "logiccat") {
		t.Errorf("Open(logiccat-bogus) err = %v; want an unknown-variant error", err)
	}
	if _, err := LoadLogicCat(t.TempDir(), "oracle", "", LoadOptions{}); err == nil {
		t.Error("dialect oracle accepted")
	}
}

// TestLogicCatShared checks the loader on the shared data, without a MySQL
// server. Expected counts: shared/datasets/logiccat/SOURCE.md.
func TestLogicCatShared(t *testing.T) {
	dir := testenv.Datasets(t, "logiccat")
	count := func(ex []Example) (gold, missing int, types map[string]int) {
		types = map[string]int{}
		for _, e := range ex {
			if e.Extra["gold_status"] == LogicCatGoldOK { // gold lines 1623-1624 hold empty SQL
				gold++
			} else {
				missing++
			}
			types[e.ReasoningTypes[0]]++
		}
		return
	}
	my, err := Open("logiccat", dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, m, ty := count(my.Examples)
	if len(my.Examples) != 2369 || g != 2059 || m != 310 {
		t.Errorf("mysql test: %d examples, %d with gold, %d missing; want 2369, 2059, 310", len(my.Examples), g, m)
	}
	want := map[string]int{"physical": 507, "mathematical": 595, "commonsense": 610, "hypothetical": 657}
	for k, v := range want {
		if ty[k] != v {
			t.Errorf("mysql test: type %s = %d; want %d", k, ty[k], v)
		}
	}
	if my.Mode != "logiccat" || my.Engine.Dialect() != "sqlite" {
		t.Errorf("mode %q, engine %q; want logiccat on the sqlite files (no MySQL config)", my.Mode, my.Engine.Dialect())
	}
	// The six databases without MySQL gold are reported missing.
	if got := strings.Join(my.MissingDBs(), ","); got != "Population,concert,contract,exerciseclub,hospital,school" {
		t.Errorf("mysql MissingDBs = %s", got)
	}
	_, err = my.Engine.Open(context.Background(), "concert")
	if !errors.Is(err, ErrMissingDB) {
		t.Errorf("Open(concert) without gold: err = %v; want ErrMissingDB", err)
	}

	sq, err := Open("logiccat-sqlite", dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Engine.Close()
	if g, m, _ := count(sq.Examples); len(sq.Examples) != 2369 || g != 2369 || m != 0 {
		t.Errorf("sqlite test: %d examples, %d with gold; want 2369, 2369", len(sq.Examples), g)
	}
	if miss := sq.MissingDBs(); len(miss) != 0 {
		t.Errorf("sqlite MissingDBs = %v; want none (every db_id maps to a file)", miss)
	}
	db, err := sq.Engine.Open(context.Background(), "electric_scooter")
	if err != nil {
		t.Fatalf("open electric_scooter (file \"electric scooter.db\"): %v", err)
	}
	if _, err := db.Execute(context.Background(), sq.Examples[0].GoldSQL); err != nil {
		t.Logf("first sqlite gold on %s: %v", sq.Examples[0].DBID, err)
	}

	mini, err := Open("logiccat-mini500", dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g, _, _ := count(mini.Examples); len(mini.Examples) != 500 || g != 500 {
		t.Errorf("mini500: %d examples, %d with gold; want 500, 500", len(mini.Examples), g)
	}
	full, err := Open("logiccat-full-gold", dir, LoadOptions{Limit: 0})
	if err != nil {
		t.Fatal(err)
	}
	_, _, fty := count(full.Examples)
	if len(full.Examples) != 4036 || fty["physical"] != 925 || fty["hypothetical"] != 1073 {
		t.Errorf("full-gold: %d golds, types %v; want 4036, 925/1012/1026/1073", len(full.Examples), fty)
	}
}
