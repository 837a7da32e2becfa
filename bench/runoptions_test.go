package bench

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestAddRunOptions: the run's options list gains an entry per change of
// options, restarts with --fresh, and never holds a secret.
func TestAddRunOptions(t *testing.T) {
	t.Parallel()
	const key = "sk-0123456789abcdefghijkl"
	type session struct {
		opts    string
		restart bool
	}
	for _, tc := range []struct {
		name     string
		sessions []session
		want     []string
	}{
		{"one", []session{{"--limit 5", false}}, []string{"--limit 5"}},
		{"resumed alike", []session{{"--limit 5", false}, {"--limit 5", false}}, []string{"--limit 5"}},
		{"changed", []session{{"--limit 5", false}, {"", false}, {"--limit 9 --workers 2", false}}, []string{"--limit 5", "", "--limit 9 --workers 2"}},
		{"fresh restarts", []session{{"--limit 5", false}, {"--fresh", true}}, []string{"--fresh"}},
		{"secret redacted", []session{{"--set models.m.base_url=http://h/v1?key=" + key, false}}, []string{"--set models.m.base_url=http://h/v1?key=[REDACTED]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			st, err := runstore.OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.sessions {
				if err := st.AddRunOptions(s.opts, []string{key}, s.restart); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := runstore.ReadRun(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if err := json.Unmarshal([]byte(r.Meta[runstore.MetaRunOptions]), &got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("options %q; want %q", got, tc.want)
			}
		})
	}
}
