package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// envFaultClient fails the requests of the marked questions with err
// while on is set: the error a cache write (or a runner's file write)
// returns when the disk is full, the filesystem read-only or the device
// failing. It is the seam that stands for a full disk in these tests.
type envFaultClient struct {
	llm.Client
	err   error
	marks []string
	on    *atomic.Bool
}

func (c *envFaultClient) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	for _, m := range c.marks {
		if c.on.Load() && strings.Contains(prompt, m) {
			return nil, c.err
		}
	}
	return c.Client.Complete(ctx, req)
}

// TestEnvironmentFailureLeavesPending fails a cache write (or a runner's
// file write) with each environment failure: the run stops with an
// *EnvironmentError naming the path and its free space, no item is
// failed, and once the fault is gone a resume runs every item left.
func TestEnvironmentFailureLeavesPending(t *testing.T) {
	t.Parallel()
	cacheDir := t.TempDir()
	cacheFile := filepath.Join(cacheDir, "llm.db")
	tests := []struct {
		name string
		err  error
	}{
		{"cache disk full (SQLite)", fmt.Errorf("direct: %w", &llm.WriteError{Op: "llm: write cache", Path: cacheFile, Err: sqlite3.Error{Code: sqlite3.ErrFull}})},
		{"cache read-only (SQLite)", &llm.WriteError{Op: "llm: write cache", Path: cacheFile, Err: sqlite3.Error{Code: sqlite3.ErrReadonly}}},
		{"file ENOSPC", fmt.Errorf("steinersql: stats: %w", &fs.PathError{Op: "write", Path: cacheFile, Err: syscall.ENOSPC})},
		{"file EROFS", &fs.PathError{Op: "open", Path: cacheFile, Err: syscall.EROFS}},
		{"file EIO", &fs.PathError{Op: "write", Path: cacheFile, Err: syscall.EIO}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustPlan(t, directFakeSpec)
			var on atomic.Bool
			on.Store(true)
			env, _ := testEnv(20, 1, func(c llm.Client) llm.Client {
				return &envFaultClient{Client: c, err: tt.err, marks: []string{"question number 5?"}, on: &on}
			})
			dir := t.TempDir()
			sum, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond})
			var ee *EnvironmentError
			if !errors.As(err, &ee) {
				t.Fatalf("run: err %v; want an *EnvironmentError", err)
			}
			t.Logf("run stopped: %v", err)
			if ee.Path != cacheFile || ee.Free < 0 || !strings.Contains(err.Error(), cacheFile) || !strings.Contains(err.Error(), " free)") {
				t.Errorf("err %q (path %q, free %d); want one naming %s and its free space", err, ee.Path, ee.Free, cacheFile)
			}
			if sum.Failed != 0 || sum.Errored != 0 || sum.Done != 5 {
				t.Errorf("progress %+v; want 5 done (questions 0-4), none failed or errored", sum.Progress)
			}
			r, err := runstore.ReadRun(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range r.Trials[0].Items {
				if it.Status != runstore.StatusDone {
					t.Errorf("item %s: status %s (%s); want only done items stored", it.QuestionID, it.Status, it.Error)
				}
			}
			on.Store(false) // space freed
			sum2, err := runOnce(t, dir, p, env, Options{RetryWait: time.Millisecond})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if sum2.Total != 15 || sum2.Done != 15 || sum2.Skipped != 5 {
				t.Errorf("resume: progress %+v; want the 15 items left run and done, 5 skipped", sum2.Progress)
			}
		})
	}
}

// TestStoreFullLeavesPending fills the run's store for real: SQLite's
// max_page_count caps the database at its size after the first items,
// so a later write fails with SQLITE_FULL ("database or disk is full"),
// as on a full disk. The run stops with an *EnvironmentError naming the
// store, no item is failed, and a resume without the cap finishes every
// item.
func TestStoreFullLeavesPending(t *testing.T) {
	t.Parallel()
	p := mustPlan(t, directFakeSpec)
	env, _ := testEnv(200, 1, nil)
	dir := t.TempDir()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Run(context.Background(), p, st, env, Options{Limit: 2}); err != nil {
		t.Fatal(err)
	}
	// The store has one connection (openDB): the cap holds for every
	// write of this session.
	if err := st.LimitPages(2); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), p, st, env, Options{RetryWait: time.Millisecond})
	var ee *EnvironmentError
	if !errors.As(err, &ee) {
		t.Fatalf("run: err %v; want an *EnvironmentError", err)
	}
	if want := filepath.Join(dir, runstore.StoreFile); ee.Path != want || !strings.Contains(err.Error(), "database or disk is full") {
		t.Errorf("err %q (path %q); want SQLite's disk-full error naming %s", err, ee.Path, want)
	}
	if sum.Failed != 0 || sum.Errored != 0 || sum.Done >= 200 {
		t.Errorf("progress %+v; want fewer than 200 done, none failed or errored", sum.Progress)
	}
	// The store lost its open batch: it fails every write until it is
	// closed, and a resume opens it again (without the cap, which
	// lived on the closed connection).
	if err := st.Close(); !errors.Is(err, runstore.ErrBatchLost) {
		t.Errorf("close after the failure: %v; want ErrBatchLost", err)
	}
	if st, err = runstore.OpenStore(dir); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum2, err := Run(context.Background(), p, st, env, Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if sum2.Failed != 0 || sum2.Skipped+sum2.Done != 200 || sum2.Done == 0 {
		t.Errorf("resume: progress %+v; want the rest of the 200 items done, none failed", sum2.Progress)
	}
}

// TestReadOnlyStoreDirLeavesPending makes the run directory read-only
// (chmod 0500) while a run writes: SQLite's writes fail with "attempt to
// write a readonly database" or an I/O error, and the run stops with an
// *EnvironmentError. Skipped as root, for whom chmod does not restrict.
func TestReadOnlyStoreDirLeavesPending(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes through chmod 0500; TestStoreFullLeavesPending fills the store for real instead")
	}
	t.Parallel()
	p := mustPlan(t, directFakeSpec)
	env, _ := testEnv(20, 1, nil)
	dir := t.TempDir()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, f := range []string{runstore.StoreFile, runstore.StoreFile + "-wal", runstore.StoreFile + "-shm"} {
		os.Chmod(filepath.Join(dir, f), 0o400)
	}
	os.Chmod(dir, 0o500)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	sum, err := Run(context.Background(), p, st, env, Options{RetryWait: time.Millisecond})
	if sum.Failed != 0 {
		t.Errorf("progress %+v; want none failed", sum.Progress)
	}
	if err == nil {
		t.Skip("the open connection still writes through the read-only directory on this system")
	}
	var ee *EnvironmentError
	if !errors.As(err, &ee) {
		t.Errorf("run: err %v; want an *EnvironmentError", err)
	}
}
