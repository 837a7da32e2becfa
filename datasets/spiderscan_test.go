package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/t2sbench/t2sbench/internal/testenv"
)

// spiderScanInputs are question files where scanSpiderFast must agree with
// scanSpider: the same questions when it succeeds, and when scanSpider
// fails it must fail too (LoadSpider then reparses).
var spiderScanInputs = []string{
	spiderFixture,
	`[]`, ` [ ] `, `[`, `[]x`, `[] []`, `{}`, `"x"`, ``,
	`[{"db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id":"a","query":"SELECT a FROM t","question":"q"},{"db_id":"b","query":"SELECT b FROM u","question":"r"}]`,
	`[{"db_id": "a", "query": "SELECT a FROM t", "question": "q"},]`,
	`[{"db_id": "a", "query": "SELECT a FROM t", "question": "q"} {"db_id": "b"}]`,
	// Other fields of every JSON kind, nested; numbers of every form.
	`[{"sql": {"from": {"table_units": [["table_unit", 1]], "conds": []}, "limit": null, "x": [true, false, -0.5e+3, 12, 0, 1E2, -7]}, "db_id": "a", "query": "SELECT a FROM t", "question": "q", "query_toks": ["a", "\"b\""]}]`,
	`[{"n": 01, "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"n": 1., "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"n": -, "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"n": tru, "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"n": [1 2], "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"n": {"a" 1}, "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"n": {1: 1}, "db_id": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	// Escapes, in values and in keys; invalid UTF-8; a raw control byte.
	`[{"db_id": "a\u0062", "query": "SELECT \"a\" FROM t WHERE b = 'x\\y'", "question": "caf\u00e9 \ud83d\ude00 \/"}]`,
	`[{"db\u005fid": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	"[{\"db_id\": \"a\xff\", \"query\": \"SELECT a FROM t\", \"question\": \"q\"}]",
	"[{\"db_id\": \"a\tb\", \"query\": \"SELECT a FROM t\", \"question\": \"q\"}]",
	`[{"db_id": "a\x", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id": "a\u12", "query": "SELECT a FROM t", "question": "q"}]`,
	// Keys encoding/json matches ignoring case; duplicates; null and
	// non-string fields; missing and empty fields; a non-object question.
	`[{"DB_ID": "a", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id": "a", "Query": "SELECT b FROM t", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id": "a", "db_id": "b", "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id": "a", "db_id": null, "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id": 1, "query": "SELECT a FROM t", "question": "q"}]`,
	`[{"query": "SELECT a FROM t", "question": "q"}]`,
	`[{"db_id": "", "query": "SELECT a FROM t", "question": "q"}]`,
	`[null]`, `[{}]`, `[1]`,
	// A gold the hardness scanner cannot read.
	`[{"db_id": "a", "query": "SELECT (", "question": "q"}]`,
}

func scanBoth(t *testing.T, in string, limit, chunk int) {
	t.Helper()
	want, werr := scanSpider(strings.NewReader(in), limit)
	for _, r := range []struct {
		name string
		got  func() ([]Example, error)
	}{
		{"chunks", func() ([]Example, error) { return scanSpiderChunks(strings.NewReader(in), limit, chunk) }},
		{"one byte reads", func() ([]Example, error) {
			return scanSpiderChunks(iotest.OneByteReader(strings.NewReader(in)), limit, chunk)
		}},
	} {
		got, gerr := r.got()
		switch {
		case gerr == nil && werr != nil:
			t.Errorf("%q (limit %d, chunk %d, %s): fast scan accepted what scanSpider refuses (%v): %+v", in, limit, chunk, r.name, werr, got)
		case gerr == nil && !reflect.DeepEqual(got, want):
			t.Errorf("%q (limit %d, chunk %d, %s):\n got %+v\nwant %+v", in, limit, chunk, r.name, got, want)
		}
	}
}

// TestScanSpiderFast compares the fast scanner with scanSpider, with
// chunks of every size from one byte (every value cut at every point) to
// the whole input, and reads of one byte.
func TestScanSpiderFast(t *testing.T) {
	for _, in := range spiderScanInputs {
		for _, limit := range []int{0, 1} {
			for chunk := 1; chunk <= len(in)+1; chunk++ {
				scanBoth(t, in, limit, chunk)
			}
		}
	}
	// The fast scanner must not give up on ordinary files.
	for _, in := range []string{spiderScanInputs[0], spiderScanInputs[9], spiderScanInputs[10], spiderScanInputs[13], spiderScanInputs[21]} {
		if _, err := scanSpiderFast(strings.NewReader(in), 0); err != nil {
			t.Errorf("fast scan of %q: %v; want it to succeed", in, err)
		}
	}
}

// TestScanSpiderFastDev compares both scanners on the real Spider dev.json
// (skipped without the shared data).
func TestScanSpiderFastDev(t *testing.T) {
	dir := testenv.Datasets(t, "spider")
	data, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := scanSpider(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{spiderScanChunk, 4096, 777} {
		got, err := scanSpiderChunks(bytes.NewReader(data), 0, chunk)
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("chunk %d: %d questions differ from scanSpider's %d", chunk, len(got), len(want))
		}
	}
}

func FuzzScanSpiderFast(f *testing.F) {
	for _, in := range spiderScanInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		scanBoth(t, in, 0, 7)
	})
}
