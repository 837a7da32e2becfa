package sim

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// TestParsePrompt reads the schema renderings the runners send (the
// golden files of datasets' renderers) and hand-written DDL: tables and
// columns, quoted or not, matched case-insensitively, with the value
// examples each rendering shows.
func TestParsePrompt(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "datasets", "testdata", "render", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, text string
		tables     []string
		columns    [][2]string // shown
		absent     [][2]string // not shown
		examples   map[string][]string
	}{
		{"DDL (datasets.RenderDDL)", golden("ddl_full.sql"), []string{"stadium", "singer", "concert", "singer_in_concert", "numbers"},
			[][2]string{{"SINGER", "singer_id"}, {"singer", "Misc"}, {"concert", "Year"}, {"`stadium`", "Average"}},
			[][2]string{{"singer", "PRIMARY"}, {"concert", "FOREIGN"}, {"concert", "Stadium"}},
			map[string][]string{"singer.Country": {"Netherlands", "United States", "France"}, "stadium.Name": {"Stark's Park", "Somerset Park", "Bayview Stadium"}}},
		{"DDL selected", golden("ddl_selected.sql"), []string{"singer", "singer_in_concert"},
			[][2]string{{"singer", "Birthday"}}, [][2]string{{"singer", "Country"}},
			map[string][]string{"singer.Name": {"Joe Sharp", "Timbaland"}}},
		{"M-Schema (datasets.RenderMSchema)", golden("mschema_full.txt"), []string{"stadium", "singer", "concert", "singer_in_concert", "numbers"},
			[][2]string{{"singer", "Singer_ID"}, {"Concert", "concert_name"}}, [][2]string{{"singer", "Examples"}}, nil},
		{"one-line DDL, quoted and bracketed", "CREATE TABLE \"Order Items\" (id INTEGER PRIMARY KEY, [unit price] REAL, qty INT, CONSTRAINT c CHECK (qty > 0));\ncreate table if not exists t2(a, b)",
			[]string{"order items", "T2"}, [][2]string{{"ORDER ITEMS", "Unit Price"}, {"Order Items", "qty"}, {"t2", "B"}}, [][2]string{{"Order Items", "CONSTRAINT"}, {"t2", "c"}}, nil},
		{"no schema", "Question: how many singers are there?", nil, nil, [][2]string{{"singer", "name"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parsePromptText(tc.text)
			if len(p.Tables) != len(tc.tables) {
				t.Errorf("got %d tables %v; want %v", len(p.Tables), p.Tables, tc.tables)
			}
			for _, name := range tc.tables {
				if _, ok := p.Table(name); !ok {
					t.Errorf("table %q: got absent; want shown", name)
				}
			}
			for _, c := range tc.columns {
				if !p.HasColumn(c[0], c[1]) {
					t.Errorf("column %s.%s: got absent; want shown", c[0], c[1])
				}
			}
			for _, c := range tc.absent {
				if p.HasColumn(c[0], c[1]) {
					t.Errorf("column %s.%s: got shown; want absent", c[0], c[1])
				}
			}
			for tc, want := range tc.examples {
				tn, cn, _ := strings.Cut(tc, ".")
				tb, _ := p.Table(tn)
				var got []string
				for _, c := range tb.Columns {
					if c.Name == cn {
						got = c.Examples
					}
				}
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("examples of %s: got %q; want %q", tc, got, want)
				}
			}
		})
	}
}

// TestContains: values match as whole phrases, case and white space
// aside; a LIKE pattern by its parts.
func TestContains(t *testing.T) {
	p := parsePromptText("Hint: July 2024 refers to taken_at LIKE '2024-07%'; midday is the 12:00 reading.\nSingers from  FRANCE, is_male = `T`.")
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"France", true}, {"france", true}, {"Fran", false}, {"T", true}, {"t", true}, {"he", false},
		{"2024-07", true}, {"2024-07% 12:00", true}, {"2024-08% 12:00", false}, {"Singers from France", true},
	} {
		if got := p.hasValue(tc.v); got != tc.want {
			t.Errorf("hasValue(%q): got %v; want %v", tc.v, got, tc.want)
		}
	}
}

// TestIntermediateIgnoresGold: two benchmarks ask the same question over
// the same database with different gold SQL; every intermediate request
// kind answers both byte for byte alike (the gold decides final SQL only),
// while a final-SQL request differs (at P = 1, where every final sample is
// the gold). It holds under every backbone profile, on benchmarks named
// after each keyword calibration (mini, spider) and one without its own,
// with a request seed (the keyword items' draws are keyed by it), and at
// P = 0.6, where the question's difficulty is a Beta draw and a wrong
// sample may repeat its modal mistake (both keyed by the question, and
// entering final SQL only): there the kinds that are intermediate at
// P = 1 still answer alike.
func TestIntermediateIgnoresGold(t *testing.T) {
	t.Parallel()
	q := "What is the average age of singers from France?"
	golds := []string{"SELECT avg(age) FROM singer WHERE country = 'France'", "SELECT count(*) FROM concert"}
	names := []string{"mini", "spider", "test"}
	for i, profile := range ProfileNames() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			// answers gives each kind's answers under the two golds at p.
			answers := func(p float64) map[string][2]string {
				var models []*Model
				for _, g := range golds {
					b := concertBenchmark(t, true)
					b.Name = names[i%len(names)]
					b.Examples = []datasets.Example{{ID: "0", DBID: "concert_singer", Question: q, GoldSQL: g}}
					s, err := New(b, Config{P: p, Seed: 8, Profile: profile})
					if err != nil {
						t.Fatal(err)
					}
					models = append(models, s)
				}
				out := map[string][2]string{}
				for _, kind := range Kinds() {
					if strings.HasPrefix(kind, "simtest/") {
						continue
					}
					seed := int64(i)
					req := llm.Request{Messages: prompt(q, ""), Responder: kind, N: 3, Seed: &seed}
					var o [2]string
					for j, s := range models {
						resp, err := s.Complete(context.Background(), req)
						if err != nil {
							t.Fatal(err)
						}
						o[j] = strings.Join(resp.Choices, "\n---\n")
					}
					out[kind] = o
				}
				return out
			}
			final := map[string]bool{}
			for kind, out := range answers(1) {
				final[kind] = strings.Contains(out[0], golds[0])
				if final[kind] == (out[0] == out[1]) {
					t.Errorf("p 1, kind %s: answers equal %v, final SQL %v; want equal answers exactly when the kind is not final SQL:\n%s\n===\n%s", kind, out[0] == out[1], final[kind], out[0], out[1])
				}
			}
			for kind, out := range answers(0.6) {
				if !final[kind] && out[0] != out[1] {
					t.Errorf("p 0.6, kind %s (intermediate): answers differ between the golds; want them equal:\n%s\n===\n%s", kind, out[0], out[1])
				}
			}
		})
	}
}

// FuzzParsePrompt: any text parses without panicking, and every table it
// reports is found again by name.
func FuzzParsePrompt(f *testing.F) {
	f.Add("CREATE TABLE `a` (\n\t`x` INT, -- Value Examples: `1`\n\tPRIMARY KEY (`x`)\n);")
	f.Add("# Table: t\n[\n(c:TEXT, Examples: [a, b])\n]")
	f.Add("CREATE TABLE \"q\"\"x\" ([a] -- c\n, 'b' ) ; CREATE TABLE (")
	f.Fuzz(func(t *testing.T, s string) {
		p := parsePromptText(s)
		for _, tb := range p.Tables {
			if _, ok := p.Table(tb.Name); !ok {
				t.Errorf("table %q listed but not found", tb.Name)
			}
		}
		p.hasValue(s)
	})
}

// TestParseTableList checks the compact schema of SteinerSQL's
// decomposition prompt ("Database tables:" then "- name(col, ...)"), which
// the simulator once did not read, so that every simulated decomposition
// named no terminal table; and that a bulleted call elsewhere is no table.
func TestParseTableList(t *testing.T) {
	text := "Database tables:\n- department(dept_id, name, budget)\n- `student`(student_id, major_dept)\n\n" +
		"Question: How many students?\n\nFunctions:\n- COUNT(student_id)\n"
	p := parsePromptText(text)
	var got []string
	for _, tb := range p.Tables {
		got = append(got, tb.Name)
	}
	if want := []string{"department", "student"}; !slices.Equal(got, want) {
		t.Fatalf("tables %v; want %v", got, want)
	}
	if !p.HasColumn("student", "major_dept") || p.HasColumn("student", "budget") {
		t.Errorf("columns of student: %+v", p.Tables[1].Columns)
	}
}

// TestRelevanceJoinKey checks that a column repeating the name of a table
// the question names (enrollment.student_id for "students") does not make
// its own table relevant.
func TestRelevanceJoinKey(t *testing.T) {
	p := parsePromptText("Database tables:\n- student(student_id, name)\n- enrollment(student_id, course_id, grade)\n- course(course_id, title)\n")
	for _, st := range relevance(p, "How many students are there?") {
		if st.name != "student" && st.score > 0 {
			t.Errorf("table %s scored %d (columns %v); want 0", st.name, st.score, st.cols)
		}
	}
	sc := relevance(p, "What is the average grade of the students?")
	if sc[0].name != "student" || sc[1].name != "enrollment" || sc[1].score == 0 {
		t.Errorf("relevance for grades: %+v; want student first, then enrollment (grade)", sc)
	}
}
