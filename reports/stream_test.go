package reports

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestBuildStreamedEqualsWhole builds the report of the fixture run (and
// of two runs, the fixture twice) from runs read whole and from runs read
// by runstore.ReadRunStream, whose items are streamed one trial at a time
// and never held: every file the report writes (tables in every format,
// the plots' data and captions, report.md, and for one run the plots as
// SVG) and its terminal output are byte-identical.
func TestBuildStreamedEqualsWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFixtureRun(t, dir, "sim")
	for _, n := range []int{1, 2} {
		t.Run(map[int]string{1: "one run", 2: "two runs"}[n], func(t *testing.T) {
			t.Parallel()
			var whole, streamed []*runstore.RunData
			for range n {
				w, err := runstore.ReadRunMode(dir, runstore.ReadReport)
				if err != nil {
					t.Fatal(err)
				}
				s, err := runstore.ReadRunStream(dir, runstore.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				whole, streamed = append(whole, w), append(streamed, s)
			}
			opt := fixtureOptions()
			opt.Resamples = 200 // the comparison of the reads, not of the intervals
			files := map[string]map[string][]byte{}
			for name, runs := range map[string][]*runstore.RunData{"whole": whole, "streamed": streamed} {
				r, err := Build(runs, opt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out := filepath.Join(t.TempDir(), name)
				formats := []string{"md", "tex", "csv"}
				if n == 1 {
					formats = append(formats, "svg") // the plots themselves, once
				}
				if _, err := r.WriteFiles(out, formats); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var term bytes.Buffer
				if err := r.WriteTerminal(&term); err != nil {
					t.Fatal(err)
				}
				files[name] = map[string][]byte{"(terminal)": term.Bytes()}
				err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					b, err := os.ReadFile(p)
					rel, _ := filepath.Rel(out, p)
					files[name][rel] = b
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(files["whole"]) < 20 {
				t.Fatalf("the whole read's report wrote %d files; want the fixture's tables and plots", len(files["whole"]))
			}
			for _, p := range slices.Sorted(maps.Keys(files["whole"])) {
				if got, ok := files["streamed"][p]; !ok || !bytes.Equal(got, files["whole"][p]) {
					t.Errorf("%s: streamed gives %d bytes (written %v); want the %d of the whole read, byte for byte", p, len(got), ok, len(files["whole"][p]))
				}
			}
			if len(files["streamed"]) != len(files["whole"]) {
				t.Errorf("streamed report wrote %d files; want %d", len(files["streamed"]), len(files["whole"]))
			}
		})
	}
}
