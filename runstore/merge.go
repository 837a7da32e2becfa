package runstore

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/spec"
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
