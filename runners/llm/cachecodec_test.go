package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/codec"
)

// TestCacheDictFrozen pins cacheDict1: values compressed with it decode
// only with the very same bytes, so it must never change (a new
// dictionary takes a new codec byte). The hash is the dictionary's
// SHA-256 when codecFlate1 was introduced.
func TestCacheDictFrozen(t *testing.T) {
	h := sha256.Sum256([]byte(cacheDict1))
	if got, want := hex.EncodeToString(h[:]), frozenDict1; got != want {
		t.Errorf("SHA-256 of cacheDict1: got %s; want %s (values stored with codec 1 no longer decode)", got, want)
	}
}

const frozenDict1 = "753988377a072a9109d371006e42981fcf5a2e98ca528670040a34b834301fa4"

// TestPackValue checks that a value comes back byte for byte and is
// stored compressed exactly when that is shorter.
func TestPackValue(t *testing.T) {
	random := make([]byte, 300)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	sql := "```sql\nSELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id WHERE T2.year = 2014 GROUP BY T1.name ORDER BY COUNT(*) DESC LIMIT 1\n```"
	cases := []struct {
		name      string
		in        []byte
		wantCodec byte
	}{
		{"empty", nil, codecRaw},
		{"one byte", []byte("x"), codecRaw},
		{"random bytes do not compress", random, codecRaw},
		{"an answer in SQL", []byte(sql), codecFlate1},
		{"a repeated schema", []byte(strings.Repeat("CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT);\n", 40)), codecFlate1},
		{"utf-8 and NUL", []byte(strings.Repeat("【Schema】 ÄÖÜ \x00 表 ", 20)), codecFlate1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := packValue(c.in)
			if v[0] != c.wantCodec {
				t.Errorf("codec: got %d; want %d", v[0], c.wantCodec)
			}
			if len(v) > len(c.in)+1 {
				t.Errorf("stored %d bytes for %d; want at most %d", len(v), len(c.in), len(c.in)+1)
			}
			got, err := unpackValue(v)
			if err != nil || string(got) != string(c.in) {
				t.Errorf("round trip: got %q, %v; want %q", got, err, c.in)
			}
		})
	}
	// The dictionary pays: an answer in SQL takes under half its size.
	if v := packValue([]byte(sql)); len(v)*2 > len(sql) {
		t.Errorf("SQL answer of %d bytes stored in %d; want under half", len(sql), len(v))
	}
}

// TestUnpackValueBad checks that damaged values are errors, not panics
// or wrong text.
func TestUnpackValueBad(t *testing.T) {
	good := packValue([]byte(strings.Repeat("SELECT name FROM singer; ", 20)))
	cases := []struct {
		name string
		v    []byte
		want string
	}{
		{"empty", nil, "empty value"},
		{"unknown codec", []byte{9, 1, 2}, "unknown codec 9"},
		{"truncated deflate", good[:len(good)/2], "decompress"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := unpackValue(c.v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want an error with %q", err, c.want)
			}
		})
	}
}

// TestSamplesPayload round-trips the samples of a row and rejects
// truncated payloads.
func TestSamplesPayload(t *testing.T) {
	es := []entry{
		{choice: "SELECT 1", reasoning: "think", finish: FinishStop, structured: "json_schema", model: "m",
			promptTokens: 1200, completionTokens: 35, reasoningTokens: 900, latency: 1500 * time.Millisecond},
		{choice: "", finish: FinishLength, model: "m", promptTokens: 0, completionTokens: -1},
	}
	idx := []int{3, 7}
	b := encodeSamples(idx, es, 1764547200)
	gotIdx, gotEs, err := decodeSamples(b, "m")
	if err != nil || !reflect.DeepEqual(gotIdx, idx) || !reflect.DeepEqual(gotEs, es) {
		t.Fatalf("round trip: got %v %+v, %v; want %v %+v", gotIdx, gotEs, err, idx, es)
	}
	for _, n := range []int{0, 1, len(b) / 2, len(b) - 1} {
		if _, _, err := decodeSamples(b[:n], "m"); err == nil {
			t.Errorf("payload cut to %d of %d bytes: got no error; want one", n, len(b))
		}
	}
	if _, _, err := decodeSamples(append(b, 0), "m"); err == nil {
		t.Error("payload with a trailing byte: got no error; want one")
	}
}

// TestPromptPayload round-trips a stored request, paragraph ids going
// down as well as up.
func TestPromptPayload(t *testing.T) {
	msgs := []promptMessage{{role: "system", parts: []int64{5}}, {role: "user", parts: []int64{9, 2, 2, 100000}}, {role: "assistant", parts: []int64{1}}}
	b := encodePrompt(1764547200, 7, msgs)
	settings, got, err := decodePrompt(b)
	if err != nil || settings != 7 || !reflect.DeepEqual(got, msgs) {
		t.Fatalf("round trip: got %d %+v, %v; want 7 %+v", settings, got, err, msgs)
	}
	for _, n := range []int{0, 1, len(b) - 1} {
		if _, _, err := decodePrompt(b[:n]); err == nil {
			t.Errorf("payload cut to %d of %d bytes: got no error; want one", n, len(b))
		}
	}
}

// TestCacheParagraphDelta stores the prompts of a search that grows its
// reasoning one step per call: each new "reasoning so far" paragraph is
// stored against the one before it (codecDelta1), chains stay within
// maxDeltaChain, and every request reads back byte for byte.
func TestCacheParagraphDelta(t *testing.T) {
	cache, path := openTestCache(t)
	cc := Cached(finishClient{}, cache, testIdent)
	ctx := context.Background()
	var reqs []Request
	steps := "【Reasoning so far】"
	for k := 1; k <= 20; k++ {
		steps += fmt.Sprintf("\nStep %d (Schema Selection):\nThe question needs table(s) singer, concert; step %d keeps the join on singer.singer_id = concert.singer_id.", k, k)
		req := Request{Role: "reason", Messages: []Message{{Role: "system", Content: "You write SQLite."},
			{Role: "user", Content: "Question: How many concerts did each singer give?\n\n" + steps}}}
		if _, err := cc.Complete(ctx, req); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i, req := range reqs {
		rk, _, _ := requestKey(testIdent, req)
		got, err := rd.Call(ctx, rk, 1)
		if err != nil || got.Request == nil || fmt.Sprint(got.Request.Messages) != fmt.Sprint(req.Messages) {
			t.Fatalf("request %d: got %+v, %v; want its messages", i, got.Request, err)
		}
	}
	rows, err := rd.db.Query(`SELECT id, v FROM paragraphs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	base := map[int64]int64{}
	for rows.Next() {
		var id int64
		var v []byte
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		if base[id], err = deltaBase(v); err != nil {
			t.Fatal(err)
		}
	}
	deltas, longest := 0, 0
	for id := range base {
		n := 0
		for b := base[id]; b != 0; b = base[b] {
			n++
		}
		if n > 0 {
			deltas++
		}
		longest = max(longest, n)
	}
	// 20 reasoning paragraphs: the first has no base, and a chain starts
	// anew after maxDeltaChain-1 bases.
	if want := 20 - (20+maxDeltaChain-1)/maxDeltaChain; deltas != want || longest != maxDeltaChain-1 {
		t.Errorf("paragraphs stored against a base: %d, longest chain %d; want %d and %d", deltas, longest, want, maxDeltaChain-1)
	}
}

// TestCacheReaderDeltaBad checks that a paragraph whose base is not older
// than itself (a damaged file) is an error, not a loop.
func TestCacheReaderDeltaBad(t *testing.T) {
	_, path := openTestCache(t)
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	v := packDelta([]byte("text"), 5, []byte("base"))
	if _, err := rd.paragraph(context.Background(), 5, v, map[int64]string{}); err == nil || !strings.Contains(err.Error(), "not older") {
		t.Errorf("paragraph 5 based on 5: got %v; want \"not older\"", err)
	}
	if _, err := rd.paragraph(context.Background(), 6, v, map[int64]string{}); err == nil || !strings.Contains(err.Error(), "base paragraph 5") {
		t.Errorf("paragraph 6 based on a missing 5: got %v; want an error naming base paragraph 5", err)
	}
	got, err := rd.paragraph(context.Background(), 6, v, map[int64]string{5: "base"})
	if err != nil || got != "text" {
		t.Errorf("paragraph 6 with its base: got %q, %v; want \"text\"", got, err)
	}
	// An edit that keeps more of its base than the base has.
	edit := packDelta([]byte("a long base text, edited"), 5, []byte("a long base text"))
	if _, err := rd.paragraph(context.Background(), 6, edit, map[int64]string{5: "short"}); err == nil || !strings.Contains(err.Error(), "keeps") {
		t.Errorf("edit of a shorter base: got %v; want an error", err)
	}
	if got, err := rd.paragraph(context.Background(), 6, edit, map[int64]string{5: "a long base text"}); err != nil || got != "a long base text, edited" {
		t.Errorf("edit: got %q, %v; want the edited text", got, err)
	}
}

// TestCacheConcurrentPrompts stores prompts that share and grow
// paragraphs from 8 goroutines through two Cache handles on one file (as
// two processes would), so paragraphs are deduplicated and stored against
// bases across transactions that interleave; every request must read back
// byte for byte.
func TestCacheConcurrentPrompts(t *testing.T) {
	a, path := openTestCache(t)
	b, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	reqs := make([][]Request, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		cache := []*Cache{a, b}[g%2]
		wg.Go(func() {
			cc := Cached(finishClient{}, cache, testIdent)
			steps := "【Reasoning so far】"
			for k := range 20 {
				steps += fmt.Sprintf("\nStep %d: table singer, worker %d keeps the join on singer.singer_id = concert.singer_id.", k, g%3)
				req := Request{Role: "reason", Messages: []Message{{Role: "system", Content: "You write SQLite."},
					{Role: "user", Content: "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT);\n\n" + steps}}}
				if _, err := cc.Complete(ctx, req); err != nil {
					t.Error(err)
					return
				}
				reqs[g] = append(reqs[g], req)
			}
		})
	}
	wg.Wait()
	rd, err := OpenCacheReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	n := 0
	for g := range reqs {
		for i, req := range reqs[g] {
			rk, _, _ := requestKey(testIdent, req)
			got, err := rd.Call(ctx, rk, 1)
			if err != nil || got.Request == nil || fmt.Sprint(got.Request.Messages) != fmt.Sprint(req.Messages) || !got.Samples[0].Found {
				t.Fatalf("worker %d request %d: got %+v, %v; want its messages and sample", g, i, got, err)
			}
			n++
		}
	}
	if n != 160 {
		t.Errorf("read %d requests; want 160", n)
	}
}

// decodeSamplesCopying is decodeSamples as it was, each text a copy of its
// own: FuzzDecodeSamples compares the two.
func decodeSamplesCopying(b []byte, model string) ([]int, []entry, error) {
	d := codec.Decoder{B: b}
	n := d.Count(1)
	d.Int() // created
	idx := make([]int, 0, n)
	es := make([]entry, 0, n)
	for range n {
		i := d.Uint()
		x := entry{model: model}
		x.promptTokens = int(d.Int())
		x.completionTokens = int(d.Int())
		x.reasoningTokens = int(d.Int())
		x.latency = time.Duration(d.Int())
		x.choice = d.Str()
		x.reasoning = d.Str()
		x.finish = d.Str()
		x.structured = d.Str()
		if d.Err != nil {
			return nil, nil, d.Err
		}
		idx = append(idx, int(i))
		es = append(es, x)
	}
	if d.Err == nil && len(d.B) > 0 {
		d.Err = fmt.Errorf("%d bytes after the samples", len(d.B))
	}
	return idx, es, d.Err
}

// FuzzDecodeSamples: decodeSamples reads what decodeSamplesCopying reads,
// and fails where it fails with the same error, on payloads of answers
// (fences, prose, <think>, quotes, comments, semicolons in strings) and
// on damaged ones (truncated, extended, bytes changed).
func FuzzDecodeSamples(f *testing.F) {
	answers := []string{"", "```sql\nSELECT \"a;b\" FROM t -- c;\n```", "<think>hmm; 'x'</think>SELECT 1", "prose then\n```sql\nSELECT", "/* ; */ SELECT ';'"}
	for i := range answers {
		es := []entry{{choice: answers[i], reasoning: answers[(i+1)%len(answers)], finish: "stop", structured: "json_schema", promptTokens: 900, completionTokens: 60, latency: time.Second},
			{choice: answers[(i+2)%len(answers)], finish: "length", completionTokens: -1}}
		b := encodeSamples([]int{0, 7}, es, 1700000000)
		f.Add(b, 0, byte(0))
		f.Add(b, len(b)/2, byte(1))
		f.Add(b, len(b)-1, byte(0xff))
	}
	f.Fuzz(func(t *testing.T, b []byte, at int, x byte) {
		cases := [][]byte{b}
		if at >= 0 && at < len(b) {
			changed := slices.Clone(b)
			changed[at] ^= x
			cases = append(cases, b[:at], append(slices.Clone(b), x), changed)
		}
		for _, c := range cases {
			idx, es, err := decodeSamples(c, "m")
			widx, wes, werr := decodeSamplesCopying(c, "m")
			if fmt.Sprint(err) != fmt.Sprint(werr) || !slices.Equal(idx, widx) || !slices.Equal(es, wes) {
				t.Errorf("decodeSamples(%q) = %v, %+v, %v; want %v, %+v, %v", c, idx, es, err, widx, wes, werr)
			}
		}
	})
}
