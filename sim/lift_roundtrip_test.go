package sim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
)

// rowKey renders one row so that rows compare by value (int 1 and float
// 1.0 are equal, as Python's == in the official Spider scorer treats them).
func rowKey(row []any) string {
	parts := make([]string, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case nil:
			parts[i] = "NULL"
		case int64:
			parts[i] = fmt.Sprintf("n:%g", float64(x))
		case float64:
			parts[i] = fmt.Sprintf("n:%g", x)
		case []byte:
			parts[i] = "s:" + string(x)
		default:
			parts[i] = fmt.Sprintf("s:%v", x)
		}
	}
	return strings.Join(parts, "\x1f")
}

// sameResult compares two results as multisets of rows, or as sequences
// when ordered is set.
func sameResult(a, b *datasets.ResultSet, ordered bool) bool {
	if len(a.Rows) != len(b.Rows) {
		return false
	}
	if len(a.Rows) > 0 && len(a.Rows[0]) != len(b.Rows[0]) {
		return false
	}
	ka := make([]string, len(a.Rows))
	kb := make([]string, len(b.Rows))
	for i := range a.Rows {
		ka[i], kb[i] = rowKey(a.Rows[i]), rowKey(b.Rows[i])
	}
	if !ordered {
		sort.Strings(ka)
		sort.Strings(kb)
	}
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return true
}

// TestRoundTripSpider checks the ReAct-DSL compiler (runners/reactdsl)
// with the simulator's lifter: it lifts every Spider dev gold query to DSL
// calls, compiles the final relation back to SQL, runs both on the Spider
// database and compares the results (as multisets, or in order when the
// gold has ORDER BY). Every failure is classified: not liftable (with the
// reason) or compiler bug; compiler bugs must be zero.
func TestRoundTripSpider(t *testing.T) {
	dir := testenv.Datasets(t, "spider")
	bm, err := datasets.LoadSpider(dir, datasets.LoadOptions{SQLite: datasets.SQLiteOptions{MaxRows: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dbs := map[string]datasets.Database{}
	schemas := map[string]*datasets.Schema{}
	defer func() {
		for _, db := range dbs {
			if db != nil {
				db.Close()
			}
		}
	}()
	reasons := map[string]int{}
	var bugs []string
	total, lifted, ok, noDB := 0, 0, 0, 0
	for _, ex := range bm.Examples {
		db, seen := dbs[ex.DBID]
		if !seen {
			db, err = bm.Engine.Open(ctx, ex.DBID)
			if err != nil {
				if errors.Is(err, datasets.ErrMissingDB) {
					dbs[ex.DBID] = nil
					noDB++
					continue
				}
				t.Fatal(err)
			}
			dbs[ex.DBID] = db
			if schemas[ex.DBID], err = db.Schema(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if db == nil {
			noDB++
			continue
		}
		total++
		calls, final, err := lift(ex.GoldSQL, schemas[ex.DBID], "")
		if err != nil {
			var e *reactdsl.Error
			if !errors.As(err, &e) || e.Code != reactdsl.NotLiftableCode {
				t.Fatalf("%s: lift returned an untyped error %T: %v", ex.ID, err, err)
			}
			reason := e.Msg
			if e.Cause != nil {
				reason = "check: " + string(e.Cause.Code)
				t.Logf("%s: %v\n  gold: %s", ex.ID, e.Cause, ex.GoldSQL)
			}
			if i := strings.Index(reason, ":"); i > 0 && e.Cause == nil && strings.HasPrefix(reason, "cannot parse") {
				reason = reason[:i]
			}
			reasons[reason]++
			continue
		}
		lifted++
		s := reactdsl.NewSession(schemas[ex.DBID], "sqlite")
		rels := map[string]*reactdsl.Relation{}
		for _, c := range calls {
			out, err := s.Apply(c)
			if err != nil {
				t.Fatalf("%s: lifted program does not reapply: %v", ex.ID, err)
			}
			rels[c.Target] = out.Rel
		}
		r := rels[final]
		if r == nil {
			t.Fatalf("%s: lift's final relation %q is not built by its program:\n%s", ex.ID, final, formatProgram(calls))
		}
		sql := s.SQL(r)
		gold, err := db.Execute(ctx, ex.GoldSQL)
		if err != nil {
			t.Fatalf("%s: gold fails: %v", ex.ID, err)
		}
		got, err := db.Execute(ctx, sql)
		if err != nil {
			bugs = append(bugs, fmt.Sprintf("%s: compiled SQL fails: %v\n  gold: %s\n  dsl:\n%s  sql: %s", ex.ID, err, ex.GoldSQL, formatProgram(calls), sql))
			continue
		}
		ordered := strings.Contains(strings.ToLower(ex.GoldSQL), "order by")
		if !sameResult(gold, got, ordered) {
			bugs = append(bugs, fmt.Sprintf("%s: result differs (%d vs %d rows)\n  gold: %s\n  dsl:\n%s  sql: %s", ex.ID, len(gold.Rows), len(got.Rows), ex.GoldSQL, formatProgram(calls), sql))
			continue
		}
		ok++
	}
	var rs []string
	for k, v := range reasons {
		rs = append(rs, fmt.Sprintf("%4d  %s", v, k))
	}
	sort.Strings(rs)
	t.Logf("spider dev: %d questions with a database (%d skipped: missing db); lifted %d (%.1f%%); round trip equal %d; compiler bugs %d",
		total, noDB, lifted, 100*float64(lifted)/float64(max(total, 1)), ok, len(bugs))
	t.Logf("not liftable, by reason:\n%s", strings.Join(rs, "\n"))
	for i, b := range bugs {
		if i >= 15 {
			break
		}
		t.Errorf("compiler bug: %s", b)
	}
	if total > 0 && lifted*100 < total*80 {
		t.Errorf("lifted %d of %d; want at least 80%%", lifted, total)
	}
}
