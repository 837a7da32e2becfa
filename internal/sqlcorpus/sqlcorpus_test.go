package sqlcorpus

import "testing"

// TestDatasets: every dataset of the shared data gives queries.
func TestDatasets(t *testing.T) {
	ds := Datasets(t)
	for _, name := range []string{"spider", "bird", "archer", "logiccat"} {
		if len(ds[name]) == 0 {
			t.Errorf("%s: got no queries; want the golds", name)
		}
		t.Logf("%s: %d distinct gold queries", name, len(ds[name]))
	}
}
