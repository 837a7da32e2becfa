package datasets

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

func TestSchemaIntrospection(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{})
	s, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range s.Tables {
		names = append(names, tb.Name)
	}
	// Creation order, as in the fixture script.
	if want := []string{"stadium", "singer", "concert", "singer_in_concert", "numbers"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tables = %q; want %q", names, want)
	}
	singer, _ := s.Table("SINGER")
	wantCols := []Column{
		{Name: "Singer_ID", Type: "INTEGER", Primary: true, Examples: []string{"1", "2", "3"}},
		{Name: "Name", Type: "VARCHAR(40)", NotNull: true, Examples: []string{"Joe Sharp", "Timbaland", "Justin Brown"}},
		{Name: "Country", Type: "TEXT", Examples: []string{"Netherlands", "United States", "France"}},
		{Name: "Birthday", Type: "DATE", Examples: []string{"1980-04-12", "1972-03-10", "not a date"}},
		{Name: "Is_male", Type: "BOOLEAN", Examples: []string{"1", "2", "0"}},
		// The 62-byte biography is over MaxExampleLen.
		{Name: "Bio", Type: "TEXT", Examples: []string{"Producer; rapper", "Line one\nline two"}},
		{Name: "Photo", Type: "BLOB"},
		// BLOB values are skipped; 4.25 as SQLite prints a REAL.
		{Name: "Misc", Type: "", Examples: []string{"42", "forty-two", "4.25"}},
	}
	if !reflect.DeepEqual(singer.Columns, wantCols) {
		t.Errorf("singer columns =\n%#v\nwant\n%#v", singer.Columns, wantCols)
	}
	if singer.RowCount != 5 || !reflect.DeepEqual(singer.PrimaryKey, []string{"Singer_ID"}) {
		t.Errorf("singer rows %d, pk %q; want 5, [Singer_ID]", singer.RowCount, singer.PrimaryKey)
	}
	sic, _ := s.Table("singer_in_concert")
	// PRIMARY KEY (Singer_ID, concert_ID): key order, not column order.
	if want := []string{"Singer_ID", "concert_ID"}; !reflect.DeepEqual(sic.PrimaryKey, want) {
		t.Errorf("singer_in_concert pk = %q; want %q", sic.PrimaryKey, want)
	}
	if nums, _ := s.Table("numbers"); nums.RowCount != 1000 || len(nums.PrimaryKey) != 0 || !nums.Columns[0].NotNull {
		t.Errorf("numbers = %+v; want 1000 rows, no pk, n NOT NULL", nums)
	}
	wantFKs := []ForeignKey{
		{FromTable: "concert", FromColumn: "Stadium_ID", ToTable: "stadium", ToColumn: "Stadium_ID"},
		{FromTable: "singer_in_concert", FromColumn: "concert_ID", ToTable: "concert", ToColumn: "concert_ID"},
		// "REFERENCES singer" without a column resolves to singer's key.
		{FromTable: "singer_in_concert", FromColumn: "Singer_ID", ToTable: "singer", ToColumn: "Singer_ID"},
	}
	if !reflect.DeepEqual(s.ForeignKeys, wantFKs) {
		t.Errorf("foreign keys =\n%+v\nwant\n%+v", s.ForeignKeys, wantFKs)
	}
	again, err := db.Schema(context.Background())
	if err != nil || again != s {
		t.Errorf("second Schema call = %p, %v; want the cached %p", again, err, s)
	}
}

// TestSchemaSpider checks introspection against the shared Spider
// concert_singer database; expected values come from its tables.json entry
// and `sqlite3 concert_singer.sqlite 'select count(*) ...'`.
func TestSchemaSpider(t *testing.T) {
	dir := testenv.Datasets(t, "spider", "database", "concert_singer")
	db, err := OpenSQLite(filepath.Join(dir, "concert_singer.sqlite"), "concert_singer", SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rows := map[string]int64{}
	for _, tb := range s.Tables {
		names = append(names, tb.Name)
		rows[tb.Name] = tb.RowCount
	}
	if want := []string{"stadium", "singer", "concert", "singer_in_concert"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tables = %q; want %q", names, want)
	}
	if want := map[string]int64{"stadium": 9, "singer": 6, "concert": 6, "singer_in_concert": 10}; !reflect.DeepEqual(rows, want) {
		t.Errorf("row counts = %v; want %v", rows, want)
	}
	if len(s.ForeignKeys) != 3 {
		t.Errorf("foreign keys = %+v; want 3 (tables.json)", s.ForeignKeys)
	}
}

// TestPythonFloat checks Python's repr(float); expected strings from
// CPython 3 (repr(x) typed at the REPL).
func TestPythonFloat(t *testing.T) {
	pointOne, pointTwo := 0.1, 0.2
	cases := []struct {
		f    float64
		want string
	}{
		{2106.0, "2106.0"}, {-0.19999999999999901, "-0.199999999999999"}, {4.25, "4.25"}, {0, "0.0"},
		{1, "1.0"}, {math.Copysign(0, -1), "-0.0"}, {0.1, "0.1"}, {pointOne + pointTwo, "0.30000000000000004"},
		{1e16, "1e+16"}, {1.5e16, "1.5e+16"}, {123456789012345.6, "123456789012345.6"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"}, {2.5, "2.5"},
		{1e22, "1e+22"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
		{9999999999999998, "9999999999999998.0"}, {-12.75, "-12.75"},
	}
	for _, c := range cases {
		if got := PythonFloat(c.f); got != c.want {
			t.Errorf("PythonFloat(%v) = %q; want %q", c.f, got, c.want)
		}
	}
}

func TestSpacedName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Singer_ID", "singer id"},
		{"songName", "song name"},
		{"song-release year", "song release year"},
		{"HTTPStatus", "httpstatus"}, // a capital after a capital starts no word
		{"petid", "petid"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SpacedName(tt.in); got != tt.want {
			t.Errorf("SpacedName(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
