package metrics_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/metrics"
)

// TestCheckGoldsLogicCatMySQL checks the health of every LogicCat gold on
// MariaDB through a SELECT-only account. Expected figures
// (shared/datasets/logiccat/MARIADB.md §4-5): of 2,059 MySQL golds, 1,931
// run (123 errors, 3 INSERTs, 2 empty); golds 865 and 1440 draw RAND(); a
// LIMIT cuts a tie in some, among them bike/154 ("ORDER BY ... LIMIT 1"
// over tied rows). `datasets check` prints these figures (cmd/t2sbench's
// TestDatasetsCheckLogicCatMySQL checks its report on a slice).
func TestCheckGoldsLogicCatMySQL(t *testing.T) {
	cfg := mysqltest.LogicCatConfig(t, "t2s_ro_metrics")
	// Every LogicCat database intact: datasets' import test breaks one
	// and reloads it under this lock.
	mysqltest.HoldDataLock(t)
	cfg.Timeout = 30 * time.Second
	b, err := datasets.LoadLogicCat(testenv.Datasets(t, "logiccat"), "mysql", "test", datasets.LoadOptions{MySQL: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Engine.Close()
	checks, err := metrics.CheckGolds(context.Background(), b, metrics.GoldCheckOptions{Timeout: 30 * time.Second, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	tt := metrics.SumGoldChecks(checks)
	if tt.Runnable != 1931 || tt.ByFlag[metrics.FlagLimitTie] == 0 {
		t.Errorf("logiccat totals %+v; want 1931 runnable and some limit_tie", tt)
	}
	flags := map[string][]string{}
	for _, q := range checks {
		flags[q.QuestionID] = q.Flags
	}
	for id, want := range map[string]string{
		"new_energy_vehicles/865": "static:RAND()",
		"rice_cooker/1440":        "static:RAND()",
		"bike/154":                metrics.FlagLimitTie,
	} {
		if !slices.Contains(flags[id], want) {
			t.Errorf("%s flags %q; want %q among them", id, flags[id], want)
		}
	}
}
