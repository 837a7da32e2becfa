package runstore

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/t2sbench/t2sbench/spec"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MetaShards is the meta key listing the shards of the run a store holds
// ("1/3,2/3"; "1/1" for a run without --shard): Run records its --shard,
// Merge the union of its shards'. A store written before it was recorded
// has none.
const MetaShards = "shards"

// MetaLimit is the meta key of the --limit of a run's last session ("0":
// every question), recorded with MetaShards: shards of one run ran the
// same first questions.
const MetaLimit = "limit"

// MetaMergedFrom is the meta key of a store Merge wrote: the JSON list of
// the absolute paths of the run directories it joined. Merging the same
// shards into that store again rebuilds it from them (see Merge).
const MetaMergedFrom = "merged_from"

// mergeTmp is the directory inside the output where Merge builds the
// joined store before renaming it into place.
const mergeTmp = ".merge-tmp"

// ErrMergeRefused is wrapped by every refusal of Merge that comes from its
// arguments: shards of different specs (which also wrap ErrSpecChanged),
// a shard given twice, shards holding the same items, a shard or output
// in use by a running process.
var ErrMergeRefused = errors.New("merge refused")

// mergeRefusal is one refusal of Merge.
type mergeRefusal struct {
	msg   string
	cause error // ErrSpecChanged, a *LockedError, or nil
}

// Error returns the refusal's message.
func (e *mergeRefusal) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrMergeRefused) hold, and errors.Is of the
// cause.
func (e *mergeRefusal) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrMergeRefused}
	}
	return []error{ErrMergeRefused, e.cause}
}

// refuse returns a refusal of Merge with a formatted message.
func refuse(format string, a ...any) error {
	return &mergeRefusal{msg: fmt.Sprintf(format, a...)}
}

// parseShards reads a MetaShards value; ok is false when v is empty or
// not a list of shards.
func parseShards(v string) (out []spec.Shard, ok bool) {
	if v == "" {
		return nil, false
	}
	for _, f := range strings.Split(v, ",") {
		s, err := spec.ParseShard(f)
		if err != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// shardList writes shards as a MetaShards value, sorted, without
// repeats; a whole run absorbs every slice.
func shardList(shards []spec.Shard) string {
	if slices.ContainsFunc(shards, func(s spec.Shard) bool { return s.N <= 1 }) {
		return "1/1"
	}
	sorted := slices.SortedFunc(slices.Values(shards), func(a, b spec.Shard) int {
		return cmp.Or(cmp.Compare(a.N, b.N), cmp.Compare(a.I, b.I))
	})
	names := make([]string, 0, len(sorted))
	for _, s := range slices.Compact(sorted) {
		names = append(names, s.String())
	}
	return strings.Join(names, ",")
}

// RecordSlice adds the shard a run works on to the store's MetaShards and
// records its --limit (MetaLimit), so that Merge can tell two copies of
// one shard, overlapping shards, or shards of runs with another --limit
// apart from the slices of one run.
func (s *Store) RecordSlice(sh spec.Shard, limit int) error {
	return s.write(func(tx *sql.Tx) error {
		var cur string
		err := tx.QueryRow(`SELECT value FROM meta WHERE key = ?`, MetaShards).Scan(&cur)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		list, _ := parseShards(cur)
		return putMeta(tx, map[string]string{MetaShards: shardList(append(list, sh)), MetaLimit: strconv.Itoa(max(limit, 0))})
	})
}

// MergeStats counts what the store Merge wrote holds: trials, items and
// model calls, counted in the joined store itself. Damaged counts finished
// items of the shards whose stored outcome failed its checksum: they are
// not copied (they are pending in the merged store).
type MergeStats struct {
	Trials, Items, Calls, Damaged int
}

// mergeSource is one run directory Merge reads: a shard, or the output's
// own store when Merge adds shards to it.
type mergeSource struct {
	dir    string
	abs    string
	head   *RunData
	shards []spec.Shard // from MetaShards; nil when the store did not record them
	lock   *dirLock
	// sessions counts the sessions of out's store (mergeBase only).
	sessions int
}

// shardNames lists the shards m recorded, as MetaShards does.
func (m *mergeSource) shardNames() string { return shardList(m.shards) }

// Merge joins the stores of shard run directories into the store of out.
// The joined store is built in a directory inside out and renamed onto
// out's store only once complete (synced to disk first), so a merge that
// is killed leaves out as it was, and merging again starts over. It
// streams each shard, one item and one call at a time, copying items,
// results (in their stored form: a result written before compression is
// compressed and digested on the way), the whole call log (the calls of
// items a shard never committed and those left in flight included) and
// the endpoint counters, so its memory does not grow with the shards.
//
// Before writing anything Merge refuses, naming the directory: shards of
// different specs (the same MetaPlan trials), out holding another spec, a
// directory given twice or given as out, shards that recorded the same or
// overlapping slices (MetaShards), and a shard or out that a running
// process holds (its lock). Shards whose items overlap although they
// recorded no slice are refused when the first shared item is found.
//
// When out holds a store Merge wrote from directories all among shards,
// and nothing has written to it since, it is rebuilt from the shards, so
// merging again after resuming a shard brings out up to date. Any other
// store in out is joined with the shards as one more source, under the
// same refusals.
func Merge(out string, shards ...string) (MergeStats, error) {
	var st MergeStats
	if len(shards) == 0 {
		return st, refuse("merge: no shard directory to merge into %s", out)
	}
	srcs, err := openMergeSources(out, shards)
	defer func() {
		for _, s := range srcs {
			s.lock.release()
		}
	}()
	if err != nil {
		return st, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return st, fmt.Errorf("merge: %w", err)
	}
	lock, err := lockDir(out)
	if err != nil {
		var le *LockedError
		if errors.As(err, &le) {
			return st, &mergeRefusal{msg: fmt.Sprintf("merge: output %s: %v", out, err), cause: err}
		}
		return st, err
	}
	defer lock.release()
	base, err := mergeBase(out, srcs)
	if err != nil {
		return st, err
	}
	// The shards' trials are the joined store's spec (out holds no other).
	plan := srcs[0].head.planTrials()
	limit, hasLimit := srcs[0].head.Meta[MetaLimit]
	from := map[string]bool{}
	if base != nil {
		prev, ok := mergedFrom(base.head.Meta)
		if !ok || !pristine(base) {
			prev = append(prev, base.abs)
		}
		for _, d := range prev {
			from[d] = true
		}
		srcs = append([]*mergeSource{base}, srcs...)
	}
	for _, s := range srcs {
		if s != base {
			from[s.abs] = true
		}
	}

	tmp := filepath.Join(out, mergeTmp)
	if err := os.RemoveAll(tmp); err != nil {
		return st, fmt.Errorf("merge: remove the unfinished merge %s: %w", tmp, err)
	}
	dst, err := OpenStore(tmp)
	if err != nil {
		return st, err
	}
	defer os.RemoveAll(tmp)
	defer dst.Close()
	totals := map[string]int{}
	for i, s := range srcs {
		if err := mergeShard(dst, s, srcs[:i], totals, &st); err != nil {
			return st, err
		}
	}
	meta := map[string]string{MetaPlan: planIDs(plan)}
	list, known := []spec.Shard{}, true
	for _, s := range srcs {
		known = known && s.shards != nil
		list = append(list, s.shards...)
	}
	if known {
		meta[MetaShards] = shardList(list)
	}
	if hasLimit {
		meta[MetaLimit] = limit
	}
	fromList := make([]string, 0, len(from))
	for d := range from {
		fromList = append(fromList, d)
	}
	slices.Sort(fromList)
	raw, _ := json.Marshal(fromList)
	meta[MetaMergedFrom] = string(raw)
	if err := dst.SetMeta(meta); err != nil {
		return st, err
	}
	if st.Trials, st.Items, st.Calls, err = dst.counts(); err != nil {
		return st, fmt.Errorf("merge: count %s: %w", tmp, err)
	}
	if err := dst.Close(); err != nil {
		return st, fmt.Errorf("merge: close %s: %w", tmp, err)
	}
	if err := replaceStore(tmp, out); err != nil {
		return st, err
	}
	return st, nil
}

// counts returns how many trials, items and model calls the store holds.
func (s *Store) counts() (trials, items, calls int, err error) {
	err = s.db.QueryRow(`SELECT (SELECT count(*) FROM trials), (SELECT count(*) FROM items), (SELECT count(*) FROM model_calls)`).
		Scan(&trials, &items, &calls)
	return trials, items, calls, err
}

// replaceStore moves the complete store of directory tmp onto out's:
// synced, then renamed, then the directory synced. Out's write-ahead log
// was checkpointed into its store (mergeBase), so removing it first loses
// nothing, and a store renamed over it never meets a stale log.
func replaceStore(tmp, out string) error {
	src, dst := filepath.Join(tmp, StoreFile), filepath.Join(out, StoreFile)
	for _, suf := range []string{"-wal", "-journal"} {
		if fi, err := os.Stat(src + suf); err == nil && fi.Size() > 0 {
			return fmt.Errorf("merge: %s%s remains after closing the joined store", src, suf)
		}
	}
	if err := syncFile(src); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	for _, suf := range []string{"-wal", "-shm"} {
		if err := os.Remove(dst + suf); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("merge: %w", err)
		}
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if err := syncFile(out); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return nil
}

// syncFile flushes a file, or a directory's entries, to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

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

// errItemHeld is mergeShard's signal that the joined store already holds
// an item.
var errItemHeld = errors.New("item held by an earlier source")

// heldBy names the earlier source that holds item (trial, question).
func heldBy(earlier []*mergeSource, trial, question string) string {
	for _, s := range earlier {
		src, err := openDB(s.dir, true)
		if err != nil {
			continue
		}
		var n int
		err = src.db.QueryRow(`SELECT count(*) FROM items WHERE trial_id = ? AND question_id = ?`, trial, question).Scan(&n)
		src.db.Close()
		if err == nil && n > 0 {
			return s.dir
		}
	}
	return "an earlier shard"
}

// mergeShard copies one source into dst: trials, meta (item totals and
// integrity counts add up), endpoint counters, items and the whole call
// log. An item dst already holds refuses the merge: the sources overlap.
func mergeShard(dst *Store, s *mergeSource, earlier []*mergeSource, totals map[string]int, st *MergeStats) error {
	dir := s.dir
	src, err := openDB(dir, true)
	if err != nil {
		return err
	}
	defer src.db.Close()
	r := s.head
	if err := dst.PutTrials(r.planTrials()); err != nil {
		return err
	}
	meta := map[string]string{}
	for k, v := range r.Meta {
		switch {
		case strings.HasPrefix(k, "items:"):
			// Sources hold disjoint slices: totals add up.
			n, _ := strconv.Atoi(v)
			meta[k] = strconv.Itoa(n + totals[k])
			totals[k] = n + totals[k]
		case isIntegrityKey(k), k == MetaShards, k == MetaMergedFrom, k == MetaLimit:
			// Damage found in each shard adds up (AddIntegrity below);
			// Merge writes the shards and sources of the joined store.
		case k != "simulated" || v == "1":
			meta[k] = v
		}
	}
	if err := dst.SetMeta(meta); err != nil {
		return err
	}
	counts := map[string]int{}
	for k, v := range r.Meta {
		if isIntegrityKey(k) {
			counts[k], _ = strconv.Atoi(v)
		}
	}
	eps, err := readEndpointStats(src.db)
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	// Endpoint counters of shards add up.
	if err := dst.AddEndpointStats(eps); err != nil {
		return err
	}
	known := map[string]bool{}
	for _, t := range r.Trials {
		known[t.ID] = true
	}
	resultCol, err := resultColumn(src.db, "items")
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	digestCol := `NULL`
	if ok, err := hasColumn(src.db, "items", "digest"); err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	} else if ok {
		digestCol = `digest`
	}
	sumCol, err := sumColumn(src.db, "items")
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	rows, err := src.db.Query(`SELECT trial_id, question_id, idx, status, correct, verdict, error_class, error, attempts, started, wall_ms, session, ` +
		resultCol + `, ` + digestCol + `, ` + sumCol + ` FROM items ORDER BY idx, question_id`)
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		var it Item
		var correct sql.NullInt64
		var verdict, result, digest []byte
		var started, ec, emsg sql.NullString
		var wall sql.NullFloat64
		var sum sql.NullInt64
		if err := rows.Scan(&it.TrialID, &it.QuestionID, &it.Index, &it.Status, &correct, &verdict, &ec, &emsg, &it.Attempts, &started, &wall, &it.Session, &result, &digest, &sum); err != nil {
			return fmt.Errorf("store %s: %w", dir, err)
		}
		if !known[it.TrialID] {
			continue // an item of no trial: readers never show it (its calls are copied, as loose ones)
		}
		o := storedOutcome{trial: it.TrialID, question: it.QuestionID, status: it.Status, correct: correct, verdict: verdict, digest: digest, result: result, sum: sum}
		if ok, _ := o.ok(); !ok && (it.Status == StatusDone || it.Status == StatusFailed) {
			// A damaged outcome is not copied: the item is pending in
			// the merged store, and a run there redoes it.
			st.Damaged++
			counts[MetaResultsRedone]++
			continue
		}
		it.ErrorClass, it.Error, it.WallMS = ec.String, emsg.String, wall.Float64
		if started.Valid {
			it.Started, _ = time.Parse(time.RFC3339Nano, started.String)
		}
		var stored any
		if result != nil {
			if !bytes.HasPrefix(result, resultMagic) {
				raw, err := storedJSON(result)
				if err != nil {
					return fmt.Errorf("store %s: item %s/%s result: %w", dir, it.TrialID, it.QuestionID, err)
				}
				if result, err = compressJSON(raw); err != nil {
					return err
				}
			}
			stored = result
			if digest == nil {
				d, err := digestFromResult(result)
				if err != nil {
					return fmt.Errorf("store %s: item %s/%s result: %w", dir, it.TrialID, it.QuestionID, err)
				}
				if digest, err = json.Marshal(d); err != nil {
					return err
				}
			}
		}
		var c any
		if correct.Valid {
			c = correct.Int64
		}
		// The items join the joined store's open batch (see
		// BatchItems), which the next durable write commits: the
		// store is renamed into place only once it is whole.
		err := dst.writeItem(func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM items WHERE trial_id = ? AND question_id = ?`, it.TrialID, it.QuestionID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return errItemHeld
			}
			return insertItemRow(tx, &it, verdict, stored, digest, c)
		})
		if errors.Is(err, errItemHeld) {
			return refuse("merge: %s and %s both hold question %s of trial %q: they overlap (the same shard twice, or slices of different splits); merge the shards of one --shard i/n split",
				heldBy(earlier, it.TrialID, it.QuestionID), dir, it.QuestionID, trialLabel(r, it.TrialID))
		}
		if err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	rows.Close()
	if err := dst.AddIntegrity(counts); err != nil {
		return err
	}
	ir, err := newItemReader(dir, src.db)
	if err != nil {
		return err
	}
	// Calls go in batches, a transaction each: every row of the call log,
	// answered, failed or left in flight, once.
	const batch = 1000
	var pending []ItemCall
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := dst.write(func(tx *sql.Tx) error {
			for _, c := range pending {
				if err := insertCall(tx, c.TrialID, c.QuestionID, c.Session, c.Call); err != nil {
					return err
				}
			}
			return nil
		})
		pending = pending[:0]
		return err
	}
	err = ir.EachCall(context.Background(), func(c ItemCall) error {
		pending = append(pending, c)
		if len(pending) == batch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// planTrials returns the trials of r, the trials of its spec.
func (r *RunData) planTrials() []*spec.Trial {
	out := make([]*spec.Trial, len(r.Trials))
	for i := range r.Trials {
		out[i] = &r.Trials[i].Trial
	}
	return out
}

// trialLabel is the label of trial id in r, or the id.
func trialLabel(r *RunData, id string) string {
	for _, t := range r.Trials {
		if t.ID == id {
			return t.Label
		}
	}
	return id
}
