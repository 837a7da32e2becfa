package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/viewer"
)

func init() {
	register(command{
		name:    "view",
		summary: "browse run directories in a web browser: trials, questions, disagreements, traces, model calls",
		run:     runView,
	})
}

func runView(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("view", "RUN_DIR... [flags]", stderr)
	port := fs.Int("port", 8088, "port to serve on (0: any free port)")
	host := fs.String("host", "127.0.0.1", "IP address to serve on; one that is not a loopback address lets other machines read the runs (a warning says so)")
	static := fs.String("static", "", "write a static copy (opens from file://) into this directory instead of serving")
	noPreviews := fs.Bool("no-previews", false, "do not execute the gold and predicted SQL for result previews")
	modelCache := fs.String("model-cache", "", "model cache file (models.db) to read the calls' messages and answers from (default: the one each run recorded, else RUN/cache/models.db)")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: view needs at least one run directory", errUsage)
	}
	if *port < 0 || *port > 65535 {
		return fmt.Errorf("%w: --port %d is not a port number", errUsage, *port)
	}
	ip, warn, err := viewHost(*host)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), runSignals...)
	defer stop()
	v, err := viewer.Open(ctx, dirs, viewer.Options{Benchmark: viewerBenchmarks(dirs[0]), NoPreviews: *noPreviews, ModelCache: *modelCache})
	if err != nil {
		return err
	}
	defer v.Close()
	for _, w := range v.Index().Warnings {
		fmt.Fprintln(stderr, "view: warning:", w)
	}
	if *static != "" {
		if err := v.WriteStatic(ctx, *static); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "view: %d questions written to %s (open %s)\n", v.Questions(), *static, filepath.Join(*static, viewer.IndexFile))
		return nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if warn != "" {
		fmt.Fprintln(stderr, "view: warning:", warn)
	}
	srv := &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 10 * time.Second}
	addr := ln.Addr().String()
	if ip.IsUnspecified() {
		// Every address of this machine: the page is at each of them
		// (the server answers requests addressed to the one they reach).
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	fmt.Fprintf(stdout, "view: %d trials, %d questions at http://%s/ (Ctrl-C to stop)\n", len(v.Index().Trials), v.Questions(), addr)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("view: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}

// viewHost parses view's --host: an IP address (or localhost, for
// 127.0.0.1). A loopback address serves this machine only; any other is
// served with a warning that other machines can read the runs, and that
// the server answers only requests addressed to an IP address of it
// (viewer.Viewer.Handler refuses host names, which DNS rebinding uses).
func viewHost(host string) (net.IP, string, error) {
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return nil, "", fmt.Errorf("%w: view: --host %q is not an IP address", errUsage, host)
	}
	if ip.IsLoopback() {
		return ip, "", nil
	}
	warn := fmt.Sprintf("--host %s is not a loopback address: every machine that reaches it can read the runs (spec, questions, gold SQL, answers); "+
		"open the viewer by this machine's IP address, as requests naming a host name are refused", ip)
	return ip, warn, nil
}

// viewerBenchmarks opens a run's benchmarks for the viewer as `run` does
// (the mini databases built under the run's cache), with results capped at
// the preview's rows and a short timeout.
func viewerBenchmarks(runDir string) func(b spec.BenchmarkSpec) (*datasets.Benchmark, error) {
	return func(b spec.BenchmarkSpec) (*datasets.Benchmark, error) {
		name := b.DatasetName()
		opt := datasets.LoadOptions{Limit: b.Limit, CacheDir: filepath.Join(runDir, "cache", "datasets", b.Name),
			SQLite: datasets.SQLiteOptions{MaxRows: viewer.DefaultPreviewRows + 1, Timeout: viewer.DefaultPreviewTimeout}}
		if b.MySQL != nil {
			cfg, err := b.MySQL.Config()
			if err != nil {
				return nil, err
			}
			opt.MySQL = cfg
		}
		return datasets.Open(name, b.Data, opt)
	}
}
