package iesr

import (
	"context"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/sim"
)

// TestGoldConstants: the constants and operators of hand-written queries,
// read off the text by hand.
func TestGoldConstants(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		nums []float64
		ops  []string
	}{
		// A star is no product, in SELECT *, COUNT(*) and t.*.
		{"SELECT * FROM t", nil, nil},
		{"SELECT count(*), t.* FROM t ORDER BY a DESC LIMIT 1", nil, []string{"COUNT"}},
		// A sign before a number that follows no operand is the number's;
		// a '-' inside a string is text.
		{"SELECT a - -5 FROM t WHERE c <> 'x-1' AND d BETWEEN 1 AND 2.5", []float64{-5, 1, 2.5}, []string{"-", "<>", "BETWEEN"}},
		// LIMIT 3 is a number of the question; LIMIT 1 is not.
		{"SELECT CAST(x AS REAL) * 100 / y FROM t LIMIT 3", []float64{100, 3}, []string{"CAST", "*", "/"}},
		{"SELECT x FROM t WHERE y IN (1, 2) AND name LIKE '%a%' AND z != 3 AND w == 0.30", []float64{1, 2, 3, 0.3}, []string{"IN", "LIKE", "<>", "="}},
		{"SELECT ROUND(AVG(\"speed\" * 3.6), 2) FROM `r` -- 7 in a comment\n WHERE v >= 1e3", []float64{3.6, 2, 1000}, []string{"ROUND", "AVG", "*", ">="}},
	} {
		nums, ops := GoldConstants(tc.sql)
		if !reflect.DeepEqual(nums, tc.nums) || !reflect.DeepEqual(ops, tc.ops) {
			t.Errorf("GoldConstants(%q): got %v, %v; want %v, %v", tc.sql, nums, ops, tc.nums, tc.ops)
		}
	}
}

// TestTable4PrecisionRecall measures hand-made extractions against gold
// queries on the bundled weather database; the expected counts are worked
// out by hand below each case (tables and columns are SQLite's read set:
// the columns the query names, join keys included).
func TestTable4PrecisionRecall(t *testing.T) {
	e := newMiniEnv(t, sim.Config{P: 0.5})
	db := e.db(t, "weather")
	sch, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, gold string
		state      SemanticState
		want       map[string]PR
	}{
		{
			name: "wind speed in km/h",
			gold: "SELECT MAX(r.value * 3.6) FROM reading AS r JOIN sensor AS s ON r.sensor_id = s.sensor_id WHERE s.kind = 'wind_speed' AND s.station_id = 'ZUG'",
			// gold: tables reading, sensor; columns reading.sensor_id,
			// reading.value, sensor.kind, sensor.sensor_id,
			// sensor.station_id; numbers 3.6; operators MAX * =.
			state: SemanticState{
				Tables:        []string{"reading", "station"},
				FieldPatterns: []string{"reading.value", "Sensor.Kind", "station.name", "sensor_id"},
				Numbers:       []Number{{Value: "3.6", Unit: "km/h"}, {Value: "10"}},
				Operators:     []string{"max", "multiply", ">"},
			},
			want: map[string]PR{
				"table": {Pred: 2, PredHit: 1, Gold: 2, GoldHit: 1}, // reading
				// value, kind and the bare sensor_id (both tables') hit;
				// station.name misses; sensor.station_id is not found.
				"column":   {Pred: 4, PredHit: 3, Gold: 5, GoldHit: 4},
				"unit_num": {Pred: 2, PredHit: 1, Gold: 1, GoldHit: 1}, // 3.6 (10 is not in the gold)
				"operator": {Pred: 3, PredHit: 2, Gold: 3, GoldHit: 2}, // MAX, *; > is not, = is missed
			},
		},
		{
			name: "count with LIMIT 1",
			gold: "SELECT COUNT(*) FROM station WHERE elevation_m > 1000 LIMIT 1",
			// gold: station; station.elevation_m; 1000 (LIMIT 1 not
			// counted); COUNT, >.
			state: SemanticState{
				Tables:        []string{"Station"},
				FieldPatterns: []string{"`station`.`elevation_m`"},
				Numbers:       []Number{{Value: "1,000", Unit: "m"}},
				Operators:     []string{"COUNT(*)", "greater than"},
			},
			want: map[string]PR{
				"table":    {Pred: 1, PredHit: 1, Gold: 1, GoldHit: 1},
				"column":   {Pred: 1, PredHit: 1, Gold: 1, GoldHit: 1},
				"unit_num": {Pred: 1, PredHit: 1, Gold: 1, GoldHit: 1},
				"operator": {Pred: 2, PredHit: 2, Gold: 2, GoldHit: 2},
			},
		},
		{
			name:  "nothing extracted",
			gold:  "SELECT name FROM station WHERE elevation_m > 1000",
			state: SemanticState{},
			want: map[string]PR{
				"table":    {Gold: 1},
				"column":   {Gold: 2}, // name, elevation_m
				"unit_num": {Gold: 1},
				"operator": {Gold: 1},
			},
		},
	} {
		g, err := GoldUseOf(context.Background(), db, sch, tc.gold)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g.Method != "bytecode" {
			t.Errorf("%s: read set method %q; want bytecode (SQLite)", tc.name, g.Method)
		}
		got := ScoreKeywords(KeywordsOf(tc.state), g)
		for _, f := range Table4Fields {
			if got[f] != tc.want[f] {
				t.Errorf("%s: %s: got %+v; want %+v (gold %+v)", tc.name, f, got[f], tc.want[f], g)
			}
		}
	}
}
