package reports

import (
	"fmt"
	"maps"
	"slices"

	"github.com/t2sbench/t2sbench/runstore"
)

// endpointTable builds the per-endpoint table of the models served by
// several endpoints (spec.ModelSpec.Replicas): calls, their share of the
// model's calls, errors, ejections, latency and generated tokens. It is
// nil when no model of the runs has more than one endpoint.
func endpointTable(c *corpus, runs []*runstore.RunData) *Table {
	t := &Table{ID: "efficiency-endpoints", Caption: c.caption("Model endpoints: calls, errors, ejections and latency (ms) per endpoint of the models served by several")}
	t.Columns = []Column{{Name: "model"}, {Name: "endpoint"}, {Name: "calls", Numeric: true}, {Name: "share", Numeric: true},
		{Name: "errors", Numeric: true}, {Name: "ejections", Numeric: true}, {Name: "lat mean", Numeric: true},
		{Name: "lat max", Numeric: true}, {Name: "gen tok", Numeric: true}}
	names := map[string]int{}
	for _, r := range runs {
		names[r.Name()]++
	}
	for _, r := range runs {
		byModel := map[string][]runstore.EndpointStat{}
		for _, e := range r.Endpoints {
			byModel[e.Model] = append(byModel[e.Model], e)
		}
		for _, m := range slices.Sorted(maps.Keys(byModel)) {
			eps := byModel[m]
			if len(eps) < 2 {
				continue
			}
			label := m
			if len(runs) > 1 {
				n := r.Name()
				if names[n] > 1 {
					n += " (" + r.Dir + ")"
				}
				label = n + ": " + m
			}
			var total int64
			for _, e := range eps {
				total += e.Calls
			}
			for _, e := range eps {
				share := text("-")
				if total > 0 {
					share = text(fmt.Sprintf("%.1f%%", 100*float64(e.Calls)/float64(total)))
				}
				mean, maxLat := text("-"), text("-")
				if e.Calls > e.Errors {
					mean, maxLat = num(e.MeanLatencyMS(), 1), num(e.LatencyMSMax, 1)
				}
				t.Rows = append(t.Rows, []Cell{text(label), text(e.Endpoint), num(float64(e.Calls), 0), share,
					num(float64(e.Errors), 0), num(float64(e.Ejections), 0), mean, maxLat, num(float64(e.CompletionTokens), 0)})
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{"calls: attempts sent to the endpoint (answers from the response cache make none), failed ones included; share: its part of the model's calls; errors: failed attempts, each retried elsewhere or later; ejections: times the endpoint was taken out of rotation after failing. Latency and gen tok are over answered attempts."}
	return t
}
