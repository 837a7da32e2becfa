package runners

import (
	"context"

	"github.com/t2sbench/t2sbench/datasets"
)

// GoldAnalyzer is implemented by a runner that measures its intermediate
// output against the gold query, as a paper's analysis table does (IESR's
// Table 4: the precision and recall of the extracted keywords). bench
// calls AnalyzeGold once per finished item, after Run returned and before
// the prediction is scored, with the example as the benchmark gives it
// (gold SQL included) and the database; it may only add trace counters and
// data to res, never change res.SQL. Run itself never sees the gold: the analysis reads what Run left
// in its trace. An error is recorded in the trace (Data
// "gold_analysis_error") and does not fail the item.
type GoldAnalyzer interface {
	AnalyzeGold(ctx context.Context, ex datasets.Example, db datasets.Database, res *Result) error
}
