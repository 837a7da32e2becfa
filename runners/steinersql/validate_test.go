package steinersql

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
)

func newValidator(t *testing.T) (*Validator, *SchemaGraph) {
	t.Helper()
	ctx := context.Background()
	db := runkit.MiniDB(t, "university")
	s, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(ctx, db, s)
	if err != nil {
		t.Fatal(err)
	}
	g, err := BuildGraph(ctx, s, NewStatsCache("").Func(db, 1000), GraphOptions{Weights: Weights{0.4, 0.4, 0.2}, Tau: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	g.W.Closure()
	return v, g
}

// TestReadSetBytecode: the tables and columns come from SQLite's EXPLAIN
// bytecode, including a table read only through its covering index
// (enrollment via sqlite_autoindex_enrollment_1) and an INTEGER PRIMARY KEY
// read as the rowid.
func TestReadSetBytecode(t *testing.T) {
	v, _ := newValidator(t)
	ctx := context.Background()
	tests := []struct {
		sql           string
		tables, cols  []string
		notCols       []string
		wantLexicalOK bool
	}{
		{
			sql:    "SELECT s.name FROM student AS s JOIN enrollment AS e ON s.student_id = e.student_id GROUP BY s.student_id, s.name HAVING COUNT(DISTINCT e.course_id) >= 4",
			tables: []string{"enrollment", "student"},
			cols:   []string{"enrollment.course_id", "enrollment.student_id", "student.name", "student.student_id"},
		},
		{
			// Aliases that look like other tables do not fool it.
			sql:     `SELECT "course".title FROM course AS "course" WHERE credits > 3`,
			tables:  []string{"course"},
			cols:    []string{"course.credits", "course.title"},
			notCols: []string{"course.dept_id"},
		},
		{
			// A view-free subquery: department is read inside IN (...).
			sql:    "SELECT title FROM course WHERE dept_id IN (SELECT dept_id FROM department WHERE budget > 1000000)",
			tables: []string{"course", "department"},
			cols:   []string{"course.dept_id", "course.title", "department.budget", "department.dept_id"},
		},
	}
	for _, tt := range tests {
		rs, err := v.ReadSet(ctx, tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if rs.Method != "bytecode" || !slices.Equal(rs.Tables, tt.tables) {
			t.Errorf("%s: tables %v (%s); want %v", tt.sql, rs.Tables, rs.Method, tt.tables)
		}
		for _, c := range tt.cols {
			if !slices.Contains(rs.Columns, c) {
				t.Errorf("%s: columns %v; want %s among them", tt.sql, rs.Columns, c)
			}
		}
		for _, c := range tt.notCols {
			if slices.Contains(rs.Columns, c) {
				t.Errorf("%s: columns %v; %s is not read", tt.sql, rs.Columns, c)
			}
		}
	}
}

func scaffoldFor(t *testing.T, g *SchemaGraph, terms ...string) *Scaffold {
	t.Helper()
	r := &Runner{alg: AlgSteiner, navigation: true, graphModule: true}
	return r.navigate(g, nil, terms)
}

// TestValidationLevels: queries built to trip each check do, and the
// reason names the check; clean queries pass.
func TestValidationLevels(t *testing.T) {
	v, g := newValidator(t)
	ctx := context.Background()
	se := scaffoldFor(t, g, "enrollment", "student")
	sc := scaffoldFor(t, g, "course", "student") // course - enrollment - student
	if !slices.Equal(sc.Tables, []string{"course", "enrollment", "student"}) {
		t.Fatalf("scaffold course/student: got %v; want through enrollment", sc.Tables)
	}
	avg := &Decomposition{Operations: []Operation{{Function: "AVG", Target: "enrollment.grade"}}}
	tests := []struct {
		name     string
		sql      string
		question string
		sc       *Scaffold
		dec      *Decomposition
		level    int    // 0: passes
		check    string // expected check name (substring of the reason)
	}{
		{"L1 unknown column", "SELECT nme FROM student", "", se, nil, 1, "no such column"},
		{"L1 syntax", "SELEC name FROM student", "", se, nil, 1, "syntax error"},
		{"L2 terminal missing", "SELECT name FROM student", "", se, nil, 2, "terminal-missing"},
		{"L2 join skips the scaffold", "SELECT s.name FROM student s JOIN course c ON c.instructor_id = s.student_id WHERE c.course_id IN (SELECT course_id FROM course)", "", &Scaffold{Tables: sc.Tables, Edges: sc.Edges, Terminals: []string{"course", "student"}, Navigated: true}, nil, 2, "join-off-scaffold"},
		{"L2 join on the wrong key", "SELECT s.name FROM student s JOIN enrollment e ON s.student_id = e.course_id", "", se, nil, 2, "scaffold key"},
		{"L3 ungrouped column", "SELECT s.name, e.semester, COUNT(*) FROM student s JOIN enrollment e ON e.student_id = s.student_id GROUP BY s.student_id", "", se, nil, 3, "ungrouped-column"},
		{"L3 bare column with aggregate", "SELECT s.name, MAX(e.grade) FROM student s JOIN enrollment e ON e.student_id = s.student_id", "", se, nil, 3, "ungrouped-column"},
		{"L3 aggregate mismatch", "SELECT SUM(e.grade) FROM student s JOIN enrollment e ON e.student_id = s.student_id", "", se, avg, 3, "aggregate-mismatch"},
		{"L3 numeric constraint", "SELECT s.name FROM student s JOIN enrollment e ON e.student_id = s.student_id WHERE e.grade >= 50", "Who has a grade of at least 60?", se, nil, 3, "numeric-constraint"},
		{"pass: grouped by key (functional dependency)", "SELECT s.name, COUNT(*) FROM student s JOIN enrollment e ON e.student_id = s.student_id GROUP BY s.student_id", "How many enrollments has each student?", se, nil, 0, ""},
		{"pass: AVG as SUM/COUNT", "SELECT SUM(e.grade) / COUNT(e.grade) FROM student s JOIN enrollment e ON e.student_id = s.student_id", "", se, avg, 0, ""},
		{"pass: gold of a mini question", "SELECT SUM(c.credits) FROM enrollment AS e JOIN course AS c ON e.course_id = c.course_id JOIN student AS s ON s.student_id = e.student_id WHERE s.name = 'Alice Moreau' AND e.grade >= 60",
			"How many total credits has Alice Moreau earned from courses she passed with a grade of at least 60?", sc,
			&Decomposition{Operations: []Operation{{Function: "SUM", Target: "course.credits"}}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := v.Validate(ctx, tt.sql, Question{Text: tt.question}, tt.sc, tt.dec, 3)
			lv := rep.Levels()
			if tt.level == 0 {
				if !rep.Pass() {
					t.Fatalf("got %+v; want a pass", rep)
				}
				return
			}
			if !lv[tt.level] {
				t.Fatalf("got %+v; want level %d to fail", rep, tt.level)
			}
			text := rep.ExecErr
			for _, x := range rep.Violations {
				text += " | " + x.Check + ": " + x.Detail
			}
			if !strings.Contains(text, tt.check) {
				t.Errorf("reasons %q; want %q", text, tt.check)
			}
		})
	}
}

func TestQuestionNumbers(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"How many units were sold in 2023 with at least 60 points?", []string{"2023", "60"}},
		{"What is the total revenue of order 1013?", []string{"1013"}},
		{"collector bq004 at 3,000 meters and -10 C", []string{"3000", "10"}},
		{"Espresso Beans 1kg", nil},
		{"north of 50.5 degrees.", []string{"50.5"}},
		{"after a 20% raise, and a 15 percent bonus", []string{"20", "15"}},
		{"between 20, 30 and 40", []string{"20", "30", "40"}},
	}
	for _, tt := range tests {
		if got := QuestionNumbers(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("QuestionNumbers(%q) = %v; want %v", tt.q, got, tt.want)
		}
	}
}

// TestNumericConstraintForms: level 3's number check accepts the forms a
// correct query writes a question's number in (a percentage as a fraction
// or a factor, another spelling of the same value) and still flags a
// number the query leaves out. The percentages are the question's: a 20%
// raise is the factor 1.2 (100% + 20%), a 20% cut the factor 0.8.
func TestNumericConstraintForms(t *testing.T) {
	v, _ := newValidator(t)
	raise := "Which instructors would earn more than 100000 after a 20% raise?"
	cut := "Which instructors would still earn more than 60000 after a 20 percent pay cut?"
	tests := []struct {
		name, sql, question string
		flagged             string // "" when the check passes
	}{
		{"factor 1.2", "SELECT name FROM instructor WHERE salary * 1.2 > 100000", raise, ""},
		{"1 + fraction", "SELECT name FROM instructor WHERE salary * (1 + 0.2) > 100000", raise, ""},
		{"fraction 0.20", "SELECT name FROM instructor WHERE salary + salary * 0.20 > 100000", raise, ""},
		{"120 / 100", "SELECT name FROM instructor WHERE salary * 120 / 100 > 100000", raise, ""},
		{"20 / 100", "SELECT name FROM instructor WHERE salary * (100 + 20) / 100.0 > 100000", raise, ""},
		{"cut factor 0.8", "SELECT name FROM instructor WHERE salary * 0.8 > 60000", cut, ""},
		{"cut 100 - p", "SELECT name FROM instructor WHERE salary * 80 / 100 > 60000", cut, ""},
		{"same value spelled 60000.0", "SELECT name FROM instructor WHERE salary * 0.8 > 60000.0", cut, ""},
		{"wrong factor", "SELECT name FROM instructor WHERE salary * 1.3 > 100000", raise, "20%"},
		{"number left out", "SELECT name FROM instructor WHERE salary * 1.2 > 90000", raise, "100000"},
		{"120 alone is not 100 + 20", "SELECT name FROM instructor WHERE salary * 120 > 100000", raise, "20%"},
		{"600 does not carry 60", "SELECT name FROM student WHERE student_id > 600", "Which students have an id above 60?", "60"},
		{"number inside a date string", "SELECT name FROM instructor WHERE hire_date >= '2015-01-01'", "Who was hired in 2015 or later?", ""},
		{"2.50 for 2.5", "SELECT name FROM course WHERE credits > 2.50", "Which courses have more than 2.5 credits?", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var detail string
			for _, x := range v.level3(tt.sql, tt.question, nil) {
				if x.Check == "numeric-constraint" {
					detail = x.Detail
				}
			}
			switch {
			case tt.flagged == "" && detail != "":
				t.Errorf("got %q; want the numbers found", detail)
			case tt.flagged != "" && !strings.Contains(detail, tt.flagged):
				t.Errorf("got %q; want %s flagged", detail, tt.flagged)
			}
		})
	}
}

func TestResolveTerminals(t *testing.T) {
	v, _ := newValidator(t)
	got, notes := ResolveTerminals(v.Schema, []string{"Student", "enrolment", "main.course", "invoices", "student"}, DefaultCorrection)
	if !slices.Equal(got, []string{"course", "enrollment", "student"}) {
		t.Errorf("terminals: got %v; want [course enrollment student]", got)
	}
	if len(notes) != 2 || notes[0].Table != "enrollment" || notes[1].Table != "" {
		t.Errorf("corrections: got %+v; want enrolment->enrollment and invoices dropped", notes)
	}
}

func TestParseDecomposition(t *testing.T) {
	d, err := ParseDecomposition("Here it is:\n```json\n{\"operations\":[{\"function\":\"AVG\",\"target\":\"t.c\"}],\"quantities\":[],\"aggregations\":[],\"temporal\":[\"a } in a string\"],\"terminal_tables\":[\"t\"]}\n```")
	if err != nil || len(d.Operations) != 1 || d.Terminals[0] != "t" || d.Temporal[0] != "a } in a string" {
		t.Errorf("got %+v %v", d, err)
	}
	if _, err := ParseDecomposition("no json here"); err == nil {
		t.Error("no JSON: got nil error")
	}
	if _, err := ParseDecomposition(`{"operations": 3}`); err == nil {
		t.Error("bad types: got nil error")
	}
}

// TestLevel2Direction: two constructed scaffold/query pairs on which the
// two level-2 directions disagree (attribute check off, so that level 2
// compares tables only).
//
//   - The scaffold joins student -- enrollment with only student a
//     terminal, and the query reads student alone: the scaffold holds a
//     join irrelevant to the query (scaffold_in_query fails with
//     irrelevant-join), while every table the query reads is in the
//     scaffold (query_in_scaffold passes).
//   - The scaffold is student -- enrollment (both terminals) and the query
//     also joins department: query_in_scaffold fails with stray-table,
//     while every scaffold join is made by the query (scaffold_in_query
//     passes). Either way the report lists department as read outside the
//     scaffold, for re-planning.
func TestLevel2Direction(t *testing.T) {
	v, g := newValidator(t)
	v.Attributes = false
	ctx := context.Background()
	se := scaffoldFor(t, g, "enrollment", "student")
	one := &Scaffold{Tables: se.Tables, Edges: se.Edges, Terminals: []string{"student"}, Algorithm: se.Algorithm, Navigated: true}
	const (
		alone = "SELECT name FROM student"
		extra = "SELECT s.name, d.name FROM student s JOIN enrollment e ON e.student_id = s.student_id JOIN department d ON d.dept_id = s.major_dept"
	)
	for _, tt := range []struct {
		name, dir, sql string
		sc             *Scaffold
		want           string // the failing check; "" passes
		outside        []string
	}{
		{"irrelevant join, paper", L2ScaffoldInQuery, alone, one, CheckIrrelevantJoin, nil},
		{"irrelevant join, reverse", L2QueryInScaffold, alone, one, "", nil},
		{"irrelevant join, empty is paper", "", alone, one, CheckIrrelevantJoin, nil},
		{"stray table, paper", L2ScaffoldInQuery, extra, se, "", []string{"department"}},
		{"stray table, reverse", L2QueryInScaffold, extra, se, CheckStrayTable, []string{"department"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v.L2Direction = tt.dir
			rep := v.Validate(ctx, tt.sql, Question{}, tt.sc, nil, 3)
			var checks []string
			for _, x := range rep.Violations {
				checks = append(checks, x.Check)
			}
			switch {
			case tt.want == "" && !rep.Pass():
				t.Errorf("got %v (%+v); want a pass", checks, rep.Violations)
			case tt.want != "" && !slices.Equal(checks, []string{tt.want}):
				t.Errorf("got %v; want [%s]", checks, tt.want)
			}
			if !slices.Equal(rep.Outside, tt.outside) {
				t.Errorf("outside: got %v; want %v", rep.Outside, tt.outside)
			}
		})
	}
}
