package steinersql

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
)

// TestAttributeCheck: level 2's attribute check fires on hand-made
// queries whose SELECT, WHERE or HAVING attribute the question does not
// name, and not on the matching query; the evidence and the
// decomposition's attributes count as named.
func TestAttributeCheck(t *testing.T) {
	v, _ := newValidator(t)
	names := "What are the names of students enrolled in 2021?"
	rich := "Which instructors earn more than 90000?"
	tests := []struct {
		name    string
		sql     string
		q       Question
		dec     *Decomposition
		flagged string // "" when the check passes
	}{
		{"match", "SELECT name FROM student WHERE enrol_year = 2021", Question{Text: names}, nil, ""},
		{"SELECT mismatch", "SELECT birth_date FROM student WHERE enrol_year = 2021", Question{Text: names}, nil, "student.birth_date (SELECT)"},
		{"WHERE mismatch", "SELECT name FROM instructor WHERE hire_date > '2015-01-01'", Question{Text: rich}, nil, "instructor.hire_date (WHERE)"},
		{"WHERE value the question states", "SELECT COUNT(*) FROM student s JOIN department d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'",
			Question{Text: "How many students major in Computer Science?"}, nil, ""},
		{"BETWEEN with the question's years, verb form", "SELECT name FROM instructor WHERE hire_date BETWEEN '2010-01-01' AND '2015-12-31'",
			Question{Text: "Which instructors were hired between 2010 and 2015?"}, nil, ""},
		{"HAVING match", "SELECT d.name FROM department d JOIN instructor i ON i.dept_id = d.dept_id GROUP BY d.dept_id HAVING COUNT(*) > 2",
			Question{Text: "Which departments employ more than 2 instructors?"}, nil, ""},
		{"HAVING mismatch", "SELECT d.name FROM department d JOIN instructor i ON i.dept_id = d.dept_id GROUP BY d.dept_id HAVING AVG(i.salary) > 80000",
			Question{Text: "Which departments employ more than 2 instructors?"}, nil, "instructor.salary (HAVING)"},
		{"evidence names the attribute", "SELECT title FROM course WHERE credits >= 6",
			Question{Text: "Which courses are large?", Evidence: "large refers to credits >= 6"}, nil, ""},
		{"without the evidence", "SELECT title FROM course WHERE credits >= 6", Question{Text: "Which courses are large?"}, nil, "course.credits (WHERE)"},
		{"aggregate without decomposition", "SELECT MIN(birth_date) FROM student", Question{Text: "When was the oldest student born?"}, nil, "student.birth_date (SELECT)"},
		{"aggregate of the decomposition's operation", "SELECT MIN(birth_date) FROM student", Question{Text: "When was the oldest student born?"},
			&Decomposition{Operations: []Operation{{Function: "MIN", Target: "student.enrol_year"}}}, ""},
		{"attribute a dependency requires", "SELECT birth_date FROM student WHERE enrol_year = 2021", Question{Text: names},
			&Decomposition{Dependencies: Dependencies{{Entity: "names", Requires: []string{"student.birth_date"}}}}, ""},
		{"keys and descriptors map", "SELECT s.student_id, s.name FROM student s JOIN enrollment e ON e.student_id = s.student_id WHERE e.grade >= 90",
			Question{Text: "Which students have a grade of at least 90?"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := v.attributes(tt.sql, tt.q, tt.dec)
			switch {
			case tt.flagged == "" && len(vs) > 0:
				t.Errorf("got %v; want no violation", vs)
			case tt.flagged != "" && (len(vs) != 1 || vs[0].Check != CheckAttributes || vs[0].Level != 2 || !strings.Contains(vs[0].Detail, tt.flagged)):
				t.Errorf("got %v; want one level-2 %s naming %s", vs, CheckAttributes, tt.flagged)
			}
		})
	}
	// Validate reports it at level 2 only when the switch is on.
	sc := &Scaffold{Terminals: []string{"student"}}
	bad := "SELECT birth_date FROM student WHERE enrol_year = 2021"
	if rep := v.Validate(context.Background(), bad, Question{Text: names}, sc, nil, 3); !rep.Levels()[2] {
		t.Errorf("Attributes on: got %+v; want level 2 to fail", rep)
	}
	off := *v
	off.Attributes = false
	if rep := off.Validate(context.Background(), bad, Question{Text: names}, sc, nil, 3); !rep.Pass() {
		t.Errorf("Attributes off: got %+v; want a pass", rep)
	}
}

// TestAttributeCheckSpiderStyle: the forms of Spider's schemas and gold
// queries the mapping must read (double-quoted string literals, which
// SQLite reads as strings; abbreviated and camelCase column names; a
// question word that is a prefix of the column's), each beside a twin
// whose attribute the question does not name.
func TestAttributeCheckSpiderStyle(t *testing.T) {
	pk := func(n string) datasets.Column { return datasets.Column{Name: n, Type: "INTEGER", Primary: true} }
	col := func(n string) datasets.Column { return datasets.Column{Name: n, Type: "TEXT"} }
	v := &Validator{Attributes: true, Schema: &datasets.Schema{Tables: []datasets.Table{
		{Name: "airlines", Columns: []datasets.Column{pk("uid"), col("Airline"), col("Abbreviation"), col("Country")}},
		{Name: "Student", Columns: []datasets.Column{pk("StuID"), col("Fname"), col("LName"), col("Age")}},
		{Name: "Pets", Columns: []datasets.Column{pk("PetID"), col("PetType"), col("weight"), col("pet_age")}},
	}}}
	abbr := Question{Text: "List all airline abbreviations in USA."}
	names := Question{Text: "What is the first name of each student and the type of their pet?"}
	weigh := Question{Text: "How much does the youngest dog weigh?"}
	tests := []struct {
		name, sql string
		q         Question
		flagged   string
	}{
		{"double-quoted literal the question states", `SELECT Abbreviation FROM airlines WHERE Country = "USA"`, abbr, ""},
		{"double-quoted literal it does not", `SELECT Abbreviation FROM airlines WHERE Country = "France"`, abbr, "airlines.Country (WHERE)"},
		{"abbreviation and camelCase", "SELECT Fname, PetType FROM Student JOIN Pets", names, ""},
		{"abbreviation of a word not asked", "SELECT LName FROM Student", names, "Student.LName (SELECT)"},
		{"question word a prefix of the column's", "SELECT weight FROM Pets", weigh, ""},
		{"column the question does not name", "SELECT pet_age FROM Pets", weigh, "Pets.pet_age (SELECT)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := v.attributes(tt.sql, tt.q, nil)
			switch {
			case tt.flagged == "" && len(vs) > 0:
				t.Errorf("got %v; want no violation", vs)
			case tt.flagged != "" && (len(vs) != 1 || !strings.Contains(vs[0].Detail, tt.flagged)):
				t.Errorf("got %v; want %s flagged", vs, tt.flagged)
			}
		})
	}
}

// TestAttributeCheckGoldShared measures the attribute check's false alarms
// on real gold queries (with their evidence, no decomposition): every
// third Spider dev question up to 300, and the BIRD dev questions whose
// database the shared data holds (every third). Measured when the check
// was written: Spider 8 of 300 (2.7%: synonyms such as "nation" for
// Country, and golds selecting a column the question does not ask for),
// BIRD 0 of 144. The bound is 5% for each. Skips without the shared data.
func TestAttributeCheckGoldShared(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join("..", "..", "..", "shared", "datasets")
	for _, name := range []string{"spider", "bird"} {
		t.Run(name, func(t *testing.T) {
			var b *datasets.Benchmark
			var err error
			if name == "spider" {
				b, err = datasets.LoadSpider(filepath.Join(root, "spider"), datasets.LoadOptions{CacheDir: t.TempDir()})
			} else {
				b, err = datasets.LoadBIRD(filepath.Join(root, "bird"), "dev", datasets.LoadOptions{CacheDir: t.TempDir()})
			}
			if err != nil {
				t.Skipf("shared %s data: %v", name, err)
			}
			t.Cleanup(func() { b.Engine.Close() })
			vals := map[string]*Validator{}
			n, fired := 0, 0
			for i, ex := range b.Examples {
				if i%3 != 0 || n >= 300 {
					continue
				}
				v, ok := vals[ex.DBID]
				if !ok {
					db, err := b.Engine.Open(ctx, ex.DBID)
					if err == nil {
						var s *datasets.Schema
						if s, err = db.Schema(ctx); err == nil {
							v = &Validator{DB: db, Schema: s, Attributes: true}
						}
					}
					vals[ex.DBID] = v // nil: database absent from the shared data
				}
				if v == nil {
					continue
				}
				n++
				if vs := v.attributes(ex.GoldSQL, Question{Text: ex.Question, Evidence: ex.Evidence}, nil); len(vs) > 0 {
					fired++
					t.Logf("fires on gold: %s | %s", ex.Question, vs[0].Detail)
				}
			}
			if n == 0 {
				t.Skipf("no %s database in the shared data", name)
			}
			t.Logf("%s: attribute check fires on %d of %d gold queries", name, fired, n)
			if float64(fired) > 0.05*float64(n) {
				t.Errorf("%s: fires on %d of %d gold queries; want at most 5%%", name, fired, n)
			}
		})
	}
}

// TestAttributeCheckGoldMini runs the attribute check on the gold query of
// every question of the bundled mini benchmark, with the question and its
// evidence and no decomposition (no operation or attribute named): a gold
// query answers its question, so every firing is a false alarm of the
// lexical mapping. Measured when the check was written: 7 of 42, 6 of
// them a value inside SUM/AVG/MIN/MAX that the decomposition's operation
// would name (reading.value for "the mean temperature"), one a synonym
// (unit_price for "what does it cost"); the bound keeps it from growing
// unnoticed.
func TestAttributeCheckGoldMini(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mini", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct {
		DB       string `json:"db_id"`
		Question string `json:"question"`
		Evidence string `json:"evidence"`
		SQL      string `json:"SQL"`
	}
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	vals := map[string]*Validator{}
	fired := 0
	for _, q := range qs {
		v := vals[q.DB]
		if v == nil {
			db := runkit.MiniDB(t, q.DB)
			s, err := db.Schema(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			v = &Validator{DB: db, Schema: s, Attributes: true}
			vals[q.DB] = v
		}
		if vs := v.attributes(q.SQL, Question{Text: q.Question, Evidence: q.Evidence}, nil); len(vs) > 0 {
			fired++
			t.Logf("fires on gold: %s | %s", q.Question, vs[0].Detail)
		}
	}
	t.Logf("attribute check fires on %d of %d gold queries", fired, len(qs))
	if len(qs) != 42 || fired > 7 {
		t.Errorf("fires on %d of %d gold queries; want at most 7 of 42", fired, len(qs))
	}
}
