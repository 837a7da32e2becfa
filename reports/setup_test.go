package reports

import (
	"slices"
	"strings"
	"testing"
)

func TestSetupListsEveryParameter(t *testing.T) {
	r, _ := buildFixture(t, "openai")
	if r.Setup == nil || len(r.Setup.Tables) != 2 {
		t.Fatalf("setup = %+v; want facts and the models and trials tables", r.Setup)
	}
	models, trials := r.Setup.Tables[0], r.Setup.Tables[1]
	if models.ID != "setup-models" || trials.ID != "setup-trials" {
		t.Fatalf("setup tables %s, %s; want setup-models, setup-trials", models.ID, trials.ID)
	}
	fts := fixtureTrials()
	if len(trials.Rows) != len(fts) {
		t.Fatalf("setup-trials has %d rows; want one per trial (%d)", len(trials.Rows), len(fts))
	}
	for i, ft := range fts {
		row := trials.Rows[i]
		if row[0].Text != ft.label || row[1].Text != ft.runner || row[2].Text != "mini" {
			t.Errorf("row %d = %s %s %s; want %s %s mini", i, row[0].Text, row[1].Text, row[2].Text, ft.label, ft.runner)
		}
		if want := "reason=" + ft.model; row[4].Text != want {
			t.Errorf("%s: roles %q; want %q", ft.label, row[4].Text, want)
		}
		params := strings.Fields(row[5].Text)
		if len(ft.params) == 0 {
			if row[5].Text != "defaults" {
				t.Errorf("%s: parameters %q; want defaults", ft.label, row[5].Text)
			}
			continue
		}
		if len(params) != len(ft.params) {
			t.Errorf("%s: parameters %q; want all %d of %v", ft.label, row[5].Text, len(ft.params), ft.params)
		}
		for k, v := range ft.params {
			if want := k + "=" + fmtParam(v); !slices.Contains(params, want) {
				t.Errorf("%s: parameters %q lack %s", ft.label, row[5].Text, want)
			}
		}
		if row[6].Text != "40" {
			t.Errorf("%s: questions %s; want 40 (fixtureQuestions)", ft.label, row[6].Text)
		}
	}
	// The fixture binds simA and simB at http://127.0.0.1:1/v1.
	if len(models.Rows) != 2 || models.Rows[0][0].Text != "simA" || models.Rows[0][3].Text != "http://127.0.0.1:1/v1" || models.Rows[0][4].Text != "reason" {
		t.Errorf("setup-models rows %v; want simA then simB with their endpoint and role", models.Rows)
	}
	facts := strings.Join(r.Setup.Facts, "\n")
	for _, want := range []string{
		"Code commit of this report: unknown",
		"Code commit of the run: unknown (the run store does not record it).",
		// writeFixtureRun starts every item at 2026-01-02 03:04:05 UTC.
		"Work items ran from 2026-01-02 03:04:05 UTC",
		"trial seeds 0, 40 questions per trial",
		"Timeout and workers unknown (the store holds no spec text)",
		"Benchmark mini, the loader's default data directory, no limit in the spec",
	} {
		if !strings.Contains(facts, want) {
			t.Errorf("setup facts lack %q:\n%s", want, facts)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"https://user:secret@api.example.com/v1", "https://REDACTED@api.example.com/v1"},
		{"https://api.example.com/v1?key=secret", "https://api.example.com/v1?REDACTED"},
		{"not a url", "[REDACTED: not a URL]"},
		{"", ""},
	} {
		if got := redactURL(c.in); got != c.want {
			t.Errorf("redactURL(%q) = %q; want %q", c.in, got, c.want)
		}
		if strings.Contains(redactURL(c.in), "secret") {
			t.Errorf("redactURL(%q) keeps the secret", c.in)
		}
	}
}

func TestCmdLineChanges(t *testing.T) {
	text := "name: x\n\n" + cmdLineMark + "\n#   --models m.yaml\n#   --set workers=2\n"
	got := cmdLineChanges(text)
	want := []string{"`--models m.yaml`", "`--set workers=2`"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cmdLineChanges = %v; want %v", got, want)
	}
	if got := cmdLineChanges("name: x\n"); got != nil {
		t.Errorf("cmdLineChanges without changes = %v; want nil", got)
	}
}

func TestSlugAndUniqueIDs(t *testing.T) {
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{[]string{"ex-by-difficulty", "bird/minidev"}, "ex-by-difficulty-bird-minidev"},
		{[]string{"ablation", "iesr w/o-understanding", "Spider"}, "ablation-iesr-w-o-understanding-spider"},
		{[]string{"ex-over", "alpha", "beta", "iesr alpha=0.5,beta=0"}, "ex-over-alpha-beta-iesr-alpha-0.5-beta-0"},
	} {
		if got := slugID(c.parts...); got != c.want {
			t.Errorf("slugID(%q) = %q; want %q", c.parts, got, c.want)
		}
	}
	ids := []string{"a", "b", "a", "a"}
	uniqueIDs(len(ids), func(i int) *string { return &ids[i] })
	if strings.Join(ids, " ") != "a b a-2 a-3" {
		t.Errorf("uniqueIDs = %v; want [a b a-2 a-3]", ids)
	}
}
