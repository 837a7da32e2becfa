package t2sbench

import (
	"bufio"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/t2sbench/t2sbench"

// anyProject is the "must not import" entry of a package that imports
// nothing of the project.
const anyProject = "any project package"

// archRow is one row of the package table in docs/ARCHITECTURE.md.
type archRow struct {
	line      int
	forbidden []string // package directories; nil with none
	leaf      bool     // must import nothing of the project
}

// readArchTable reads the package table of docs/ARCHITECTURE.md: package
// directory -> its row.
func readArchTable(t *testing.T) map[string]archRow {
	t.Helper()
	f, err := os.Open(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code := regexp.MustCompile("`([^`]+)`")
	rows := map[string]archRow{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 {
			t.Fatalf("docs/ARCHITECTURE.md:%d: a package row has 3 cells, this one %d", n, len(cells))
		}
		m := code.FindStringSubmatch(cells[0])
		if m == nil {
			t.Fatalf("docs/ARCHITECTURE.md:%d: no package in %q", n, cells[0])
		}
		row := archRow{line: n, leaf: strings.TrimSpace(cells[2]) == anyProject}
		for _, f := range code.FindAllStringSubmatch(cells[2], -1) {
			row.forbidden = append(row.forbidden, f[1])
		}
		if _, dup := rows[m[1]]; dup {
			t.Fatalf("docs/ARCHITECTURE.md:%d: package %s listed twice", n, m[1])
		}
		rows[m[1]] = row
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// projectImports parses the non-test Go files of every package of the
// module: package directory ("." for the root) -> the project packages it
// imports directly, as directories.
func projectImports(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "runs" || name == "deploy") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		deps := pkgs[dir]
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case p == modulePath:
				deps = append(deps, ".")
			case strings.HasPrefix(p, modulePath+"/"):
				deps = append(deps, strings.TrimPrefix(p, modulePath+"/"))
			}
		}
		pkgs[dir] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// closure returns every project package pkg imports, directly or through
// another.
func closure(pkg string, imports map[string][]string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range imports[p] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// TestArchitectureTable holds docs/ARCHITECTURE.md's package table to the
// code: every package of the module has a row, every row is a package,
// and no package imports, directly or not, what its row forbids.
func TestArchitectureTable(t *testing.T) {
	rows := readArchTable(t)
	imports := projectImports(t)
	for pkg := range imports {
		if _, ok := rows[pkg]; !ok {
			t.Errorf("package %s is not in docs/ARCHITECTURE.md's package table", pkg)
		}
	}
	for pkg, row := range rows {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("docs/ARCHITECTURE.md:%d: %s is not a package of the module", row.line, pkg)
			continue
		}
		deps := closure(pkg, imports)
		if row.leaf && len(deps) > 0 {
			t.Errorf("docs/ARCHITECTURE.md:%d: %s must import nothing of the project, imports %v", row.line, pkg, deps)
		}
		for _, f := range row.forbidden {
			if _, ok := imports[f]; !ok && f != pkg {
				t.Errorf("docs/ARCHITECTURE.md:%d: %s forbids %s, which is not a package of the module", row.line, pkg, f)
			}
			if slices.Contains(deps, f) {
				t.Errorf("docs/ARCHITECTURE.md:%d: %s must not import %s, and does (directly or through another package)", row.line, pkg, f)
			}
		}
	}
}

// TestArchitectureClosure checks the import walk itself on a made-up
// graph, so that a table that passes is not passing by a walk that
// finds nothing.
func TestArchitectureClosure(t *testing.T) {
	g := map[string][]string{"a": {"b"}, "b": {"c", "a"}, "c": nil, "d": {"c"}}
	if got := closure("a", g); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("closure(a) = %v, want [a b c]", got)
	}
	if got := closure("c", g); len(got) != 0 {
		t.Errorf("closure(c) = %v, want none", got)
	}
	imports := projectImports(t)
	if deps := closure("bench", imports); !slices.Contains(deps, "runstore") || !slices.Contains(deps, "sqllex") {
		t.Errorf("bench's imports %v should reach runstore and, through datasets, sqllex", deps)
	}
}

// readCommands are the files of cmd/t2sbench that implement the commands
// which only read a finished run (status, report, view, export, merge,
// compare, cache): they reach the store through runstore, never bench.
var readCommands = []string{
	"status.go", "report.go", "reportgold.go", "twogold.go", "view.go",
	"export.go", "merge.go", "compare.go", "comparemetric.go", "cache.go",
}

// TestReadCommandsImportNoBench: the read-only commands' files import no
// bench, and neither do the packages they import.
func TestReadCommandsImportNoBench(t *testing.T) {
	imports := projectImports(t)
	fset := token.NewFileSet()
	for _, name := range readCommands {
		path := filepath.Join("cmd", "t2sbench", name)
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, modulePath+"/") {
				continue
			}
			dep := strings.TrimPrefix(p, modulePath+"/")
			if dep == "bench" || slices.Contains(closure(dep, imports), "bench") {
				t.Errorf("%s imports %s, which is or reaches bench", path, dep)
			}
		}
	}
}
