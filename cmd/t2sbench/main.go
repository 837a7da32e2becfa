// Command t2sbench runs, scores and compares Text-to-SQL methods.
//
// Usage:
//
//	t2sbench <command> [flags]
//
// Run `t2sbench help` for the list of commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	_ "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/suggest"
	"github.com/t2sbench/t2sbench/runstore"
)

// command is one subcommand. Each lives in its own file and registers itself
// in init.
type command struct {
	name    string
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// Exit statuses (README, "Exit codes").
const (
	// exitOK: the command did all it was asked: every item of a run is
	// done and none failed; every question of an eval has a verdict.
	exitOK = 0
	// exitRuntime: a runtime error (store, disk, a benchmark or model that
	// cannot be opened).
	exitRuntime = 1
	// exitUsage: bad flags or arguments (an unknown benchmark name:
	// datasets.ErrUnknownBenchmark; a path holding no run:
	// runstore.ErrNotRunDir), a spec that does not load, or a
	// configuration no retry can fix: an endpoint whose answer has a
	// failure class of outcome llm.OutcomeFatal, auth or not_found (the
	// API key or the model name: bench.ErrRejected), a data folder missing
	// most databases, a spec whose trials differ from those its run
	// directory holds (runstore.ErrSpecChanged), a prediction file whose
	// db_ids are not its questions' (metrics.DBMismatchError).
	exitUsage = 2
	// exitIncomplete: the command finished, but a run has failed or
	// pending items (failure classes of outcome llm.OutcomeRefused or
	// llm.OutcomeTransient, or a runner's own error; also after an
	// interrupt or --max-failures), or an eval left questions without a
	// prediction (--allow-partial).
	exitIncomplete = 3
)

// errUsage marks an error caused by bad command-line usage (exit status 2).
var errUsage = errors.New("usage")

// errIncomplete marks a command that finished with work failed or left
// undone (exit status 3).
var errIncomplete = errors.New("incomplete")

// usageError keeps an error's message and makes it a usage error.
type usageError struct{ err error }

func (e usageError) Error() string   { return e.err.Error() }
func (e usageError) Unwrap() []error { return []error{e.err, errUsage} }
func asUsage(err error) error        { return usageError{err} }
func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage), errors.Is(err, datasets.ErrUnknownBenchmark), errors.Is(err, runstore.ErrNotRunDir):
		return exitUsage
	case errors.Is(err, errIncomplete):
		return exitIncomplete
	}
	return exitRuntime
}

func main() {
	if code := runMain(os.Stdout, os.Stderr, os.Args[1:]); code != exitOK {
		os.Exit(code)
	}
}

// runMain runs the command line args as the t2sbench binary does: a failed
// command's error goes to stderr after "t2sbench: ", and the exit status
// is returned. The CLI golden tests call it in-process.
func runMain(stdout, stderr io.Writer, args []string) int {
	err := run(stdout, stderr, args)
	code := exitCode(err)
	if code != exitOK {
		fmt.Fprintln(stderr, "t2sbench:", err)
	}
	return code
}

func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			switch args[1] {
			case "spec":
				helpSpec(stdout)
				return nil
			case "runners":
				return helpRunners(stdout)
			case "errors":
				helpErrors(stdout)
				return nil
			}
			c, ok := commands[args[1]]
			if !ok {
				usage(stderr)
				return fmt.Errorf("%w: help: unknown command or topic %q%s (topics: spec, runners, errors; commands: t2sbench help)", errUsage, args[1], suggest.Hint(args[1], append([]string{"spec", "runners", "errors"}, commandNames()...)))
			}
			// Asked-for help goes to stdout, so it can be paged or grepped.
			return c.run(stdout, stdout, []string{"-h"})
		}
		usage(stdout)
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return fmt.Errorf("%w: unknown command %q%s (commands: t2sbench help)", errUsage, args[0], suggest.Hint(args[0], commandNames()))
	}
	return c.run(stdout, stderr, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "t2sbench: reproduce and compare Text-to-SQL reasoning methods")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Usage: t2sbench <command> [flags]   (t2sbench help <command> for its flags)")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Commands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Reference:")
	fmt.Fprintln(w, "  t2sbench help spec       every spec key, its default and an example")
	fmt.Fprintln(w, "  t2sbench help runners    each runner's roles, parameters (defaults, ranges) and ablation switches")
	fmt.Fprintln(w, "  t2sbench help errors     the failure classes: causes, retries, what a run does, what to do next")
	fmt.Fprintln(w, "  t2sbench help <command>  a command's flags")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Exit status:")
	fmt.Fprintf(w, "  %d  complete: every run item done, none failed; every eval question scored\n", exitOK)
	fmt.Fprintf(w, "  %d  runtime error (store, disk, benchmark or model setup)\n", exitRuntime)
	fmt.Fprintf(w, "  %d  usage or configuration error (bad flags or arguments: an unknown flag, command, benchmark or\n", exitUsage)
	fmt.Fprintln(w, "     spec key, a spec, run directory or file that does not exist; a spec that does not load, an endpoint")
	fmt.Fprintln(w, "     that rejects the API key or model name (auth: 401, 403; not_found: 404), a data folder missing")
	fmt.Fprintln(w, "     most databases, a spec whose trials differ from those its run directory holds, a prediction")
	fmt.Fprintln(w, "     file whose db_ids are not its questions')")
	fmt.Fprintf(w, "  %d  finished with failed or pending run items (also after an interrupt or --max-failures),\n", exitIncomplete)
	fmt.Fprintln(w, "     or eval questions without a prediction (--allow-partial)")
}

// newFlagSet returns a flag set that writes its usage to stderr and returns
// errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			fmt.Fprintf(stderr, "Usage: t2sbench %s\n\nFlags: none\n", strings.TrimSpace(name+" "+synopsis))
			return
		}
		fmt.Fprintf(stderr, "Usage: t2sbench %s\n\nFlags:\n", strings.TrimSpace(name+" "+synopsis))
		fs.PrintDefaults()
	}
	return fs
}

// parseInterspersed parses fs over args where flags may come before,
// between or after the positional arguments, and returns those in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseOne parses fs over args that hold exactly one positional argument,
// before or after the flags, and returns it; without one, or with more, it
// prints the usage and returns errUsage with want ("run takes one spec
// file").
func parseOne(fs *flag.FlagSet, args []string, want string) (string, error) {
	var arg string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		arg, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	if arg == "" && fs.NArg() == 1 {
		arg = fs.Arg(0)
	} else if fs.NArg() > 0 || arg == "" {
		fs.Usage()
		return "", fmt.Errorf("%w: %s", errUsage, want)
	}
	return arg, nil
}

// parseFlags parses args, mapping usage errors to errUsage; an undefined
// flag is answered with the closest defined one.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		hint := ""
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			name = strings.TrimPrefix(name, "-")
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			if c := suggest.Closest(name, names); c != "" {
				hint = fmt.Sprintf(" (did you mean --%s?)", c)
			}
		}
		return fmt.Errorf("%w: %v%s", errUsage, err, hint)
	}
	return nil
}

// commandNames lists the commands, sorted, as help lists them.
func commandNames() []string { return slices.Sorted(maps.Keys(commands)) }
