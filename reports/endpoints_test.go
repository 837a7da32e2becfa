package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestEndpointTable: a model served by several endpoints gets one row per
// endpoint in the efficiency-endpoints table, with its share of the
// model's calls and its mean latency; a model with one endpoint gets none.
func TestEndpointTable(t *testing.T) {
	tests := []struct {
		name  string
		stats []runstore.EndpointStat
		// want are the rows as "model endpoint calls share errors
		// ejections mean max gen" (nil: no table).
		want []string
	}{
		{name: "one endpoint: no table", stats: []runstore.EndpointStat{{Model: "l", Endpoint: "http://a/v1", Calls: 10, LatencyMSSum: 100}}},
		{
			name: "three endpoints, one killed",
			stats: []runstore.EndpointStat{
				// shares: 60/100, 30/100, 10/100; means: 600/60, 500/25 (30 calls, 5 failed), 400/10
				{Model: "l", Endpoint: "http://a/v1", Calls: 60, LatencyMSSum: 600, LatencyMSMax: 19, CompletionTokens: 600},
				{Model: "l", Endpoint: "http://b/v1", Calls: 30, Errors: 5, Ejections: 2, LatencyMSSum: 500, LatencyMSMax: 38, CompletionTokens: 250},
				{Model: "l", Endpoint: "http://c/v1", Calls: 10, LatencyMSSum: 400, LatencyMSMax: 45, CompletionTokens: 100},
				{Model: "solo", Endpoint: "http://d/v1", Calls: 7, LatencyMSSum: 70},
			},
			want: []string{
				"l http://a/v1 60 60.0% 0 0 10.0 19.0 600",
				"l http://b/v1 30 30.0% 5 2 20.0 38.0 250",
				"l http://c/v1 10 10.0% 0 0 40.0 45.0 100",
			},
		},
		{
			name:  "every attempt failed",
			stats: []runstore.EndpointStat{{Model: "l", Endpoint: "http://a/v1", Calls: 4, Errors: 4, Ejections: 1}, {Model: "l", Endpoint: "http://b/v1", Calls: 4}},
			want:  []string{"l http://a/v1 4 50.0% 4 1 - - 0", "l http://b/v1 4 50.0% 0 0 0.0 0.0 0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixtureRun(t, dir, "openai")
			st, err := runstore.OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.AddEndpointStats(tc.stats); err != nil {
				t.Fatal(err)
			}
			st.Close()
			run, err := runstore.ReadRun(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Build([]*runstore.RunData{run}, fixtureOptions())
			if err != nil {
				t.Fatal(err)
			}
			var tab *Table
			for _, x := range r.Tables {
				if x.ID == "efficiency-endpoints" {
					tab = x
				}
			}
			if tc.want == nil {
				if tab != nil {
					t.Fatalf("got table %+v; want none", tab.Rows)
				}
				return
			}
			if tab == nil {
				t.Fatal("no efficiency-endpoints table; want one")
			}
			var got []string
			for _, row := range tab.Rows {
				var cells []string
				for _, c := range row {
					cells = append(cells, c.Text)
				}
				got = append(got, strings.Join(cells, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			var buf bytes.Buffer
			if err := r.WriteTerminal(&buf); err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{"Model endpoints", "http://a/v1", "ejections"} {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("terminal report lacks %q", w)
				}
			}
		})
	}
}
