package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/t2sbench/t2sbench"
)

// TestMiniBuiltIn checks that the copy of the mini benchmark compiled into
// the binary equals testdata/mini, and that LoadMini("") falls back to it
// outside the repository.
func TestMiniBuiltIn(t *testing.T) {
	cache := t.TempDir()
	dir, err := BundledMiniDir()
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := LoadMini(dir, LoadOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer fromDir.Engine.Close()
	embedded, err := LoadMiniFS(t2sbench.MiniFS(), "(built-in)", LoadOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer embedded.Engine.Close()
	if !reflect.DeepEqual(fromDir.Examples, embedded.Examples) {
		t.Fatal("built-in mini questions differ from testdata/mini")
	}

	t.Chdir(t.TempDir()) // no testdata/mini here or above
	if _, err := BundledMiniDir(); err == nil {
		t.Skip("a testdata/mini exists above the temp dir; cannot test the fallback")
	}
	b, err := LoadMini("", LoadOptions{CacheDir: cache})
	if err != nil {
		t.Fatalf("LoadMini outside the repository: %v", err)
	}
	defer b.Engine.Close()
	if len(b.Examples) != len(fromDir.Examples) {
		t.Fatalf("built-in mini has %d questions; want %d", len(b.Examples), len(fromDir.Examples))
	}
	ex := b.Examples[0]
	db, err := b.Engine.Open(context.Background(), ex.DBID)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := db.Execute(context.Background(), ex.GoldSQL)
	if err != nil || len(rs.Rows) == 0 {
		t.Fatalf("gold of %s on the built-in database: rows %v, err %v", ex.ID, rs, err)
	}
}

// TestMiniBuiltInWriteError is a regression test: when the built-in copy
// could not be unpacked (a full disk), LoadMini("") reported
// "testdata/mini/questions.json not found" first. The write error must be
// the error. A regular file in place of the cache directory makes every
// write fail, as a full disk does, even for root.
func TestMiniBuiltInWriteError(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if _, err := BundledMiniDir(); err == nil {
		t.Skip("a testdata/mini exists above the temp dir; cannot test the fallback")
	}
	_, err := LoadMini("", LoadOptions{CacheDir: filepath.Join(blocker, "cache")})
	if err == nil {
		t.Fatal("LoadMini with an unwritable cache: no error")
	}
	if !errors.Is(err, syscall.ENOTDIR) || strings.Contains(err.Error(), "not found") {
		t.Errorf("err = %q; want the write error (not a directory), without \"not found\"", err)
	}
}
