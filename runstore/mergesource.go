package runstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// openMergeSources checks the shard directories against each other and
// against out, and locks each for the merge (a run cannot start on a
// shard being merged, and a shard being run is refused).
func openMergeSources(out string, dirs []string) ([]*mergeSource, error) {
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	outInfo, _ := os.Stat(out)
	var srcs []*mergeSource
	infos := make([]os.FileInfo, 0, len(dirs))
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return srcs, fmt.Errorf("merge: %w", err)
		}
		fi, err := os.Stat(dir)
		if err == nil {
			_, err = os.Stat(filepath.Join(dir, StoreFile))
		}
		if err != nil {
			return srcs, refuse("merge: shard %s is not a run directory: %v", dir, err)
		}
		if abs == outAbs || (outInfo != nil && os.SameFile(fi, outInfo)) {
			return srcs, refuse("merge: shard %s is the output directory: merge into a new directory", dir)
		}
		for i, p := range infos {
			if os.SameFile(fi, p) {
				return srcs, refuse("merge: shard %s is given twice (also as %s): each shard is merged once", dir, srcs[i].dir)
			}
		}
		infos = append(infos, fi)
		s := &mergeSource{dir: dir, abs: abs}
		srcs = append(srcs, s)
		if s.lock, err = lockShard(dir); err != nil {
			var le *LockedError
			if errors.As(err, &le) {
				return srcs, &mergeRefusal{msg: fmt.Sprintf("merge: shard %s is still being written: %v; merge it once its run has ended", dir, err), cause: err}
			}
			return srcs, err
		}
		if s.head, err = readSourceHead(dir); err != nil {
			return srcs, err
		}
		s.shards, _ = parseShards(s.head.Meta[MetaShards])
	}
	for i, s := range srcs {
		if i > 0 {
			if err := samePlan(srcs[0], s); err != nil {
				return srcs, err
			}
		}
		for _, p := range srcs[:i] {
			if err := overlap(p, s); err != nil {
				return srcs, err
			}
		}
	}
	return srcs, nil
}

// lockShard takes the lock of a shard's directory, shared (other merges
// may read the shard meanwhile, no run may write it), without writing to
// it (a shard may be read-only): the lock file is opened for reading, and
// a directory without one was never run by this version, so no run holds
// it.
func lockShard(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("merge: lock %s: %w", path, err)
	}
	if err := lockFile(f, path, dir, "merge", true); err != nil {
		return nil, err
	}
	return &dirLock{f: f}, nil
}

// readSourceHead reads the meta and trials of a run directory.
func readSourceHead(dir string) (*RunData, error) {
	src, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer src.db.Close()
	r, _, err := readRunHead(src.db, dir, ReadOptions{})
	return r, err
}

// samePlan refuses s when it holds the trials of another spec than ref.
func samePlan(ref, s *mergeSource) error {
	stored := make([]storedTrial, len(ref.head.Trials))
	for i := range ref.head.Trials {
		stored[i] = storedTrial{Trial: ref.head.Trials[i].Trial, seq: int64(i)}
	}
	c := diffPlan(stored, s.head.planTrials())
	if c.Empty() {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "merge: shard %s holds the trials of another spec than shard %s:\n", s.dir, ref.dir)
	writeChangeLines(&b, c.Changes)
	b.WriteString("merge joins the shards of one spec; a run directory holds one spec")
	return &mergeRefusal{msg: b.String(), cause: ErrSpecChanged}
}

// overlap refuses two sources that recorded the same shard, or shards
// that share items, or runs of another --limit.
func overlap(a, b *mergeSource) error {
	la, oka := a.head.Meta[MetaLimit]
	lb, okb := b.head.Meta[MetaLimit]
	if oka && okb && la != lb {
		return refuse("merge: %s ran %s and %s ran %s: shards of one run run the same questions; rerun them with one --limit",
			a.dir, limitText(la), b.dir, limitText(lb))
	}
	for _, x := range a.shards {
		for _, y := range b.shards {
			switch {
			case x == y || (x.N <= 1 && y.N <= 1):
				return refuse("merge: %s and %s both hold shard %s of the run: each shard is merged once", a.dir, b.dir, x)
			case x.Overlaps(y):
				return refuse("merge: %s (shard %s) and %s (shard %s) hold some of the same items: merge the shards of one --shard i/n split", a.dir, a.shardNames(), b.dir, b.shardNames())
			}
		}
	}
	return nil
}

// limitText describes a MetaLimit value.
func limitText(v string) string {
	if v == "0" {
		return "every question (no --limit)"
	}
	return "the first " + v + " questions (--limit " + v + ")"
}

// pristine reports whether a store Merge wrote has not been written since
// (the merge's is its only session).
func pristine(s *mergeSource) bool { return s.sessions == 1 }

// mergedFrom reads MetaMergedFrom.
func mergedFrom(meta map[string]string) ([]string, bool) {
	v, ok := meta[MetaMergedFrom]
	if !ok {
		return nil, false
	}
	var dirs []string
	if err := json.Unmarshal([]byte(v), &dirs); err != nil {
		return nil, false
	}
	return dirs, true
}

// mergeBase decides what becomes of the store out already holds: none, or
// one that Merge wrote from directories all among srcs with nothing
// written since, gives nil (the shards rebuild it); any other is returned
// as a source to join with the shards, after the same checks. Out's
// write-ahead log is first checkpointed into its store (replaceStore
// relies on it).
func mergeBase(out string, srcs []*mergeSource) (*mergeSource, error) {
	if _, err := os.Stat(filepath.Join(out, StoreFile)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	w, err := openDB(out, false)
	if err != nil {
		return nil, err
	}
	base, stored, err := readMergeBase(w, out)
	if cerr := w.db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("merge: close %s: %w", out, cerr)
	}
	if base == nil || err != nil {
		return nil, err
	}
	if c := diffPlan(stored, srcs[0].head.planTrials()); !c.Empty() {
		var b strings.Builder
		fmt.Fprintf(&b, "merge: %s holds the trials of another spec than the shards; the shards' spec differs from it:\n", out)
		writeChangeLines(&b, c.Changes)
		b.WriteString("a run directory holds one spec: merge into a new directory")
		return nil, &mergeRefusal{msg: b.String(), cause: ErrSpecChanged}
	}
	if from, ok := mergedFrom(base.head.Meta); ok && pristine(base) {
		given := map[string]bool{}
		for _, s := range srcs {
			given[s.abs] = true
		}
		all := true
		for _, d := range from {
			all = all && given[d]
		}
		if all {
			return nil, nil
		}
	}
	for _, s := range srcs {
		if err := overlap(base, s); err != nil {
			return nil, refuse("%v (%s is the output: merge into a new directory, or give merge every directory %s was merged from)", err, out, out)
		}
	}
	return base, nil
}

// readMergeBase checkpoints the write-ahead log of store w (the output
// directory out's, open for writing) and reads it as a merge source, with
// its stored trials; an empty store gives nil.
func readMergeBase(w *Store, out string) (*mergeSource, []storedTrial, error) {
	if _, err := w.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, nil, fmt.Errorf("merge: checkpoint %s: %w", out, err)
	}
	sessions, err := w.SessionCount()
	if err != nil {
		sessions = 0 // a store without the table: not one Merge wrote
	}
	head, _, err := readRunHead(w.db, out, ReadOptions{})
	if err != nil {
		return nil, nil, err
	}
	if len(head.Trials) == 0 && len(head.Stale) == 0 {
		var n int
		if err := w.db.QueryRow(`SELECT (SELECT count(*) FROM items) + (SELECT count(*) FROM model_calls)`).Scan(&n); err != nil {
			return nil, nil, err
		}
		if n == 0 {
			return nil, nil, nil // an empty store: nothing to keep
		}
	}
	stored, err := readTrials(w.db)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", out, err)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, nil, fmt.Errorf("merge: %w", err)
	}
	base := &mergeSource{dir: out, abs: abs, head: head, sessions: sessions}
	base.shards, _ = parseShards(head.Meta[MetaShards])
	return base, stored, nil
}
