package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestViewServesLive runs a small spec, starts `t2sbench view --port 0`
// as a process, reads the URL it prints, and fetches the page, the index
// and a question over HTTP (JSON): the index carries the spec as written (run
// stores it), the question its calls' messages from the model cache.
// SIGINT stops the server cleanly (exit 0).
func TestViewServesLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	specText := `name: view-live
# a comment the overview shows as written
benchmarks: [{name: mini, limit: 2}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners: [{name: direct}]
`
	_, runDir := runSpec(t, dir, specText)
	cmd := cli(t, filepath.Join(dir, "calls.log"), "view", runDir, "--port", "0", "--no-previews")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-done
		}
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
		io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	var base string
	select {
	case base = <-urls:
	case <-time.After(60 * time.Second):
		t.Fatalf("view printed no URL within 60 s; stderr:\n%s", stderr.String())
	}
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s; want 200", path, resp.Status)
		}
		return string(b)
	}
	if page := get(""); !strings.Contains(page, `<script src="app.js">`) {
		t.Errorf("GET /: %.200q; want the viewer's page", page)
	}
	var idx struct {
		Title string `json:"title"`
		Runs  []struct {
			Spec       string `json:"spec"`
			SpecStored bool   `json:"spec_stored"`
		} `json:"runs"`
	}
	decodeJSON(t, get("data/index.json"), &idx)
	if idx.Title != "view-live (simulated model)" || len(idx.Runs) != 1 || !idx.Runs[0].SpecStored || idx.Runs[0].Spec != specText {
		t.Errorf("index: title %q, runs %+v; want the spec as written, stored", idx.Title, idx.Runs)
	}
	var q struct {
		Texts []string `json:"texts"`
		Items []struct {
			Calls []struct {
				CacheKey string `json:"cache_key"`
				Messages []struct {
					Role  string `json:"role"`
					Parts []int  `json:"parts"`
				} `json:"messages"`
				Samples []struct {
					Found  bool   `json:"found"`
					Answer string `json:"answer"`
				} `json:"samples"`
			} `json:"calls"`
		} `json:"items"`
	}
	decodeJSON(t, get("data/q/1.json"), &q)
	if len(q.Items) != 1 || len(q.Items[0].Calls) == 0 {
		t.Fatalf("question 1: %+v; want one item with calls", q)
	}
	c := q.Items[0].Calls[0]
	if c.CacheKey == "" || len(c.Messages) == 0 || c.Messages[len(c.Messages)-1].Role != "user" || len(c.Samples) == 0 || !c.Samples[0].Found {
		t.Errorf("question 1 call: %+v; want its cache key, messages ending with the user's and a found sample", c)
	}
	if resp, err := http.Get(base + "data/q/99.json"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET data/q/99.json: %v %v; want 404 (2 questions)", resp, err)
	} else {
		resp.Body.Close()
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stopped = true
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("view after SIGINT: %v; want exit 0\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Error("view did not stop within 20 s of SIGINT")
	}
}

// decodeJSON decodes a data file the server serves (JSON).
func decodeJSON(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("data file %.60q: %v", body, err)
	}
}
