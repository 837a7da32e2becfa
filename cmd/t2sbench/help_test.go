package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
)

// TestHelpSpecCoversEveryKey: every key spec.Spec decodes (its yaml tags)
// is documented by `help spec`, and every documented key exists.
func TestHelpSpecCoversEveryKey(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(&out, &out, []string{"help", "spec"}); err != nil {
		t.Fatalf("help spec: %v", err)
	}
	documented := map[string]bool{}
	for _, k := range specDocs {
		if documented[k.path] {
			t.Errorf("help spec documents %s twice", k.path)
		}
		documented[k.path] = true
		if k.def == "" || k.example == "" || k.doc == "" {
			t.Errorf("help spec: %s: default %q, example %q, text %q; want all three", k.path, k.def, k.example, k.doc)
		}
	}
	paths := specPaths()
	if len(paths) < 40 {
		t.Fatalf("specPaths found %d keys; want the whole spec (over 40)", len(paths))
	}
	for _, p := range paths {
		if !documented[p] {
			t.Errorf("spec key %s is not in help spec (add it to specDocs)", p)
		}
		if !strings.Contains(out.String(), "  "+p+"\n") {
			t.Errorf("help spec output lacks key %s", p)
		}
		delete(documented, p)
	}
	for p := range documented {
		t.Errorf("help spec documents %s, which the spec does not have", p)
	}
}

var knownRe = regexp.MustCompile(`params\.zz_not_a_parameter: unknown parameter \(known: ([^)]*)\)`)

// TestHelpRunnersListsEveryParameter builds each runner with an unknown
// parameter: its error lists every key the runner reads, and each must be
// in that runner's section of `help runners`, with what runners.Describe
// recorded for it.
func TestHelpRunnersListsEveryParameter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(&out, &out, []string{"help", "runners"}); err != nil {
		t.Fatalf("help runners: %v", err)
	}
	sections := map[string]string{}
	for _, sec := range strings.Split(out.String(), "\n\n")[1:] {
		name, _, _ := strings.Cut(sec, ":")
		sections[name] = sec
	}
	// The runners the CLI links (runners.go): every registered runner but
	// those this test binary registers (accounting_test.go), so that a
	// runner linked later is checked without being named here; the seven
	// below must be among them.
	testOnly := map[string]bool{"fail-tenth": true}
	var linked []string
	for _, name := range runners.Names() {
		if !testOnly[name] {
			linked = append(linked, name)
		}
	}
	for _, name := range []string{"alphasql", "cot", "direct", "iesr", "react-dsl", "sc", "steinersql"} {
		if !slices.Contains(linked, name) {
			t.Errorf("runners.Names() = %v lacks %s; want every runner cmd/t2sbench/runners.go links", runners.Names(), name)
		}
	}
	for _, name := range linked {
		sec, ok := sections[name]
		if !ok {
			t.Errorf("help runners has no section for %s", name)
			continue
		}
		if info, ok := runners.Lookup(name); !ok || info.Paper == "" || len(info.Roles) == 0 || info.Ablations == "" {
			t.Errorf("runner %s registered no paper line, roles or ablation switches (runners.Info)", name)
		}
		_, err := runners.New(name, runners.Params{"zz_not_a_parameter": 1})
		if err == nil {
			t.Errorf("%s accepted an unknown parameter", name)
			continue
		}
		m := knownRe.FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s: error %q does not list the known parameters", name, err)
			continue
		}
		known := strings.Split(m[1], ", ")
		described, err := runners.Describe(name)
		if err != nil {
			t.Errorf("runners.Describe(%s): %v", name, err)
		}
		if len(described) != len(known) {
			t.Errorf("%s: Describe recorded %d parameters, the parser knows %d (%v)", name, len(described), len(known), known)
		}
		info, _ := runners.Lookup(name)
		for _, k := range info.Varied {
			if _, ok := runners.Defaults(name)[k]; !ok {
				t.Errorf("%s: varied parameter %s is not read with a numeric default (runners.Info.Varied)", name, k)
			}
		}
		for _, k := range known {
			if !regexp.MustCompile(`\n    ` + regexp.QuoteMeta(k) + ` +\S`).MatchString(sec) {
				t.Errorf("help runners, %s: parameter %s is missing", name, k)
			}
		}
		if strings.Contains(sec, "embedding_role ") != strings.Contains(sec, "/v1/embeddings") {
			t.Errorf("help runners, %s: embedding_role listed without saying what it needs (or the reverse)", name)
		}
	}
	// Rows that must read as the parsers have them (defaults and ranges
	// from runners/baseline/baseline.go and runners/iesr/iesr.go).
	for _, want := range []string{
		"    k                          integer, default 8; [1, 128]\n",
		"    keep_rule                  string, default mid; one of loose, mid, strict\n",
		"    disc_cuts                  list of numbers, default [0.2, 0.3, 0.4, 0.5]; each in (0, 1)\n",
		"    discriminator: completes masked trajectories",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help runners lacks %q", want)
		}
	}
}

func TestHelpTopics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"t2sbench help spec", "t2sbench help runners", "version"}},
		{[]string{"help", "datasets"}, []string{"datasets list [--data DIR]", "-allow-absent", "-ro-password-env", "-ro-user", "-mysql-password-env"}},
		{[]string{"help", "eval"}, []string{"-pred-column", "-allow-partial", "-mysql-password-env"}},
		{[]string{"version"}, []string{"github.com/t2sbench/t2sbench", "commit ", "SQLite 3."}},
	} {
		var out bytes.Buffer
		if err := run(&out, &out, tc.args); exitCode(err) != exitOK {
			t.Errorf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q; got:\n%s", tc.args, w, out.String())
			}
		}
	}
	var out bytes.Buffer
	err := run(&out, &out, []string{"help", "nosuch"})
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "topics: spec, runners, errors") {
		t.Errorf("help nosuch: %v (exit %d); want a usage error naming the topics", err, exitCode(err))
	}
}

// TestVersionCommit: without VCS stamping (GOFLAGS=-buildvcs=false, as
// here), the commit the Makefile passes is reported; with neither, the
// output says how to get one.
func TestVersionCommit(t *testing.T) {
	old := buildCommit
	defer func() { buildCommit = old }()
	v, err := readVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.SQLite, "3.") {
		t.Errorf("SQLite version %q; want 3.x (go-sqlite3's bundled SQLite)", v.SQLite)
	}
	if strings.HasPrefix(v.Commit, "(unknown") {
		buildCommit = "0123abcd"
		if v, _ = readVersion(context.Background()); v.Commit != "0123abcd" {
			t.Errorf("commit %q; want the -ldflags one, 0123abcd", v.Commit)
		}
	}
}
