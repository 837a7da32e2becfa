package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewStaticAndNoView runs a small spec, writes the viewer with
// `view --static`, and checks `report --no-view` writes none.
func TestViewStaticAndNoView(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, runDir := runSpec(t, dir, `name: view-test
benchmarks: [{name: mini, limit: 5}]
models: {sim: {backend: sim, p: 0.6, seed: 3}}
roles: {reason: sim}
runners: [{name: direct}, {name: cot}]
workers: 2
`)
	site := filepath.Join(dir, "site")
	var o, e bytes.Buffer
	if err := run(&o, &e, []string{"view", runDir, "--static", site}); err != nil {
		t.Fatalf("view --static: %v\n%s", err, e.String())
	}
	files, _ := filepath.Glob(filepath.Join(site, "data", "q", "*.js"))
	if len(files) != 5 {
		t.Errorf("view --static wrote %d question files; want 5", len(files))
	}
	idx, err := os.ReadFile(filepath.Join(site, "data", "index.js"))
	if err != nil || !strings.Contains(string(idx), `"title":"view-test (simulated model)"`) {
		t.Errorf("data/index.js: %v; want the simulated-model title", err)
	}
	rep := filepath.Join(dir, "report")
	if err := run(&o, &e, []string{"report", runDir, "--out", rep, "--quiet", "--no-view", "--format", "md"}); err != nil {
		t.Fatalf("report --no-view: %v\n%s", err, e.String())
	}
	if _, err := os.Stat(filepath.Join(rep, "view")); !os.IsNotExist(err) {
		t.Errorf("report --no-view: view directory exists (%v)", err)
	}
}

func TestViewUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"view"}, "at least one run directory"},
		{[]string{"view", "nowhere"}, "not a run directory"},
		{[]string{"view", "x", "--port", "70000"}, "not a port number"},
		{[]string{"view", "x", "--host", "evil.example"}, "not an IP address"},
	} {
		var o, e bytes.Buffer
		err := run(&o, &e, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v; want an error containing %q", tt.args, err, tt.want)
		}
	}
}

// TestViewHost: view serves on a loopback address by default; another
// address is taken only as --host, with a warning; a name is refused.
func TestViewHost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		host, ip string
		warn     bool
	}{
		{"127.0.0.1", "127.0.0.1", false},
		{"localhost", "127.0.0.1", false},
		{"::1", "::1", false},
		{"0.0.0.0", "0.0.0.0", true},
		{"192.168.1.5", "192.168.1.5", true},
		{"example.com", "", false},
	} {
		t.Run(tt.host, func(t *testing.T) {
			ip, warn, err := viewHost(tt.host)
			if tt.ip == "" {
				if !errors.Is(err, errUsage) {
					t.Errorf("got %v, %v; want a usage error", ip, err)
				}
				return
			}
			if err != nil || ip.String() != tt.ip || (warn != "") != tt.warn {
				t.Errorf("got %v, warning %q, %v; want %s, warning %v", ip, warn, err, tt.ip, tt.warn)
			}
		})
	}
	// The default, as help prints it.
	var o, e bytes.Buffer
	run(&o, &e, []string{"help", "view"})
	if !strings.Contains(o.String()+e.String(), `IP address to serve on; one that is not a loopback address lets other machines read the runs (a warning says so) (default "127.0.0.1")`) {
		t.Errorf("help view: %s; want --host defaulting to 127.0.0.1", o.String()+e.String())
	}
}
