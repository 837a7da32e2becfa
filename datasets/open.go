package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadOptions configures the loaders.
type LoadOptions struct {
	// Limit keeps only the first Limit examples (file order); 0 keeps all.
	Limit int
	// SpiderDir is the Spider data directory whose database/ folder holds
	// the Archer databases. Default: the sibling "spider" directory of the
	// Archer directory.
	SpiderDir string
	// CacheDir is where LoadMini builds its SQLite files. Default:
	// os.UserCacheDir()/t2sbench/mini.
	CacheDir string
	// SQLite configures the engine the loaders attach to the benchmark.
	SQLite SQLiteOptions
	// MySQL, when set, makes LogicCat run on a MySQL/MariaDB server (see
	// LoadLogicCat) instead of its SQLite files.
	MySQL *MySQLConfig
}

// MissingDBs lists, sorted, the ids of the databases the examples refer to
// that the engine cannot open (Engine.Open fails with ErrMissingDB). All of
// them are missing when Engine is nil.
func (b *Benchmark) MissingDBs() []string {
	seen := map[string]bool{}
	var missing []string
	for _, e := range b.Examples {
		if seen[e.DBID] {
			continue
		}
		seen[e.DBID] = true
		if !b.hasDB(e.DBID) {
			missing = append(missing, e.DBID)
		}
	}
	sort.Strings(missing)
	return missing
}

func (b *Benchmark) hasDB(id string) bool {
	if b.Engine == nil {
		return false
	}
	if h, ok := b.Engine.(interface{ Has(dbID string) bool }); ok {
		return h.Has(id)
	}
	// Engines cache and own the handles they open, so the handle is not
	// closed here.
	_, err := b.Engine.Open(context.Background(), id)
	return !errors.Is(err, ErrMissingDB)
}

// locatedEngine is the engine the file loaders attach: the SQLite engine
// plus Has, so that MissingDBs needs no database opens.
type locatedEngine struct {
	Engine
	locate func(string) (string, bool)
}

// Has reports whether database dbID exists.
func (e *locatedEngine) Has(dbID string) bool {
	_, ok := e.locate(dbID)
	return ok
}

// newFileEngine returns the SQLite engine over locate.
func newFileEngine(locate func(string) (string, bool), opt SQLiteOptions) Engine {
	return &locatedEngine{Engine: NewSQLiteEngine(locate, opt), locate: locate}
}

// dirLocator finds <root>/<db>/<db>.sqlite in the first root that has it.
func dirLocator(roots ...string) func(string) (string, bool) {
	return func(id string) (string, bool) {
		if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
			return "", false
		}
		for _, r := range roots {
			if r == "" {
				continue
			}
			p := filepath.Join(r, id, id+".sqlite")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, true
			}
		}
		return "", false
	}
}

// firstFile returns the first of paths that is a regular file.
func firstFile(paths ...string) (string, error) {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %s exists: %w", strings.Join(paths, ", "), os.ErrNotExist)
}

func applyLimit(ex []Example, limit int) []Example {
	if limit > 0 && limit < len(ex) {
		return ex[:limit]
	}
	return ex
}

// jsonItem is one element of a top-level JSON array with its byte offset.
type jsonItem struct {
	raw   json.RawMessage
	start int64
}

// lineCol converts a byte offset in data to a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	prefix := data[:off]
	line = bytes.Count(prefix, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(prefix, '\n') + 1) + 1
	return line, col
}

// posError formats err as "file:line:col: err" for the byte offset off.
func posError(file string, data []byte, off int64, err error) error {
	l, c := lineCol(data, off)
	return fmt.Errorf("%s:%d:%d: %w", file, l, c, err)
}

// jsonError places a decoding error: syntax and type errors carry the byte
// offset (relative to base) where they happened.
func jsonError(file string, data []byte, base int64, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return posError(file, data, base+se.Offset, err)
	case errors.As(err, &te):
		msg := fmt.Errorf("field %q: cannot use JSON %s as %s: %w", te.Field, te.Value, te.Type, err)
		return posError(file, data, base+te.Offset, msg)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return posError(file, data, int64(len(data)), fmt.Errorf("unexpected end of JSON input: %w", err))
	}
	return posError(file, data, base, err)
}

// splitJSONArray splits a top-level JSON array into its elements, each with
// its byte offset, giving file:line:col errors for malformed input.
func splitJSONArray(file string, data []byte) ([]jsonItem, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(file, data, 0, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, posError(file, data, dec.InputOffset(), fmt.Errorf("want a JSON array of examples, got %v", tok))
	}
	var items []jsonItem
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				// The decoder's syntax offsets count from the start of the stream.
				return nil, posError(file, data, se.Offset, err)
			}
			return nil, jsonError(file, data, dec.InputOffset(), err)
		}
		end := dec.InputOffset()
		items = append(items, jsonItem{raw: raw, start: end - int64(len(raw))})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(file, data, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, posError(file, data, dec.InputOffset(), errors.New("trailing data after the JSON array"))
	}
	return items, nil
}

// decodeItem decodes one array element into v (a pointer to a struct of the
// known fields) and returns the remaining fields for Example.Extra.
func decodeItem(file string, data []byte, it jsonItem, v any, known ...string) (map[string]any, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(it.raw), []byte("{")) {
		return nil, posError(file, data, it.start, errors.New("want a JSON object for each example"))
	}
	if err := json.Unmarshal(it.raw, v); err != nil {
		return nil, jsonError(file, data, it.start, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(it.raw, &all); err != nil {
		return nil, jsonError(file, data, it.start, err)
	}
	for _, k := range known {
		delete(all, k)
	}
	if len(all) == 0 {
		return nil, nil
	}
	extra := make(map[string]any, len(all))
	for k, r := range all {
		var x any
		if err := json.Unmarshal(r, &x); err != nil {
			return nil, jsonError(file, data, it.start, err)
		}
		extra[k] = x
	}
	return extra, nil
}

// requireFields reports the first empty required field of an example.
func requireFields(file string, data []byte, it jsonItem, fields ...[2]string) error {
	for _, f := range fields {
		if f[1] == "" {
			return posError(file, data, it.start, fmt.Errorf("missing or empty field %q", f[0]))
		}
	}
	return nil
}
