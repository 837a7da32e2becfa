package runstore

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Group commit. The writer goroutine keeps one transaction open across
// writes: the finished items (Commit) and the call log's rows (CallStarted,
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

// writeReq is one write for the writer goroutine: fn (nil for a flush),
// run in the open batch; item counts it toward BatchItems; durable commits
// the batch with it; one says that fn runs one statement, which SQLite
// undoes by itself when it fails (no savepoint needed).
type writeReq struct {
	fn      func(tx *sql.Tx) error
	item    bool
	durable bool
	one     bool
	reply   chan error
}

func (s *Store) writer() {
	defer close(s.done)
	var (
		tx    *sql.Tx
		items int
		timer = time.NewTimer(time.Hour)
		// lost is the error that lost a batch (its commit failed, or
		// a write failed in a way that ends SQLite's transaction, such
		// as a full disk), wrapping ErrBatchLost: every later write,
		// Flush and Close fails with it, so that the run stops rather
		// than go on past lost items.
		lost error
	)
	timer.Stop()
	drop := func(err error) error {
		timer.Stop()
		if tx != nil {
			tx.Rollback()
		}
		tx, items = nil, 0
		lost = fmt.Errorf("%w: %w", ErrBatchLost, err)
		return lost
	}
	commit := func() error {
		if tx == nil {
			return nil
		}
		timer.Stop()
		if fn := s.beforeCommit.Load(); fn != nil {
			if err := (*fn)(); err != nil {
				return drop(err)
			}
		}
		err := tx.Commit()
		tx, items = nil, 0
		if err != nil {
			return drop(fmt.Errorf("commit: %w", err))
		}
		s.commits.Add(1)
		return nil
	}
	do := func(r writeReq) error {
		if lost != nil {
			return lost
		}
		if r.fn != nil {
			var err error
			if tx == nil {
				if tx, err = s.db.Begin(); err != nil {
					return err
				}
				timer.Reset(s.batchWait)
			}
			if r.one {
				err = r.fn(tx)
			} else {
				err = savepoint(tx, r.fn)
			}
			if err != nil {
				if endsTx(err) {
					return drop(err)
				}
				return err
			}
			if r.item {
				items++
			}
		}
		if r.durable || items >= s.batchItems {
			if err := commit(); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		select {
		case r, ok := <-s.reqs:
			if !ok {
				if lost != nil {
					s.closeErr = lost
				} else if err := commit(); err != nil {
					s.closeErr = err
				}
				return
			}
			r.reply <- do(r)
		case <-timer.C:
			commit()
		}
	}
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

// write runs fn on the writer goroutine and commits it, with the open
// batch, before it returns.
func (s *Store) write(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, durable: true})
}

// writeItem runs fn, which writes one item, on the writer goroutine in
// the open batch, which a later commit makes durable (see BatchItems); it
// counts as one item of the batch.
func (s *Store) writeItem(fn func(tx *sql.Tx) error) error {
	return s.send(writeReq{fn: fn, item: true})
}

// writeOne runs fn, which runs one statement, on the writer goroutine in
// the open batch, which a later commit makes durable (see BatchItems).
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
	r.reply = make(chan error, 1)
	s.reqs <- r
	if err := <-r.reply; err != nil {
		return fmt.Errorf("store %s: %w", s.dir, err)
	}
	return nil
}

// Close stops the writer, closes the database and releases the run
// directory's lock. Closing twice is harmless.
func (s *Store) Close() error {
	var err error
	if s.reqs != nil {
		close(s.reqs)
		<-s.done
		s.reqs = nil
		if err = s.closeErr; err != nil {
			err = fmt.Errorf("store %s: %w", s.dir, err)
		} else if _, cerr := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); cerr != nil {
			err = fmt.Errorf("store %s: checkpoint: %w", s.dir, cerr)
		}
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	if lerr := s.lock.release(); err == nil {
		err = lerr
	}
	s.lock = nil
	return err
}
