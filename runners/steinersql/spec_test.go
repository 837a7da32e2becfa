package steinersql_test

import (
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/bench"
	"github.com/t2sbench/t2sbench/internal/testkit/benchkit"
	_ "github.com/t2sbench/t2sbench/runners/steinersql"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestSpecsEndToEnd runs both experiment specs through the bench API with
// the offline sim model on the first 6 mini questions: every item
// finishes, every trial answers, and the validation counters the Figure 3
// report needs are in the traces.
func TestSpecsEndToEnd(t *testing.T) {
	for _, name := range []string{"steinersql-table2", "steinersql-fig4"} {
		t.Run(name, func(t *testing.T) {
			plan := benchkit.Plan(t, benchkit.SpecFile(t, filepath.Join("..", "..", "experiments", name+".yaml")))
			dir := t.TempDir()
			const limit = 6
			sum, err := benchkit.Run(t, dir, plan, bench.Options{Limit: limit, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			if want := len(plan.Trials) * limit; sum.Done != want || sum.Failed != 0 {
				t.Fatalf("done, failed = %d, %d; want %d, 0", sum.Done, sum.Failed, want)
			}
			run, err := runstore.ReadRun(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Simulated {
				t.Error("run not marked simulated")
			}
			for _, tr := range run.Trials {
				answered, correct := 0, 0
				for _, it := range tr.Items {
					if it.Error != "" {
						t.Errorf("%s %s: error %s", tr.Label, it.QuestionID, it.Error)
					}
					if it.Result == nil {
						t.Fatalf("%s %s: no result", tr.Label, it.QuestionID)
					}
					if it.Result.SQL != "" {
						answered++
					}
					if it.Verdict != nil && it.Verdict.Correct {
						correct++
					}
					c := it.Result.Trace.Counters
					validated := !strings.Contains(tr.Label, "w/o-validation")
					if _, ok := c["validation.l2"]; ok != validated {
						t.Errorf("%s %s: validation.l2 counter present = %v; want %v (counters %v)", tr.Label, it.QuestionID, ok, validated, c)
					}
				}
				if answered < limit-1 {
					t.Errorf("%s: %d of %d questions answered", tr.Label, answered, limit)
				}
				t.Logf("%-40s EX %d/%d", tr.Label, correct, limit)
			}
		})
	}
}
