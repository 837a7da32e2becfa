package metrics_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/mysqltest"
	"github.com/t2sbench/t2sbench/metrics"
)

// isolationRounds is how often TestMySQLSessionIsolation repeats its
// sequence: with several rounds, 4 workers interleave the statements that
// set session state with those that read it.
const isolationRounds = 3

// isolationBench is the sequence of TestMySQLSessionIsolation, repeated
// isolationRounds times on LogicCat's ship database: a prediction takes
// the user lock, one sets @v, one sets LAST_INSERT_ID, and then three read
// that state. Each gold is what a clean session answers, so each reading
// prediction is correct only when it runs on a session of its own. lock is
// a name no other test uses, so that no other session holds it.
func isolationBench(eng datasets.Engine, lock string) (*datasets.Benchmark, map[int]string) {
	seq := []struct{ pred, gold string }{
		{fmt.Sprintf("SELECT GET_LOCK('%s', 0)", lock), "SELECT 1"},
		{"SELECT @v := 42", "SELECT 42"},
		{"SELECT LAST_INSERT_ID(7)", "SELECT 7"},
		{fmt.Sprintf("SELECT IS_FREE_LOCK('%s')", lock), "SELECT 1"}, // 1 on a clean server: nobody holds it
		{"SELECT @v IS NULL", "SELECT 1"},                            // 1 on a clean session: @v was never set
		{"SELECT LAST_INSERT_ID()", "SELECT 0"},                      // 0 on a clean session
	}
	b := &datasets.Benchmark{Name: "isolation", Mode: "logiccat", Engine: eng}
	preds := map[int]string{}
	for r := 0; r < isolationRounds; r++ {
		for _, s := range seq {
			i := len(b.Examples)
			b.Examples = append(b.Examples, datasets.Example{ID: fmt.Sprint(i), Index: i, DBID: "ship", GoldSQL: s.gold})
			preds[i] = s.pred
		}
	}
	return b, preds
}

// TestMySQLSessionIsolation: every prediction runs on a clean MariaDB
// session, so the verdicts of the sequence above are the same with 1 and
// with 4 workers, and are those a clean session gives: the GET_LOCK
// prediction is refused (pred_error: a user lock is seen by every session
// while held), and every other prediction is correct. On pooled
// connections the reading predictions saw the lock, @v = 42 and
// LAST_INSERT_ID() = 7 left by earlier ones, and were scored wrong, each
// as often as the scheduling made them share a connection.
func TestMySQLSessionIsolation(t *testing.T) {
	eng := mysqltest.LogicCatEngine(t, "t2s_ro_metrics")
	buf := make([]byte, 6)
	rand.Read(buf)
	lock := "t2sbench_isolation_" + hex.EncodeToString(buf)
	var got [2][]string
	for k, workers := range []int{1, 4} {
		b, preds := isolationBench(eng, lock)
		sc, err := metrics.NewScorer(b, nil, metrics.ScoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.ScoreAll(context.Background(), preds, workers, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			got[k] = append(got[k], fmt.Sprintf("%s %s %v", preds[v.Index], v.Status, v.Correct))
			want := "ok true"
			if strings.Contains(preds[v.Index], "GET_LOCK") {
				want = "pred_error false"
				if !strings.Contains(v.Error, "GET_LOCK is not allowed") {
					t.Errorf("%d workers: %q: error %q; want the GET_LOCK refusal", workers, preds[v.Index], v.Error)
				}
			}
			if g := fmt.Sprintf("%s %v", v.Status, v.Correct); g != want {
				t.Errorf("%d workers: question %d %q: %s (%s); want %s, as on a clean session", workers, v.Index, preds[v.Index], g, v.Error, want)
			}
		}
		t.Logf("%d workers: %s", workers, strings.Join(got[k][:len(got[k])/isolationRounds], "; "))
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("question %d: 1 worker %q, 4 workers %q; want the same verdict", i, got[0][i], got[1][i])
		}
	}
}
