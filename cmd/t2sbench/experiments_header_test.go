package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
)

// headerRow is one row of a spec header's paper-vs-spec table:
//
//	# | setting | paper | this spec | paper location |
type headerRow struct {
	line                         int
	setting, paper, spec, source string
}

// specHeader returns the leading comment block of a spec file and the rows
// of its paper-vs-spec table (the header and separator rows left out).
func specHeader(data []byte) (comments []string, rows []headerRow) {
	for i, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		comments = append(comments, l)
		body, ok := strings.CutPrefix(l, "# |")
		if !ok {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(body), "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if len(cells) != 4 {
			rows = append(rows, headerRow{line: i + 1, setting: "!" + body})
			continue
		}
		if cells[0] == "setting" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, headerRow{line: i + 1, setting: cells[0], paper: cells[1], spec: cells[2], source: cells[3]})
	}
	return comments, rows
}

var (
	// commentModel matches a model definition written in a comment, as a
	// header shows how to bind a model: "#   NAME: {backend: openai, ...}".
	commentModel = regexp.MustCompile(`^\s*#\s+([A-Za-z0-9_.-]+):\s*\{\s*backend:`)
	backticked   = regexp.MustCompile("`([^`]+)`")
	integers     = regexp.MustCompile(`\d[\d,]*`)
	rolloutRow   = regexp.MustCompile(`^([a-z][a-z-]*) n_rollout$`)
)

// cellInts reads the whole numbers of a table cell ("8, 16, 24" or "24
// (cut)"): the numbers before the first parenthesis.
func cellInts(cell string) []int {
	if i := strings.Index(cell, "("); i >= 0 {
		cell = cell[:i]
	}
	var out []int
	for _, m := range integers.FindAllString(cell, -1) {
		n, err := strconv.Atoi(strings.ReplaceAll(m, ",", ""))
		if err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return slices.Compact(out)
}

// planValues returns the sorted distinct values of the runner's int
// parameter key over the plan's trials, the runner's registered default
// where a trial leaves it unset.
func planValues(p *spec.Plan, runner, key string) []int {
	var out []int
	for _, t := range p.Trials {
		if t.Runner != runner {
			continue
		}
		v, ok := runners.Number(t.Params[key])
		if !ok {
			v, ok = runners.Defaults(runner)[key]
		}
		if ok {
			out = append(out, int(v))
		}
	}
	sort.Ints(out)
	return slices.Compact(out)
}

// checkSpecHeader returns what is wrong with the header of the spec file
// data, loaded as spec: a header without a paper-vs-spec table, a row
// without its four cells, a model named in a models row or in a commented
// model definition that the spec does not define, and a table whose
// n_rollout or limit row disagrees with the spec's values.
func checkSpecHeader(data []byte, sp *spec.Spec) ([]string, error) {
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, args...)))
	}
	_, rows := specHeader(data)
	if len(rows) < 3 {
		bad(1, "the header has %d rows of a paper-vs-spec table (# | setting | paper | this spec | paper location |); want at least 3", len(rows))
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		return nil, err
	}
	models := make([]string, 0, len(sp.Models))
	for m := range sp.Models {
		models = append(models, m)
	}
	sort.Strings(models)
	for i, l := range strings.Split(string(data), "\n") {
		m := commentModel.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if _, ok := sp.Models[m[1]]; !ok {
			bad(i+1, "a comment binds model %q, which the spec does not define (its models: %s)", m[1], strings.Join(models, ", "))
		}
	}
	for _, r := range rows {
		if strings.HasPrefix(r.setting, "!") {
			bad(r.line, "a table row without 4 cells: %q", r.setting[1:])
			continue
		}
		if r.paper == "" || r.spec == "" || r.source == "" {
			bad(r.line, "row %q has an empty cell", r.setting)
		}
		if strings.Contains(r.setting, "model") || strings.Contains(r.setting, "backbone") {
			for _, m := range backticked.FindAllStringSubmatch(r.spec, -1) {
				if _, ok := sp.Models[m[1]]; !ok {
					bad(r.line, "row %q names model %q, which the spec does not define (its models: %s)", r.setting, m[1], strings.Join(models, ", "))
				}
			}
		}
		if m := rolloutRow.FindStringSubmatch(r.setting); m != nil {
			got := planValues(plan, m[1], "n_rollout")
			if len(got) == 0 {
				bad(r.line, "row %q: the spec has no %s trial", r.setting, m[1])
			} else if want := cellInts(r.spec); !slices.Equal(got, want) {
				bad(r.line, "row %q says %v; the spec's %s trials run n_rollout %v", r.setting, want, m[1], got)
			}
		}
		if r.setting == "limit" {
			var got []int
			for _, b := range sp.Benchmarks {
				got = append(got, b.Limit)
			}
			sort.Ints(got)
			got = slices.Compact(got)
			want := []int{0}
			if !strings.HasPrefix(r.spec, "none") {
				want = cellInts(r.spec)
			}
			if !slices.Equal(got, want) && !(len(want) == 1 && slices.Contains(got, want[0])) {
				bad(r.line, "row limit says %v; the spec's benchmarks have limit %v (0: none)", want, got)
			}
		}
	}
	return problems, nil
}

// TestExperimentHeaders checks every spec's header against the spec: a
// paper-vs-spec table, models named in it or in a commented binding that
// the spec defines, and the n_rollout and limit rows equal to the spec's
// values.
func TestExperimentHeaders(t *testing.T) {
	t.Parallel()
	for _, f := range experimentSpecs(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := spec.LoadSpec(f)
			if err != nil {
				t.Fatal(err)
			}
			problems, err := checkSpecHeader(data, sp)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("%s: %s", f, p)
			}
		})
	}
}

// TestCheckSpecHeader: the header check catches a commented binding of a
// model the spec lacks, a models row naming one, and n_rollout and limit
// rows that disagree with the spec.
func TestCheckSpecHeader(t *testing.T) {
	t.Parallel()
	const body = `name: h
benchmarks: [{name: mini, limit: 20}]
models:
  sim-a: {backend: sim}
roles: {reason: sim-a}
runners:
  - name: iesr
    params: {n_rollout: 32}
  - name: alphasql
`
	const table = "# | setting | paper | this spec | paper location |\n# | --- | --- | --- | --- |\n"
	tests := []struct {
		name, header string
		want         string // a problem's substring; "" for none
	}{
		{"agrees", table + "# | reason model | M | `sim-a` | §1 |\n# | iesr n_rollout | 32 | 32 | §4 |\n# | alphasql n_rollout | 24 | 24 (default) | T |\n# | limit | 500 | 20 | F |\n", ""},
		{"too few rows", table + "# | reason model | M | `sim-a` | §1 |\n", "want at least 3"},
		{"commented binding", table + "# | a | b | c | d |\n# | a | b | c | d |\n# | a | b | c | d |\n#   qwen-7b: {backend: openai, model: Q}\n", `model "qwen-7b", which the spec does not define`},
		{"models row", table + "# | reason models | M | `sim-a`, `sim-b` | §1 |\n# | a | b | c | d |\n# | a | b | c | d |\n", `names model "sim-b"`},
		{"rollouts", table + "# | iesr n_rollout | 32 | 4 | §4 |\n# | a | b | c | d |\n# | a | b | c | d |\n", "run n_rollout [32]"},
		{"default rollouts", table + "# | alphasql n_rollout | 24 | 8 | §4 |\n# | a | b | c | d |\n# | a | b | c | d |\n", "run n_rollout [24]"},
		{"limit", table + "# | limit | all | none | §4 |\n# | a | b | c | d |\n# | a | b | c | d |\n", "limit [20]"},
		{"three cells", table + "# | a | b | c |\n# | a | b | c | d |\n# | a | b | c | d |\n", "without 4 cells"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.header + body)
			sp, err := spec.ParseSpec(data, "h.yaml")
			if err != nil {
				t.Fatal(err)
			}
			problems, err := checkSpecHeader(data, sp)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "\n")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}
