package datasets

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/t2sbench/t2sbench"
)

// The bundled mini benchmark lives in testdata/mini at the repository root:
//
//	questions.json          BIRD-format questions (question_id, db_id, question,
//	                        evidence, SQL, difficulty, reasoning_type)
//	databases/<db_id>.sql   one SQL script per database (DDL + INSERTs)
const (
	miniQuestions = "questions.json"
	miniDBDir     = "databases"
)

// BundledMiniDir finds the bundled mini benchmark: testdata/mini in the
// current directory or the nearest parent that has it.
func BundledMiniDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("datasets: mini: %w", err)
	}
	for d := wd; ; {
		cand := filepath.Join(d, "testdata", "mini")
		if st, err := os.Stat(filepath.Join(cand, miniQuestions)); err == nil && st.Mode().IsRegular() {
			return cand, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("datasets: mini: testdata/mini/%s not found in %s or any parent; pass the mini directory explicitly", miniQuestions, wd)
}

// LoadMini loads the mini benchmark from dir. With dir "" it uses the
// testdata/mini of the working tree (BundledMiniDir) when there is one, so
// edits to the scripts take effect, else the copy compiled into the binary
// (t2sbench.MiniFS). Each database is built from databases/<db_id>.sql into
// <CacheDir>/<content hash>/<db_id>/<db_id>.sqlite, where CacheDir defaults
// to os.UserCacheDir()/t2sbench/mini and the hash covers every script, so an
// edited script gets a fresh build. Files are built under a temporary name
// and renamed into place; dir is never written. Benchmark.Name is "mini",
// its Mode "bird".
func LoadMini(dir string, opt LoadOptions) (*Benchmark, error) {
	if dir == "" {
		d, err := BundledMiniDir()
		if err != nil {
			// No working tree: the built-in copy is the normal source, so
			// its error (a cache directory that cannot be written, a full
			// disk) is the cause to report, not the missing testdata/mini.
			return LoadMiniFS(t2sbench.MiniFS(), "(built-in mini benchmark)", opt)
		}
		dir = d
	}
	b, err := LoadMiniFS(os.DirFS(dir), dir, opt)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// LoadMiniFS loads the mini benchmark from fsys (questions.json and
// databases/*.sql); name says where fsys comes from in errors and is
// Benchmark.Dir.
func LoadMiniFS(fsys fs.FS, name string, opt LoadOptions) (*Benchmark, error) {
	file := path.Join(name, miniQuestions)
	data, err := fs.ReadFile(fsys, miniQuestions)
	if err != nil {
		return nil, fmt.Errorf("datasets: mini: %w", err)
	}
	ex, err := miniQuestionsOf(file, data)
	if err != nil {
		return nil, fmt.Errorf("datasets: mini: %w", err)
	}
	sub, err := fs.Sub(fsys, miniDBDir)
	if err != nil {
		return nil, fmt.Errorf("datasets: mini: %w", err)
	}
	root, err := buildMiniFS(sub, path.Join(name, miniDBDir), opt.CacheDir)
	if err != nil {
		return nil, err
	}
	return &Benchmark{
		Name:     "mini",
		Split:    "dev",
		Dir:      name,
		Mode:     "bird",
		Examples: applyLimit(ex, opt.Limit),
		Engine:   newFileEngine(dirLocator(root), opt.SQLite),
	}, nil
}

// miniParsed holds the examples of the questions.json parsed last, by
// its name and its content's SHA-256: a process that loads mini again
// (each run of a test binary, each iteration of a benchmark) reads the
// file every time and parses it again only when its content changed.
var miniParsed struct {
	mu   sync.Mutex
	file string
	sum  [sha256.Size]byte
	ex   []Example
}

// miniQuestionsOf returns ParseBIRD(file, data), parsed once for the same
// file and content: a copy of the slice, whose examples share their Extra
// maps and ReasoningTypes with every other load's (read-only, as every
// loader's are).
func miniQuestionsOf(file string, data []byte) ([]Example, error) {
	sum := sha256.Sum256(data)
	miniParsed.mu.Lock()
	defer miniParsed.mu.Unlock()
	if miniParsed.ex == nil || miniParsed.file != file || miniParsed.sum != sum {
		ex, err := ParseBIRD(file, data)
		if err != nil {
			return nil, err
		}
		miniParsed.file, miniParsed.sum, miniParsed.ex = file, sum, ex
	}
	return slices.Clone(miniParsed.ex), nil
}

// BuildMiniDatabases builds every <db_id>.sql script of scriptDir into
// <cacheDir>/<hash>/<db_id>/<db_id>.sqlite (cacheDir "" =
// os.UserCacheDir()/t2sbench/mini), skipping files already built for the
// same scripts, and returns <cacheDir>/<hash>.
func BuildMiniDatabases(scriptDir, cacheDir string) (string, error) {
	return buildMiniFS(os.DirFS(scriptDir), scriptDir, cacheDir)
}

// buildMiniFS is BuildMiniDatabases over the *.sql files at the top of
// fsys; name says where they come from in errors.
func buildMiniFS(fsys fs.FS, name, cacheDir string) (string, error) {
	scripts, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return "", fmt.Errorf("datasets: mini: %w", err)
	}
	if len(scripts) == 0 {
		return "", fmt.Errorf("datasets: mini: no *.sql scripts in %s", name)
	}
	sort.Strings(scripts)
	h := sha256.New()
	contents := make([][]byte, len(scripts))
	for i, s := range scripts {
		b, err := fs.ReadFile(fsys, s)
		if err != nil {
			return "", fmt.Errorf("datasets: mini: %w", err)
		}
		contents[i] = b
		fmt.Fprintf(h, "%s\x00%d\x00", s, len(b))
		h.Write(b)
	}
	if cacheDir == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("datasets: mini: no cache directory (set LoadOptions.CacheDir): %w", err)
		}
		cacheDir = filepath.Join(uc, "t2sbench", "mini")
	}
	root := filepath.Join(cacheDir, hex.EncodeToString(h.Sum(nil))[:16])
	for i, s := range scripts {
		id := strings.TrimSuffix(s, ".sql")
		dst := filepath.Join(root, id, id+".sqlite")
		if st, err := os.Stat(dst); err == nil && st.Mode().IsRegular() {
			continue
		}
		if err := buildSQLite(dst, path.Join(name, s), contents[i]); err != nil {
			return "", err
		}
	}
	return root, nil
}

// buildSQLite runs script into a fresh database file and moves it to dst.
func buildSQLite(dst, scriptPath string, script []byte) (err error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("datasets: mini: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.tmp")
	if err != nil {
		return fmt.Errorf("datasets: mini: %w", err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer func() {
		if err != nil {
			os.Remove(tmpName)
		}
	}()
	db, err := sql.Open("sqlite3", "file:"+tmpName+"?_foreign_keys=1")
	if err != nil {
		return fmt.Errorf("datasets: mini: %w", err)
	}
	if _, err := db.Exec(string(script)); err != nil {
		db.Close()
		return fmt.Errorf("datasets: mini: building %s: %w", scriptPath, err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("datasets: mini: %w", err)
	}
	if err := os.Rename(tmpName, dst); err != nil {
		if _, statErr := os.Stat(dst); statErr == nil {
			// Another process built the same content first.
			os.Remove(tmpName)
			return nil
		}
		return fmt.Errorf("datasets: mini: %w", err)
	}
	return nil
}

func init() {
	Register(Kind{
		Names:   []string{"mini"},
		Load:    func(_, dir string, opt LoadOptions) (*Benchmark, error) { return LoadMini(dir, opt) },
		Order:   40,
		Bundled: true,
	})
}
