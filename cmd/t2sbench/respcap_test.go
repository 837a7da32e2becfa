package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// hostileRSSLimitKB is the peak resident set a run against a hostile
// server must stay under: 200 MiB.
const hostileRSSLimitKB = 200 << 10

// gzipMember is one gzip member holding s.
func gzipMember(s string) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	io.WriteString(zw, s)
	zw.Close()
	return b.Bytes()
}

// TestRunHostileAnswersBoundedMemory runs `direct` on one mini question in
// a child process (TestHelperRealCLI: the real client, cache and store)
// against servers whose answer is hostile: a gzip body that inflates to
// 256 MiB (about 256 KiB sent: concatenated gzip members of 1 MiB of
// zeros, made once) and an answer of 300,000 choices (about 25 MB). Each
// run's peak RSS stays under 200 MiB and its item is left with class
// malformed (an answer over the size caps).
func TestRunHostileAnswersBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two child processes")
	}
	if raceEnabled {
		t.Skip("peak RSS is not measured under the race detector, whose shadow memory multiplies it")
	}
	t.Parallel()
	needProc(t)
	const head = `{"id":"x","object":"chat.completion","model":"fake","usage":{"prompt_tokens":1,"completion_tokens":1},"choices":[`
	zeros := gzipMember(strings.Repeat("0", 1<<20))
	bomb := func(w http.ResponseWriter) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipMember(head + `{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`))
		for i := 0; i < 256; i++ {
			if _, err := w.Write(zeros); err != nil {
				return // the client stopped reading
			}
		}
		w.Write(gzipMember(`"}}]}`))
	}
	many := []byte(head)
	for i := 0; i < 300000; i++ {
		if i > 0 {
			many = append(many, ',')
		}
		many = append(many, `{"index":`...)
		many = strconv.AppendInt(many, int64(i), 10)
		many = append(many, `,"finish_reason":"stop","message":{"role":"assistant","content":"SELECT 1"}}`...)
	}
	many = append(many, "]}"...)
	choices := func(w http.ResponseWriter) { w.Write(many) }
	for _, tc := range []struct {
		name   string
		answer func(http.ResponseWriter)
	}{{"gzip body of 256 MiB", bomb}, {"300000 choices", choices}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				tc.answer(w)
			}))
			defer srv.Close()
			tmp := t.TempDir()
			spec := writeSpec(t, tmp, fmt.Sprintf(`name: hostile
benchmarks: [{name: mini, limit: 1}]
models:
  local: {backend: openai, base_url: %q, model: fake, max_retries: 0}
roles: {reason: local}
workers: 1
runners:
  - name: direct
`, srv.URL+"/v1"))
			dir := filepath.Join(tmp, "run")
			out, kb, _ := childCLI([]string{"XDG_CACHE_HOME=" + t.TempDir()}, "run", spec, "--out", dir, "--quiet")
			t.Logf("%s: peak RSS %d MiB", tc.name, kb>>10)
			if kb <= 0 || kb > hostileRSSLimitKB {
				t.Errorf("peak RSS %d kB; want in (0, %d]\n%s", kb, hostileRSSLimitKB, out)
			}
			r, err := runstore.ReadRun(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, tr := range r.Trials {
				for _, it := range tr.Items {
					n++
					if it.ErrorClass != llm.ClassMalformed || !strings.Contains(it.Error, "answer too large") {
						t.Errorf("item %s: %s, class %q, error %q; want class malformed, \"answer too large\"", it.QuestionID, it.Status, it.ErrorClass, it.Error)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d items stored; want 1\n%s", n, out)
			}
		})
	}
}
