package runstore

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Group commit. A Store keeps one transaction open across writes (see
// batch): the finished items (Commit) and the call log's rows (CallStarted,
// CallFinished) of a run are committed together, every BatchItems items or
// BatchWait after the batch's first write, whichever comes first. Any other
// write (meta, trials, plan, Flush) commits the open batch with it. Each
// write runs in a savepoint of the batch, so that one that fails leaves
// the others of its batch as they were.
//
// The writes reach the database in the order they were made, so a batch
// that is lost (the process killed before its commit) is a suffix of the
// run's writes: every committed item has its calls committed before or
// with it, and the item of a committed call row is either committed or
// pending (a loose call, as a run killed mid-item always left). A kill
// loses at most the items and call rows of the open batch; those items
// are pending on resume and run again, their model calls answered from
// the model cache where it holds them. A committed item is never lost and
// never duplicated: resume skips it (ResumeState).
const (
	// BatchItems is the most items one batch commits: a replay from the
	// model cache finishes a few thousand items a second, which BatchWait
	// alone would hold in memory by the thousand; 256 still commits such
	// a run only a dozen times a second (the store's part of
	// BenchmarkReplay is then its statements, not its commits).
	BatchItems = 256
	// BatchWait is the longest a write waits in the open batch: a kill
	// loses at most the work of the last BatchWait (plus the items in
	// flight), and readers (status, view) see a run's items this late at
	// most. Each batch of the store commits the model cache's batch
	// first, whose answers land all over its file (their keys are
	// hashes): on the paper-scale spec's first 100 questions, 2 s wrote
	// half the bytes 0.5 s did.
	BatchWait = 2 * time.Second
	// WALCheckpointPages is the write-ahead log's size, in pages of 4 KiB,
	// past which a commit copies it into the database
	// (wal_autocheckpoint; SQLite's default is 1,000). A larger log
	// copies a page the run writes again and again (the tails of the
	// items and model_calls tables, their indexes) once per checkpoint
	// rather than once per 4 MB of log. Close checkpoints the whole log
	// and truncates it.
	WALCheckpointPages = 8192
)

// ErrBatchLost is the error of every write, Flush and Close of a Store
// after a batch of its writes was lost (its commit failed, the model
// cache's commit before it failed, or a write failed in a way that ends
// SQLite's transaction): the batch's items are pending, and a run stops
// with it rather than go on past them.
var ErrBatchLost = errors.New("a batch of writes was lost")

// writeReq is one write: fn (nil for a flush), run in the open batch;
// item counts it toward BatchItems; durable commits the batch with it;
// one says that fn runs one statement, which SQLite undoes by itself when
// it fails (no savepoint needed).
type writeReq struct {
	fn      func(tx *sql.Tx) error
	item    bool
	durable bool
	one     bool
}

// batch is the open batch of a Store's writes. Its mutex orders the
// writes: each runs, whole, while a caller's goroutine holds the mutex,
// its own or, when it was queued behind another's (Store.locked), that
// one's, in the order the writes were made; the batch's commit BatchWait
// after its first write runs on a timer's goroutine, under the same
// mutex.
type batch struct {
	mu sync.Mutex
	// open is true from OpenStore to Close: a read-only or closed
	// store takes no writes.
	open bool
	// tx is the open batch's transaction (nil when no write is
	// pending), holding items items; gen numbers the batches begun, so
	// that the timer of a committed batch leaves a later one alone.
	tx    *sql.Tx
	items int
	gen   uint64
	timer *time.Timer
	// lost is the error that lost a batch (its commit failed, or a
	// write failed in a way that ends SQLite's transaction, such as a
	// full disk), wrapping ErrBatchLost: every later write, Flush and
	// Close fails with it, so that the run stops rather than go on past
	// lost items.
	lost error
}

// errClosed is the error of a write to a store that is closed or was
// opened read-only.
var errClosed = errors.New("store is closed")

// drop rolls back the open batch, if any, and records err as the error
// that lost it. The caller holds s.w.mu.
func (s *Store) drop(err error) error {
	w := &s.w
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.tx != nil {
		w.tx.Rollback()
	}
	w.tx, w.items = nil, 0
	w.lost = fmt.Errorf("%w: %w", ErrBatchLost, err)
	return w.lost
}

// commit commits the open batch, if any. The caller holds s.w.mu.
func (s *Store) commit() error {
	w := &s.w
	if w.tx == nil {
		return nil
	}
	w.timer.Stop()
	if fn := s.beforeCommit.Load(); fn != nil {
		if err := (*fn)(); err != nil {
			return s.drop(err)
		}
	}
	err := w.tx.Commit()
	w.tx, w.items = nil, 0
	if err != nil {
		return s.drop(fmt.Errorf("commit: %w", err))
	}
	s.commits.Add(1)
	return nil
}

// commitWaited commits batch gen once it waited BatchWait, unless it
// was committed or lost already.
func (s *Store) commitWaited(gen uint64) {
	w := &s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tx != nil && w.gen == gen {
		s.commit()
	}
}

// do runs write r in the open batch. The caller holds s.w.mu.
func (s *Store) do(r writeReq) error {
	w := &s.w
	if w.lost != nil {
		return w.lost
	}
	if !w.open {
		return errClosed
	}
	if r.fn != nil {
		var err error
		if w.tx == nil {
			if w.tx, err = s.db.Begin(); err != nil {
				return err
			}
			w.gen++
			gen := w.gen
			w.timer = time.AfterFunc(s.batchWait, func() { s.commitWaited(gen) })
		}
		if r.one {
			err = r.fn(w.tx)
		} else {
			err = savepoint(w.tx, r.fn)
		}
		if err != nil {
			if endsTx(err) {
				return s.drop(err)
			}
			return err
		}
		if r.item {
			w.items++
		}
	}
	if r.durable || w.items >= s.batchItems {
		return s.commit()
	}
	return nil
}

// endsTx reports whether err, a write's, may have ended SQLite's
// transaction (SQLite rolls back by itself on a full disk, an I/O error,
// a lock or memory failure): any SQLite error but a constraint's, which
// undoes its statement only.
func endsTx(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code != sqlite3.ErrConstraint
}

// savepoint runs fn in a savepoint of tx, rolled back when fn fails.
func savepoint(tx *sql.Tx, fn func(tx *sql.Tx) error) error {
	if _, err := tx.Exec(`SAVEPOINT w`); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		if _, rerr := tx.Exec(`ROLLBACK TO w`); rerr != nil {
			return errors.Join(err, rerr)
		}
		tx.Exec(`RELEASE w`)
		return err
	}
	_, err := tx.Exec(`RELEASE w`)
	return err
}

// write runs fn in the open batch and commits the batch before it
// returns.
func (s *Store) write(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, durable: true})
}

// writeItem runs fn, which writes one item, in the open batch, which a
// later commit makes durable (see BatchItems); it counts as one item of
// the batch.
func (s *Store) writeItem(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, item: true})
}

// writeOne runs fn, which runs one statement, in the open batch, which a
// later commit makes durable (see BatchItems).
func (s *Store) writeOne(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, one: true})
}

// Flush commits the open batch of writes: once it returns, every item and
// call the store was given is on disk (as far as SQLite's synchronous=NORMAL
// in WAL mode makes it: a power loss may still undo the last commits, a
// killed process never does).
func (s *Store) Flush() error {
	return s.send(writeReq{durable: true})
}

func (s *Store) send(r writeReq) error {
	if err := s.locked(r); err != nil {
		return fmt.Errorf("store %s: %w", s.dir, err)
	}
	return nil
}

// locked runs write r holding the store's write lock, s.w.mu, and
// returns its error. The writes of several goroutines are combined: the
// caller that finds no write running takes the lock and runs, after its
// own, every write queued while it ran, in the order they were queued; a
// caller that finds one running queues its write and waits for it. Workers
// that each took the lock in turn would hand it from one to the next, each
// handing waiting for its next holder to be scheduled; one holder runs the
// queued writes back to back.
func (s *Store) locked(r writeReq) error {
	q := &s.q
	q.mu.Lock()
	if q.running {
		wt := waiterPool.Get().(*waiter)
		wt.r = r
		q.waiting = append(q.waiting, wt)
		q.mu.Unlock()
		<-wt.done
		err := wt.err
		*wt = waiter{done: wt.done}
		waiterPool.Put(wt)
		return err
	}
	q.running = true
	q.mu.Unlock()

	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	err := s.do(r)
	var served []*waiter
	for {
		q.mu.Lock()
		if served != nil {
			q.spare = served[:0]
		}
		queued := q.waiting
		if len(queued) == 0 {
			q.running = false
			q.mu.Unlock()
			return err
		}
		q.waiting, q.spare = q.spare, nil
		q.mu.Unlock()
		for i, wt := range queued {
			wt.err = s.do(wt.r)
			wt.done <- struct{}{}
			queued[i] = nil
		}
		served = queued
	}
}

// writeQueue holds the writes that wait while another goroutine's run
// (Store.locked).
type writeQueue struct {
	mu sync.Mutex
	// running is true while a goroutine runs writes; waiting are the
	// writes queued meanwhile, in order; spare is an empty slice, not
	// waiting's, that waiting is swapped with when the running goroutine
	// takes the queued writes.
	running bool
	waiting []*waiter
	spare   []*waiter
}

// waiter is a queued write and, once done is signalled, its error.
type waiter struct {
	r    writeReq
	err  error
	done chan struct{}
}

var waiterPool = sync.Pool{New: func() any { return &waiter{done: make(chan struct{}, 1)} }}

// Close commits the open batch, closes the database and releases the run
// directory's lock. Closing twice is harmless.
func (s *Store) Close() error {
	var err error
	s.w.mu.Lock()
	if s.w.open {
		s.w.open = false
		if err = s.w.lost; err == nil {
			err = s.commit()
		}
		if err != nil {
			err = fmt.Errorf("store %s: %w", s.dir, err)
		} else if _, cerr := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); cerr != nil {
			err = fmt.Errorf("store %s: checkpoint: %w", s.dir, cerr)
		}
	}
	s.w.mu.Unlock()
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	if lerr := s.lock.release(); err == nil {
		err = lerr
	}
	s.lock = nil
	return err
}
