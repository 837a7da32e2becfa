package datasets

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// zeroblobSQL is a hostile prediction: 4,000 rows of a 1 MB
// BLOB each (about 4 GB), which used to exhaust memory under the row cap.
const zeroblobSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 4000) SELECT x, zeroblob(1000000) FROM c"

func TestExecuteByteBudget(t *testing.T) {
	db, _ := openFixture(t, SQLiteOptions{MaxBytes: 10 << 20})
	ctx := context.Background()
	tests := []struct {
		name     string
		sql      string
		tooLarge bool
		rows     int
	}{
		// 4,000 rows of 1,000,000 + 8 bytes: the budget of 10 MiB
		// (10,485,760) is passed at row 11 (11 * 1,000,008 = 11,000,088).
		{"zeroblob", zeroblobSQL, true, 0},
		// 10 rows of 1,000,008 bytes = 10,000,080 <= 10,485,760: kept.
		{"under budget", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 10) SELECT x, zeroblob(1000000) FROM c", false, 10},
		// One 9 MiB text value fits; the row's 8-byte integer as well.
		{"one large value", "SELECT 1, hex(zeroblob(4718592))", false, 1},
		{"ordinary", "SELECT n FROM numbers WHERE n <= 5", false, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := db.Execute(ctx, tt.sql)
			if tt.tooLarge {
				var ee *ExecError
				if !errors.As(err, &ee) || ee.Kind != ExecTooLarge {
					t.Fatalf("err = %v; want kind %q", err, ExecTooLarge)
				}
				if !strings.Contains(ee.Msg, "result too large") || !strings.Contains(ee.Msg, "after 11 rows") {
					t.Errorf("msg = %q; want it to say \"result too large\" after 11 rows", ee.Msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if len(rs.Rows) != tt.rows {
				t.Errorf("got %d rows; want %d", len(rs.Rows), tt.rows)
			}
			if got := ResultBytes(rs); got > 10<<20 {
				t.Errorf("ResultBytes = %d; want <= %d", got, 10<<20)
			}
		})
	}
}

func TestResultBytes(t *testing.T) {
	rs := &ResultSet{Columns: []string{"a", "b", "c"}, Rows: [][]any{
		{int64(1), "abc", nil},
		{float64(2.5), []byte{1, 2, 3, 4}, "é"},
	}}
	// 8 + 3 + 0 + 8 + 4 + 2 ("é" is two bytes in UTF-8) = 25.
	if got := ResultBytes(rs); got != 25 {
		t.Errorf("ResultBytes = %d; want 25", got)
	}
}

// TestZeroblobPeakRSS runs the zeroblob query with the default budget in a
// child process (this test binary, TestHelperZeroblob) and reads its peak
// resident set (VmHWM, Linux) from /proc before it exits.
func TestZeroblobPeakRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: peak RSS is read from /proc/self/status")
	}
	if testing.Short() {
		t.Skip("short mode")
	}
	path := buildFixture(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperZeroblob$", "-test.count=1")
	cmd.Env = append(os.Environ(), "T2SBENCH_ZEROBLOB_DB="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var kb int64 = -1
	var kind string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM_kB="); ok {
			kb, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "kind="); ok {
			kind = v
		}
	}
	if kind != string(ExecTooLarge) {
		t.Fatalf("helper kind = %q; want %q\n%s", kind, ExecTooLarge, out)
	}
	if kb <= 0 {
		t.Fatalf("no VmHWM in helper output:\n%s", out)
	}
	t.Logf("zeroblob query, default budget (%d MiB): peak RSS %d MiB", DefaultMaxBytes>>20, kb>>10)
	if kb > 1<<20 {
		t.Errorf("peak RSS %d kB; want under 1 GiB (1048576 kB)", kb)
	}
}

// TestHelperZeroblob is the child process of TestZeroblobPeakRSS.
func TestHelperZeroblob(t *testing.T) {
	path := os.Getenv("T2SBENCH_ZEROBLOB_DB")
	if path == "" {
		t.Skip("helper process only")
	}
	db, err := OpenSQLite(path, "fixture", SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Execute(context.Background(), zeroblobSQL)
	var ee *ExecError
	if errors.As(err, &ee) {
		os.Stdout.WriteString("kind=" + string(ee.Kind) + "\n")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			os.Stdout.WriteString("VmHWM_kB=" + strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) + "\n")
		}
	}
}
