package viewer_test

import (
	"path/filepath"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestIndexTitleStatesProfile: the overview's title of a run made through
// a profile (the line `run --profile` records in the stored spec text)
// states the profile after "simulated model", as the report's does.
func TestIndexTitleStatesProfile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	if err := runSpec(t, "name: prof\nbenchmarks: [{name: mini, limit: 2}]\nmodels: {sim: {backend: sim}}\nroles: {reason: sim}\nrunners: [{name: direct}]\n", dir); err != nil {
		t.Fatal(err)
	}
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := "name: prof\n\n" + spec.ChangeMarker + "\n" + spec.ProfileMarker + "quick profile: limit 2\n"
	if err := st.SetSpecText(text, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	want := "prof (simulated model, quick profile: limit 2)"
	if got := openViewer(t, dir).Index().Title; got != want {
		t.Errorf("title %q; want %q", got, want)
	}
}
