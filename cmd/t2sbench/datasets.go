package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

func init() {
	register(command{
		name:    "datasets",
		summary: "list benchmarks and their data; check the golds' health; load-mysql imports the LogicCat dumps",
		run:     runDatasets,
	})
}

// knownData is where each benchmark's data is expected, relative to the
// shared data directory (see shared/datasets/README.md).
var knownData = []struct{ names, dir, note string }{
	{"spider", "datasets/spider", "dev 1034; 19/20 DBs (wta_1 missing)"},
	{"bird, bird-minidev, bird-dev-2023-05", "datasets/bird", "3/11 dev DBs present"},
	{"archer[-en|-zh][-dev|-train]", "datasets/archer", "DBs from spider/"},
	{"logiccat[-sqlite][-mini500|-full-gold]", "datasets/logiccat", "MySQL: needs a server (datasets load-mysql); SQLite files mostly empty"},
	{"mini", "testdata/mini (bundled)", "always available"},
}

func runDatasets(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "Usage: t2sbench datasets list | check | load-mysql [flags]")
		if len(args) == 0 {
			return fmt.Errorf("%w: datasets needs a subcommand (list, check, load-mysql)", errUsage)
		}
		return nil
	}
	switch args[0] {
	case "list":
		return datasetsList(stdout, stderr, args[1:])
	case "load-mysql":
		return datasetsLoadMySQL(stdout, stderr, args[1:])
	case "check":
		return datasetsCheck(stdout, stderr, args[1:])
	}
	return fmt.Errorf("%w: unknown datasets subcommand %q (want list, check or load-mysql)", errUsage, args[0])
}

func datasetsList(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("datasets list", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	shared := testenv.SharedDir()
	if shared == "" {
		fmt.Fprintln(stdout, "shared data: not found (set T2SBENCH_SHARED or place it at ../shared)")
	} else {
		fmt.Fprintln(stdout, "shared data:", shared)
	}
	for _, k := range knownData {
		status := ""
		if shared != "" && k.dir != "testdata/mini (bundled)" {
			if _, err := os.Stat(filepath.Join(shared, k.dir)); err == nil {
				status = " [present]"
			} else {
				status = " [absent]"
			}
		}
		fmt.Fprintf(stdout, "  %-40s %s%s  (%s)\n", k.names, k.dir, status, k.note)
	}
	return nil
}

func datasetsLoadMySQL(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("datasets load-mysql", "--benchmark logiccat --data DIR --dsn DSN [flags]", stderr)
	bench := fs.String("benchmark", "logiccat", "benchmark whose MySQL dumps to import (only logiccat has any)")
	data := fs.String("data", "", "benchmark data directory (dumps in DIR/mysql/database/*.sql)")
	dsn := fs.String("dsn", os.Getenv("T2SBENCH_MYSQL_DSN"), "admin DSN without password, e.g. root@unix(/tmp/x/sock)/ (default $T2SBENCH_MYSQL_DSN)")
	pwEnv := fs.String("password-env", "", "environment variable holding the admin password")
	roUser := fs.String("ro-user", "", "create/update this SELECT-only account with per-database grants (e.g. t2s_ro)")
	roPwEnv := fs.String("ro-password-env", "", "environment variable holding the read-only account's password")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *bench != "logiccat" {
		return fmt.Errorf("%w: --benchmark %q has no MySQL dumps (only logiccat)", errUsage, *bench)
	}
	if *data == "" {
		return fmt.Errorf("%w: --data is required", errUsage)
	}
	if *dsn == "" {
		return fmt.Errorf("%w: --dsn is required (or set T2SBENCH_MYSQL_DSN)", errUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	imps, err := datasets.ImportMySQLDumps(ctx, *dsn, filepath.Join(*data, "mysql", "database"), datasets.MySQLImportOptions{
		PasswordEnv: *pwEnv, ROUser: *roUser, ROPasswordEnv: *roPwEnv,
		Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) },
	})
	if err != nil {
		return err
	}
	loaded, tables, rows := 0, 0, int64(0)
	for _, imp := range imps {
		if imp.Status == "loaded" {
			loaded++
		}
		tables += imp.Tables
		rows += imp.Rows
	}
	fmt.Fprintf(stdout, "%d databases (%d loaded now, %d already present), %d tables, %d rows in %s\n",
		len(imps), loaded, len(imps)-loaded, tables, rows, time.Since(start).Round(time.Millisecond))
	return nil
}
