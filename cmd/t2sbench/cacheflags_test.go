package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runstore"
)

// swappableServer serves one base URL from whichever fake server is
// current: the same URL and model name in front of another server.
type swappableServer struct {
	cur atomic.Pointer[fakeopenai.Server]
}

func (s *swappableServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.cur.Load().ServeHTTP(w, r)
}

// fakeModelServer is a fake vLLM serving model m from weights root,
// answering every question with sql.
func fakeModelServer(root, sql string) *fakeopenai.Server {
	return fakeopenai.NewUnstarted(fakeopenai.Options{Model: "m", ListModels: true, Root: root,
		Responder: func(*fakeopenai.Request, fakeopenai.Sample) fakeopenai.Choice {
			return fakeopenai.Choice{Content: "```sql\n" + sql + "\n```"}
		}})
}

// cacheFiles hashes the model cache's files (the database and its WAL).
func cacheFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	paths, _ := filepath.Glob(filepath.Join(dir, "cache", runstore.ModelCacheFile+"*"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = sha256.Sum256(b)
	}
	return out
}

// TestRunCacheServerIdentity: the model cache is keyed by what the server
// reports about the model. Behind the same base URL and model name,
// another server (other weights in its model list) gets no cache hits and
// the run says the identity changed; --refresh-cache sends every call and
// replaces the cached answers; --no-cache leaves the cache untouched.
// Each step runs the two questions of a one-trial spec (two model calls).
func TestRunCacheServerIdentity(t *testing.T) {
	t.Parallel()
	sw := &swappableServer{}
	hs := httptest.NewServer(sw)
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	spec := writeSpec(t, dir, fmt.Sprintf("name: ident\nbenchmarks: [{name: mini, limit: 2}]\nmodels:\n  m: {backend: openai, base_url: %q, model: m, max_retries: 1}\nroles: {reason: m}\nrunners: [{name: direct}]\nworkers: 1\n", hs.URL+"/v1"))
	runDir := filepath.Join(dir, "run")
	const notice = "model identity changed since cached answers: was id=m root=/weights/a owned_by=fakeopenai, now id=m root=/weights/b owned_by=fakeopenai; cached answers for the old identity are not used"
	for _, step := range []struct {
		name      string
		server    *fakeopenai.Server // nil: keep the current one
		flags     []string
		wantCalls int
		wantText  string // in the run's stderr ("" none)
		noText    bool   // the notice must not appear
		wantSQL   string // every item's SQL
		untouched bool   // the cache files are unchanged
	}{
		{name: "first run", server: fakeModelServer("/weights/a", "SELECT 1"), wantCalls: 2, noText: true, wantSQL: "SELECT 1"},
		{name: "same server: cached", flags: []string{"--fresh"}, wantCalls: 0, noText: true, wantSQL: "SELECT 1"},
		{name: "other server, same URL and name", server: fakeModelServer("/weights/b", "SELECT 2"), flags: []string{"--fresh"}, wantCalls: 2, wantText: notice, wantSQL: "SELECT 2"},
		{name: "other server again: cached", flags: []string{"--fresh"}, wantCalls: 0, noText: true, wantSQL: "SELECT 2"},
		{name: "refresh-cache asks again", server: fakeModelServer("/weights/b", "SELECT 3"), flags: []string{"--fresh", "--refresh-cache"}, wantCalls: 2, noText: true, wantSQL: "SELECT 3"},
		{name: "refreshed answers are cached", flags: []string{"--fresh"}, wantCalls: 0, wantSQL: "SELECT 3"},
		{name: "no-cache", server: fakeModelServer("/weights/b", "SELECT 4"), flags: []string{"--fresh", "--no-cache"}, wantCalls: 2, wantSQL: "SELECT 4", untouched: true},
		{name: "cache kept its answers", flags: []string{"--fresh"}, wantCalls: 0, wantSQL: "SELECT 3"},
	} {
		if step.server != nil {
			sw.cur.Store(step.server)
		}
		srv := sw.cur.Load()
		before, beforeFiles := srv.Calls(), cacheFiles(t, runDir)
		var out, errb bytes.Buffer
		args := append([]string{"run", spec, "--quiet", "--out", runDir}, step.flags...)
		if err := run(&out, &errb, args); err != nil {
			t.Fatalf("%s: run: %v\n%s", step.name, err, errb.String())
		}
		if got := srv.Calls() - before; got != step.wantCalls {
			t.Errorf("%s: server got %d chat calls; want %d\n%s", step.name, got, step.wantCalls, errb.String())
		}
		if step.wantText != "" && !strings.Contains(errb.String(), step.wantText) {
			t.Errorf("%s: stderr lacks %q:\n%s", step.name, step.wantText, errb.String())
		}
		if step.noText && strings.Contains(errb.String(), "model identity changed") {
			t.Errorf("%s: stderr reports an identity change:\n%s", step.name, errb.String())
		}
		r, err := runstore.ReadRun(runDir, true)
		if err != nil {
			t.Fatal(err)
		}
		var sqls []string
		for _, tr := range r.Trials {
			for _, it := range tr.Items {
				if it.Result != nil {
					sqls = append(sqls, it.Result.SQL)
				}
			}
		}
		if len(sqls) != 2 || slices.ContainsFunc(sqls, func(s string) bool { return s != step.wantSQL }) {
			t.Errorf("%s: items' SQL %q; want 2 × %q", step.name, sqls, step.wantSQL)
		}
		if after := cacheFiles(t, runDir); step.untouched && !maps.Equal(beforeFiles, after) {
			t.Errorf("%s: the cache files changed: %v -> %v", step.name, beforeFiles, after)
		}
	}
}
