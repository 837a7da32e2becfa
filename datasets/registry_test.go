package datasets_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
)

// TestRegistryNames pins what the lists read from the registry print: the
// lists below are the ones Names and help_spec.go's benchNames held before
// the benchmarks registered themselves, so a kind registered
// out of order shows here.
func TestRegistryNames(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"Names", datasets.Names(), []string{
			"spider",
			"bird", "bird-dev", "bird-minidev", "bird-dev-2023-05",
			"archer", "archer-en", "archer-zh", "archer-train", "archer-en-train", "archer-zh-train", "archer-dev", "archer-en-dev", "archer-zh-dev",
			"mini",
			"logiccat", "logiccat-mini500", "logiccat-full-gold",
			"logiccat-sqlite", "logiccat-sqlite-mini500", "logiccat-sqlite-full-gold",
		}},
		{"SpecNames", datasets.SpecNames(), []string{"mini", "spider", "bird", "archer", "logiccat", "logiccat-sqlite"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("got %q; want %q", tt.got, tt.want)
			}
		})
	}
	var entries []string
	for _, e := range datasets.DataEntries() {
		entries = append(entries, e.Name+" in "+e.Dir)
	}
	// cmd/t2sbench/datasets.go's `listed`, in its order, before the
	// benchmarks registered themselves.
	want := []string{"spider in spider", "bird in bird", "bird-dev-2023-05 in bird", "bird-minidev in bird", "archer in archer", "logiccat-sqlite in logiccat"}
	if !slices.Equal(entries, want) {
		t.Errorf("DataEntries: got %q; want %q", entries, want)
	}
}

// TestLookup checks which kind takes a name, the variants Match accepts,
// and what the kind says of it.
func TestLookup(t *testing.T) {
	tests := []struct {
		name   string
		kind   string // Names[0] of the kind; "" for none
		server bool
		prev   string
	}{
		{"spider", "spider", false, ""},
		{"bird", "bird", false, "bird-dev-2023-05"},
		{"bird-dev", "bird", false, "bird-dev-2023-05"},
		{"bird-minidev", "bird", false, "bird"},
		{"bird-dev-2023-05", "bird", false, ""},
		{"archer-zh-train", "archer", false, ""},
		{"archer-fr", "archer", false, ""}, // Match takes it; LoadArcher's parse rejects it
		{"mini", "mini", false, ""},
		{"logiccat", "logiccat", true, ""},
		{"logiccat-mini500", "logiccat", true, ""},
		{"logiccat-mysql-full-gold", "logiccat", true, ""},
		{"logiccat-sqlite", "logiccat", false, ""},
		{"logiccat-sqlite-mini500", "logiccat", false, ""},
		{"birds", "", false, ""},
		{"", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := datasets.Lookup(tt.name)
			got := ""
			if ok {
				got = k.Names[0]
			}
			if got != tt.kind {
				t.Errorf("Lookup(%q) = kind %q; want %q", tt.name, got, tt.kind)
			}
			if s := datasets.NeedsServer(tt.name); s != tt.server {
				t.Errorf("NeedsServer(%q) = %v; want %v", tt.name, s, tt.server)
			}
			if p, _ := datasets.PreviousVersion(tt.name); p != tt.prev {
				t.Errorf("PreviousVersion(%q) = %q; want %q", tt.name, p, tt.prev)
			}
		})
	}
}

// TestOpenUnknown checks the errors of names no kind accepts and of
// variants a kind's loader rejects: the messages Open gave before the
// registry.
func TestOpenUnknown(t *testing.T) {
	tests := []struct{ name, want string }{
		{"birds", `datasets: unknown benchmark "birds" (did you mean "bird"?) (known: spider, bird, bird-dev,`},
		{"archer-fr", `datasets: unknown archer variant "fr" in "archer-fr" (want archer[-en|-zh][-dev|-train])`},
		{"logiccat-big", `datasets: unknown logiccat variant "logiccat-big"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := datasets.Open(tt.name, t.TempDir(), datasets.LoadOptions{})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v; want an error starting %q", err, tt.want)
			}
			if !errors.Is(err, datasets.ErrUnknownBenchmark) {
				t.Errorf("got %v; want one wrapping ErrUnknownBenchmark", err)
			}
		})
	}
}

// TestRegisterPanics checks that Register refuses what would make Open
// ambiguous or fail later.
func TestRegisterPanics(t *testing.T) {
	load := func(string, string, datasets.LoadOptions) (*datasets.Benchmark, error) { return nil, nil }
	tests := []struct {
		name string
		kind datasets.Kind
	}{
		{"no names", datasets.Kind{Load: load}},
		{"no loader", datasets.Kind{Names: []string{"registry-test-a"}}},
		{"duplicate name", datasets.Kind{Names: []string{"registry-test-b", "spider"}, Load: load}},
		{"rule without Equal", datasets.Kind{Names: []string{"registry-test-c"}, Load: load, Rule: &datasets.Rule{Mode: "registry-test"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic; want a panic", tt.kind)
				}
			}()
			datasets.Register(tt.kind)
		})
	}
	if _, ok := datasets.Lookup("registry-test-b"); ok {
		t.Errorf("Lookup(registry-test-b) found a kind; want none: the duplicate's registration must not stick")
	}
}
