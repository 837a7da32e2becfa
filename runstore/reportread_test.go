package runstore

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestReadRunStream reads stores of both formats (compressed results with
// digests, and the legacy format) whole with ReadReport and streamed: the
// streamed run has the same meta, trials, totals, failure classes,
// endpoint counters and bad-count lines, and no item, and EachItem gives each trial's items, calls included, equal to
// the whole read's in the same order.
func TestReadRunStream(t *testing.T) {
	t.Parallel()
	eachFormatStore(t, func(t *testing.T, dir string, legacy bool) {
		// One call with a bad token count, which both reads name.
		execStore(t, dir, `UPDATE model_calls SET completion_tokens = -7 WHERE id = (SELECT min(id) FROM model_calls)`)
		whole, err := ReadRunMode(dir, ReadReport)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ReadRunStream(dir, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if len(r.BadCounts) != 1 {
			t.Errorf("streamed bad-count lines = %q; want the one bad call", r.BadCounts)
		}
		if len(r.Trials) != len(whole.Trials) {
			t.Fatalf("streamed run has %d trials; want %d", len(r.Trials), len(whole.Trials))
		}
		for _, f := range []struct {
			name      string
			got, want any
		}{
			{"meta", r.Meta, whole.Meta},
			{"totals", r.Totals, whole.Totals},
			{"failed by class", r.FailedByClass, whole.FailedByClass},
			{"errored by class", r.ErroredByClass, whole.ErroredByClass},
			{"bad counts", r.BadCounts, whole.BadCounts},
			{"endpoints", r.Endpoints, whole.Endpoints},
		} {
			if !reflect.DeepEqual(f.got, f.want) {
				t.Errorf("streamed %s = %+v; want %+v", f.name, f.got, f.want)
			}
		}
		calls := 0
		for i := range r.Trials {
			if n := len(r.Trials[i].Items); n != 0 {
				t.Errorf("streamed trial %s holds %d items; want none", r.Trials[i].ID, n)
			}
			var got []Item
			if err := r.EachItem(&r.Trials[i], func(it *Item) error {
				got = append(got, *it)
				calls += len(it.Calls)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := whole.Trials[i].Items; !reflect.DeepEqual(got, want) {
				t.Errorf("trial %s: EachItem gives %+v; want %+v", r.Trials[i].ID, got, want)
			}
		}
		if calls == 0 {
			t.Errorf("no streamed item has calls; want those of the items without usage")
		}
		stop := errors.New("stop")
		seen := 0
		if err := r.EachItem(&r.Trials[0], func(*Item) error { seen++; return stop }); !errors.Is(err, stop) || seen != 1 {
			t.Errorf("EachItem with fn failing = %v after %d items; want fn's error after 1", err, seen)
		}
	})
}

// TestStreamVerdictsLoadItemsCallsOf reads stores of both formats whole
// and streamed: EachVerdict gives each trial's items as ReadVerdicts
// reads them, ReadCallLog the whole read's call-log totals, LoadItems a
// trial's items as ReadReport reads them, and EachCallOf the calls of the
// questions asked, in EachCall's order.
func TestStreamVerdictsLoadItemsCallsOf(t *testing.T) {
	t.Parallel()
	eachFormatStore(t, func(t *testing.T, dir string, legacy bool) {
		verdicts, err := ReadRunMode(dir, ReadVerdicts)
		if err != nil {
			t.Fatal(err)
		}
		report, err := ReadRunMode(dir, ReadReport)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ReadRunStream(dir, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.CallLog != (CallTotals{}) {
			t.Errorf("streamed call log before ReadCallLog = %+v; want zero", r.CallLog)
		}
		if err := r.ReadCallLog(); err != nil {
			t.Fatal(err)
		}
		if r.CallLog != verdicts.CallLog || r.CallLog.Calls == 0 {
			t.Errorf("ReadCallLog = %+v; want %+v, with calls", r.CallLog, verdicts.CallLog)
		}
		if !reflect.DeepEqual(r.BadCounts, verdicts.BadCounts) || !reflect.DeepEqual(r.Endpoints, verdicts.Endpoints) {
			t.Errorf("streamed bad counts %q endpoints %+v; want %q %+v", r.BadCounts, r.Endpoints, verdicts.BadCounts, verdicts.Endpoints)
		}
		for i := range r.Trials {
			tr := &r.Trials[i]
			var got []Item
			if err := r.EachVerdict(tr, func(it *Item) error { got = append(got, *it); return nil }); err != nil {
				t.Fatal(err)
			}
			if want := verdicts.Trials[i].Items; len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("trial %s: EachVerdict gives %+v; want %+v", tr.ID, got, want)
			}
			if err := r.LoadItems(tr); err != nil {
				t.Fatal(err)
			}
			if want := report.Trials[i].Items; !reflect.DeepEqual(tr.Items, want) {
				t.Errorf("trial %s: LoadItems reads %+v; want %+v", tr.ID, tr.Items, want)
			}
		}
		rd, err := OpenItemReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		ctx := t.Context()
		var all []ItemCall
		if err := rd.EachCall(ctx, func(c ItemCall) error { all = append(all, c); return nil }); err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, c := range all {
			ids[c.QuestionID] = true
		}
		if len(ids) < 2 {
			t.Fatalf("the store's calls are of %d questions; want at least 2", len(ids))
		}
		for _, ask := range [][]string{nil, {all[0].QuestionID}, {all[0].QuestionID, all[len(all)-1].QuestionID, "no such question"}} {
			var want, got []ItemCall
			for _, c := range all {
				if slices.Contains(ask, c.QuestionID) {
					want = append(want, c)
				}
			}
			if err := rd.EachCallOf(ctx, ask, func(c ItemCall) error { got = append(got, c); return nil }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("EachCallOf(%q) gives %d calls %+v; want %d %+v", ask, len(got), got, len(want), want)
			}
		}
	})
}

// TestReadRunStreamErrors names the store once in an error of a streamed
// read (a trials table that does not decode, an item's verdict that does
// not), and refuses EachItem after Close rather than reading an empty
// run.
func TestReadRunStreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		corrupt string // an UPDATE of the store; "" for none
		closed  bool   // EachItem after Close
		want    string
	}{
		{name: "trials", corrupt: `UPDATE trials SET config = '{'`, want: "config"},
		{name: "verdict", corrupt: `UPDATE items SET verdict = '{'`, want: "verdict"},
		{name: "after close", closed: true, want: "after Close"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFormatStore(t, dir, false)
			if tt.corrupt != "" {
				execStore(t, dir, tt.corrupt)
			}
			r, err := ReadRunStream(dir, ReadOptions{})
			if err == nil {
				if tt.closed {
					r.Close()
				}
				err = r.EachItem(&r.Trials[0], func(*Item) error { return nil })
				r.Close()
			}
			if err == nil {
				t.Fatalf("err nil; want an error naming %q", tt.want)
			}
			prefix := "store " + dir + ":"
			if msg := err.Error(); strings.Count(msg, prefix) != 1 || !strings.Contains(msg, tt.want) {
				t.Errorf("err %q; want %q once and %q", msg, prefix, tt.want)
			}
		})
	}
}
