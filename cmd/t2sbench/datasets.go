package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/suggest"
	"github.com/t2sbench/t2sbench/internal/testenv"
)

func init() {
	register(command{
		name:    "datasets",
		summary: "list what each benchmark's data holds; check the golds' health; verify recorded sums; load-mysql imports the LogicCat dumps",
		run:     runDatasets,
	})
}

func runDatasets(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "Usage: t2sbench datasets list | check | verify | load-mysql [flags]")
		if len(args) == 0 {
			return fmt.Errorf("%w: datasets needs a subcommand (list, check, verify, load-mysql; t2sbench help datasets lists their flags)", errUsage)
		}
		// Every subcommand's flags, each printed by its own flag set.
		for _, sub := range []func(io.Writer, io.Writer, []string) error{datasetsList, datasetsCheck, datasetsVerify, datasetsLoadMySQL} {
			fmt.Fprintln(stderr)
			_ = sub(stdout, stderr, []string{"-h"})
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
	case "verify":
		return datasetsVerify(stdout, stderr, args[1:])
	}
	return fmt.Errorf("%w: unknown datasets subcommand %q%s (want list, check, verify or load-mysql)", errUsage, args[0], suggest.Hint(args[0], []string{"list", "check", "verify", "load-mysql"}))
}

func datasetsList(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("datasets list", "[--data DIR]", stderr)
	data := fs.String("data", "", "data directory holding spider/, bird/, archer/, logiccat/, or one benchmark's folder (default: the shared data's datasets/)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: datasets list: unexpected arguments %q (give the folder with --data DIR)", errUsage, fs.Args())
	}
	root := *data
	if root == "" {
		if shared := testenv.SharedDir(); shared != "" {
			root = filepath.Join(shared, "datasets")
		}
	}
	if root == "" {
		fmt.Fprintln(stdout, "data: none found (give --data DIR, or set T2SBENCH_SHARED)")
		fmt.Fprintln(stdout, "  fetch every benchmark: scripts/fetch-datasets.sh DIR   (then t2sbench datasets list --data DIR)")
		fmt.Fprintln(stdout, "  mini             testdata/mini (bundled, always available)")
		return nil
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("datasets list: %s is not a folder; fetch the benchmarks into it with scripts/fetch-datasets.sh %s", root, root)
	}
	ctx := context.Background()
	// DIR is the data directory when it holds a benchmark folder, else it
	// may be one benchmark's folder itself (--data /data/bird).
	// The entries come from the datasets registry (Kind.Data): the
	// datasets.Open name, the folder under the data directory
	// (scripts/fetch-datasets.sh's layout, which is also the shared data's
	// datasets/ folder), the script's benchmark argument ("" when it
	// fetches none) and the official source.
	listed := datasets.DataEntries()
	layout := false
	for _, l := range listed {
		if st, err := os.Stat(filepath.Join(root, l.Dir)); err == nil && st.IsDir() {
			layout = true
		}
	}
	fmt.Fprintln(stdout, "data:", root)
	found := 0
	for _, l := range listed {
		dir := filepath.Join(root, l.Dir)
		if !layout {
			dir = root
		}
		st := datasets.MeasureData(ctx, l.Name, dir)
		if !layout && st.Err != nil {
			continue // not this benchmark's folder
		}
		fetch := "see " + l.Source
		if l.Fetch != "" {
			fetch = fmt.Sprintf("scripts/fetch-datasets.sh %s %s   (source: %s)", filepath.Dir(dir), l.Fetch, l.Source)
		}
		switch {
		case st.Err != nil:
			fmt.Fprintf(stdout, "  %-16s %s: not loadable (%v)\n      %s\n      fetch: %s\n", l.Name, dir, st.Err, l.What, fetch)
		case len(st.MissingDBs) > 0:
			found++
			fmt.Fprintf(stdout, "  %-16s %s: %d questions, databases %d present, %d missing (%s)\n      %s\n      fetch: %s\n",
				l.Name, dir, st.Questions, st.PresentDBs, len(st.MissingDBs), abbreviate(st.MissingDBs, 6), l.What, fetch)
			if st.PresentDBs == 0 {
				fmt.Fprintf(stdout, "      none of its databases opens: give --data the benchmark's top folder, the one whose layout scripts/DATASETS.md shows (for BIRD the folder holding dev/, mini_dev/ and dev_databases/)\n")
			}
		default:
			found++
			fmt.Fprintf(stdout, "  %-16s %s: %d questions, all %d databases present\n      %s\n", l.Name, dir, st.Questions, st.PresentDBs, l.What)
		}
		if l.Name == "logiccat-sqlite" && st.Err == nil {
			dumps, _ := filepath.Glob(filepath.Join(dir, "mysql", "database", "*.sql"))
			if len(dumps) > 0 {
				fmt.Fprintf(stdout, "  %-16s %s: %d MySQL dumps; import them with t2sbench datasets load-mysql --data %s (README, LogicCat on MariaDB/MySQL)\n",
					"logiccat", filepath.Join(dir, "mysql", "database"), len(dumps), dir)
			} else {
				fmt.Fprintf(stdout, "  %-16s no MySQL dumps in %s; fetch: scripts/fetch-datasets.sh %s logiccat\n", "logiccat", filepath.Join(dir, "mysql", "database"), filepath.Dir(dir))
			}
		}
	}
	fmt.Fprintln(stdout, "  mini             testdata/mini (bundled, always available)")
	if found == 0 {
		return fmt.Errorf("datasets list: %s holds no benchmark: want a data directory with spider/, bird/, archer/ or logiccat/ (or one of those folders); fetch them with scripts/fetch-datasets.sh %s", root, root)
	}
	return nil
}

// abbreviate joins the first n names and counts the rest.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// datasetsVerify checks a data folder against the SHA-256 sums recorded
// for a benchmark (datasets.VerifyChecksums): any mismatch, or a recorded
// file that is absent, is an error (exit status 1) naming the files.
func datasetsVerify(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("datasets verify", "--benchmark NAME DIR", stderr)
	name := fs.String("benchmark", "", "benchmark whose recorded sums to check (spider, bird, bird-minidev, bird-dev-2023-05, archer, logiccat, logiccat-sqlite)")
	allowAbsent := fs.Bool("allow-absent", false, "report recorded files that are absent without failing (a partial download)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *name == "" || fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: datasets verify takes --benchmark NAME and one data directory", errUsage)
	}
	dir := fs.Arg(0)
	fam, files, err := datasets.VerifyChecksums(*name, dir)
	if err != nil {
		return err
	}
	if fam == "" {
		return fmt.Errorf("%w: no checksums are recorded for benchmark %q", errUsage, *name)
	}
	var bad, absent []string
	ok := 0
	for _, f := range files {
		switch f.Status {
		case "ok":
			ok++
		case "absent":
			absent = append(absent, f.Path)
		default:
			bad = append(bad, f.Path)
			fmt.Fprintf(stdout, "MISMATCH %s\n  want %s\n  got  %s\n", f.Path, f.Want, f.Got)
		}
	}
	fmt.Fprintf(stdout, "%s (%s): %d of %d recorded files verified, %d mismatched, %d absent; files without a recorded sum are not checked\n",
		dir, fam, ok, len(files), len(bad), len(absent))
	if len(bad) > 0 {
		return fmt.Errorf("%s: %d files do not match the recorded SHA-256 sums: %s", dir, len(bad), abbreviate(bad, 5))
	}
	if len(absent) > 0 && !*allowAbsent {
		return fmt.Errorf("%s: %d recorded files are absent: %s", dir, len(absent), abbreviate(absent, 5))
	}
	return nil
}

func datasetsLoadMySQL(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("datasets load-mysql", "[--benchmark logiccat] --data DIR [--dsn DSN] [flags]", stderr)
	bench := fs.String("benchmark", "logiccat", "benchmark whose MySQL dumps to import (only logiccat has any)")
	data := fs.String("data", "", "benchmark data directory (dumps in DIR/mysql/database/*.sql)")
	dsn := fs.String("dsn", os.Getenv(mysqlAdminDSNEnv), "admin DSN without password, e.g. root@unix(/tmp/x/sock)/ (default $"+mysqlAdminDSNEnv+", which scripts/mariadb.sh start exports)")
	pwEnv := fs.String("password-env", "", "environment variable holding the admin password (none: the admin account has no password)")
	roUser := fs.String("ro-user", defaultROUser, "create this SELECT-only account, or grant an existing one, SELECT on each imported database; \"\" creates none")
	roPwEnv := fs.String("ro-password-env", "", "environment variable holding the read-only account's password (default: $"+mysqlPasswordEnv+" when set, else, for a new account, a generated password, printed in the export lines); an existing account keeps its password, and the one given is checked by logging in")
	resetRO := fs.Bool("reset-ro-password", false, "set an existing read-only account's password to --ro-password-env's (or a generated one); every other user of the account then needs the new one. Without it an existing account's password is never changed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: datasets load-mysql: unexpected arguments %q (every setting is a flag: t2sbench help datasets)", errUsage, fs.Args())
	}
	if *bench != "logiccat" {
		return fmt.Errorf("%w: --benchmark %q has no MySQL dumps (only logiccat)", errUsage, *bench)
	}
	if *data == "" {
		return fmt.Errorf("%w: datasets load-mysql: --data DIR is required (the LogicCat folder holding mysql/database/*.sql; scripts/fetch-datasets.sh DIR logiccat fetches it)", errUsage)
	}
	if *dsn == "" {
		return fmt.Errorf("%w: datasets load-mysql: --dsn is required, or set %s: eval \"$(scripts/mariadb.sh start)\" starts a private server and sets it", errUsage, mysqlAdminDSNEnv)
	}
	if *resetRO && *roUser == "" {
		return fmt.Errorf("%w: datasets load-mysql: --reset-ro-password needs the account (--ro-user)", errUsage)
	}
	opt := datasets.MySQLImportOptions{
		PasswordEnv: *pwEnv, ROUser: *roUser, ROPasswordEnv: *roPwEnv, ResetROPassword: *resetRO,
		Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) },
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var roDSN string
	// An existing account keeps its password: none is generated for it.
	exists := false
	if *roUser != "" {
		var err error
		if roDSN, err = datasets.ReadOnlyDSN(*dsn, *roUser); err != nil {
			return fmt.Errorf("%w: datasets load-mysql: --dsn: %v", errUsage, err)
		}
		if exists, err = datasets.MySQLUserExists(ctx, *dsn, *pwEnv, *roUser); err != nil {
			return fmt.Errorf("datasets load-mysql: %w", err)
		}
	}
	generated := false
	if *roUser != "" && *roPwEnv == "" {
		switch {
		case os.Getenv(mysqlPasswordEnv) != "":
			opt.ROPasswordEnv = mysqlPasswordEnv
		case exists && !*resetRO:
			// Nothing to set: the account is granted the databases and
			// keeps its password.
		default:
			b := make([]byte, 18)
			if _, err := rand.Read(b); err != nil {
				return fmt.Errorf("datasets load-mysql: generate a password: %w", err)
			}
			opt.ROPassword = base64.RawURLEncoding.EncodeToString(b)
			generated = true
		}
	}
	start := time.Now()
	imps, err := datasets.ImportMySQLDumps(ctx, *dsn, filepath.Join(*data, "mysql", "database"), opt)
	var pwErr *datasets.ROPasswordError
	if errors.As(err, &pwErr) {
		return asUsage(fmt.Errorf("datasets load-mysql: %w", err))
	}
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
	fmt.Fprintf(stderr, "%d databases (%d loaded now, %d already present), %d tables, %d rows in %s\n",
		len(imps), loaded, len(imps)-loaded, tables, rows, time.Since(start).Round(time.Millisecond))
	if *roUser == "" {
		return nil
	}
	// stdout holds only export lines, so that eval "$(...)" sets them.
	kept := exists && !*resetRO
	if kept && opt.ROPasswordEnv == "" {
		fmt.Fprintf(stdout, "export %s=%s\n", mysqlDSNEnv, shellQuote(roDSN))
		return asUsage(fmt.Errorf("datasets load-mysql: the read-only account %s already exists on this server, so its password was left unchanged (its other users keep logging in) and is not printed; "+
			"the databases are imported and granted to it. Give scoring its password: export %s='<its password>' before eval (or eval --mysql-password-env VAR naming the variable that holds it); "+
			"running load-mysql with %s set, or with --ro-password-env VAR, checks that it logs in and prints both export lines. "+
			"To give the account a new password instead, pass --reset-ro-password (every other user of the account then needs the new one)",
			*roUser, mysqlPasswordEnv, mysqlPasswordEnv))
	}
	if kept {
		fmt.Fprintf(stderr, "read-only account %s already exists; its password is unchanged (the one in $%s logs in as it)\n", *roUser, opt.ROPasswordEnv)
	}
	fmt.Fprintf(stderr, "read-only account %s: scoring uses it; eval this command's output, or export:\n", *roUser)
	fmt.Fprintf(stdout, "export %s=%s\n", mysqlDSNEnv, shellQuote(roDSN))
	switch {
	case generated:
		fmt.Fprintf(stdout, "export %s=%s\n", mysqlPasswordEnv, shellQuote(opt.ROPassword))
	case opt.ROPasswordEnv != mysqlPasswordEnv:
		fmt.Fprintf(stdout, "export %s=\"$%s\"\n", mysqlPasswordEnv, opt.ROPasswordEnv)
	default:
		fmt.Fprintf(stdout, "export %s=\"$%s\"   # already set\n", mysqlPasswordEnv, mysqlPasswordEnv)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// openBenchmark is datasets.Open for a command (cmd names it in errors)
// that takes --data. A data folder the benchmark does not load from, but
// whose subfolder does (datasets.LocateData: --data /data for
// /data/spider), is a usage error naming the folder to pass; any other
// missing file points to `datasets list`, which says what a folder holds.
func openBenchmark(cmd, name, data string, opt datasets.LoadOptions) (*datasets.Benchmark, error) {
	b, err := datasets.Open(name, data, opt)
	if err == nil {
		return b, nil
	}
	if data == "" || !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	if fix := datasets.LocateData(name, data, opt); fix != "" {
		sub := fix
		if rel, err := filepath.Rel(data, fix); err == nil {
			sub = rel
		}
		return nil, asUsage(fmt.Errorf("%s: %w\n  %s is not the data folder of %s, but %s/ inside it is: pass --data %s", cmd, err, data, name, sub, fix))
	}
	return nil, fmt.Errorf("%s: %w\n  t2sbench datasets list --data %s shows what that folder holds and what to fetch", cmd, err, data)
}
