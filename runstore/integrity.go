package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/internal/checksum"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// Checksums of stored results. The row of table results of every finished
// item carries, in column sum, the CRC-32C (Castagnoli) of the item's
// outcome: trial and question ids, status, correct, verdict, digest and
// the stored result, each length-prefixed (itemSum), by internal/checksum
// (CRC-32C, for the reasons given there).
//
// Run verifies every finished item of the store before it resumes
// (Store.ResumeState): an item whose row fails its checksum is turned
// back into a pending item (StatusError, class ClassChecksum) and redone,
// and counted (MetaResultsRedone); Merge leaves such an item of a shard
// out (it stays pending in the merged store) and counts it the same way;
// the viewer's reader (ItemReader.Item) shows it without its result. Items
// stored before checksums (sum NULL; the column is added when such a
// store is opened for writing) are read unverified, as before.
// Summaries and reports, which read verdicts without the results, do not
// verify; `t2sbench cache verify` reads everything (VerifyRun).

// ClassChecksum is the error class of an item whose stored result failed
// its checksum; Run redoes it.
const ClassChecksum = "checksum"

// Integrity meta keys: how many entries of each store a run found damaged
// (failing their checksum, or, stored before checksums, not decoding) and
// replaced. The counts add up over the sessions of a run and over merged
// shards; `run --fresh` clears them with the rest of the run.
const (
	// MetaSamplesReasked counts model samples asked again because their
	// model-cache entry was damaged.
	MetaSamplesReasked = "integrity:model_samples_reasked"
	// MetaGoldsReexecuted counts golds executed again because their
	// gold-cache entry was damaged.
	MetaGoldsReexecuted = "integrity:golds_reexecuted"
	// MetaResultsRedone counts items redone because their stored result
	// was damaged.
	MetaResultsRedone = "integrity:results_redone"
)

// Integrity is what a run's stores were found to hold damaged and
// replaced (see the Meta* integrity keys).
type Integrity struct {
	SamplesReasked, GoldsReexecuted, ResultsRedone int
}

// Any reports whether anything was found damaged.
func (n Integrity) Any() bool { return n.SamplesReasked+n.GoldsReexecuted+n.ResultsRedone > 0 }

// Lines describes the counts, one sentence per store that had damage:
// what the run summary, status and the report print.
func (n Integrity) Lines() []string {
	var out []string
	if n.SamplesReasked > 0 {
		out = append(out, fmt.Sprintf("re-asked %s whose cache entry failed its checksum (the answers used are the model's new ones)", plural(n.SamplesReasked, "model sample")))
	}
	if n.GoldsReexecuted > 0 {
		out = append(out, fmt.Sprintf("re-executed %s whose gold-cache entry failed its checksum", plural(n.GoldsReexecuted, "gold")))
	}
	if n.ResultsRedone > 0 {
		out = append(out, fmt.Sprintf("made %s pending again whose stored result failed its checksum (a run redoes them)", plural(n.ResultsRedone, "item")))
	}
	return out
}

// integrityOf reads the integrity counts from a run's meta.
func integrityOf(meta map[string]string) Integrity {
	n := func(k string) int {
		v, _ := strconv.Atoi(meta[k])
		return v
	}
	return Integrity{SamplesReasked: n(MetaSamplesReasked), GoldsReexecuted: n(MetaGoldsReexecuted), ResultsRedone: n(MetaResultsRedone)}
}

// isIntegrityKey reports whether meta key k is an integrity count (which
// adds up over shards).
func isIntegrityKey(k string) bool { return strings.HasPrefix(k, "integrity:") }

// addCounts adds counts to the meta keys, in transaction tx.
func addCounts(tx *sql.Tx, counts map[string]int) error {
	keys := make([]string, 0, len(counts))
	for k, v := range counts {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER) AS TEXT)`,
			k, strconv.Itoa(counts[k])); err != nil {
			return err
		}
	}
	return nil
}

// AddIntegrity adds integrity counts (by Meta* integrity key) to the
// store's meta, committed (with the open batch) before it returns: a
// damaged entry the run repaired is not met again on resume, so a kill
// must not lose its count.
func (s *Store) AddIntegrity(counts map[string]int) error {
	return s.write(func(tx *sql.Tx) error { return addCounts(tx, counts) })
}

// itemSum is the checksum of a finished item's stored outcome, as a
// non-negative int64: CRC-32C over its ids, status, correct (NULL, 0 or
// 1), verdict, digest and stored result, each behind its length.
func itemSum(trialID, questionID, status string, correct any, verdict, digest, result []byte) int64 {
	h := checksum.New()
	h.String(trialID)
	h.String(questionID)
	h.String(status)
	switch c := correct.(type) {
	case nil:
		h.Bytes(nil)
	case int:
		h.String(strconv.Itoa(c))
	case int64:
		h.String(strconv.FormatInt(c, 10))
	default:
		h.String(fmt.Sprint(c))
	}
	h.Bytes(verdict)
	h.Bytes(digest)
	h.Bytes(result)
	return h.Sum()
}

// migrateResultSum adds results.sum to a store made before checksums;
// its rows read NULL there (unverified).
func migrateResultSum(db *sql.DB) error {
	return checksum.AddColumn(context.Background(), db, "results")
}

// sumColumn is the SQL expression of the checksum of the stored outcome of
// the items row named items (results.sum), or NULL in a store made before
// checksums. A store with results.sum has items.digest too: OpenStore
// adds the digest column before the checksum column.
func sumColumn(db *sql.DB, items string) (string, error) {
	ok, err := hasColumn(db, "results", "sum")
	if err != nil || !ok {
		return `NULL`, err
	}
	return `(SELECT r.sum FROM results r WHERE r.trial_id = ` + items + `.trial_id AND r.question_id = ` + items + `.question_id)`, nil
}

// storedOutcome is a finished item's stored outcome as the store holds
// it, for verification.
type storedOutcome struct {
	trial, question, status string
	correct                 sql.NullInt64
	verdict, digest, result []byte
	sum                     sql.NullInt64
}

// outcomeColumns selects a storedOutcome from items i joined with results r.
const outcomeColumns = `i.trial_id, i.question_id, i.status, i.correct, i.verdict, i.digest, r.result, r.sum`

func (o *storedOutcome) scan(sc interface{ Scan(...any) error }) error {
	return sc.Scan(&o.trial, &o.question, &o.status, &o.correct, &o.verdict, &o.digest, &o.result, &o.sum)
}

// ok reports whether the outcome matches its checksum; checked is false
// for an outcome stored without one.
func (o *storedOutcome) ok() (ok, checked bool) {
	if !o.sum.Valid {
		return true, false
	}
	var correct any
	if o.correct.Valid {
		correct = o.correct.Int64
	}
	return itemSum(o.trial, o.question, o.status, correct, o.verdict, o.digest, o.result) == o.sum.Int64, true
}

// redoDamaged turns the finished items bad (trial and question ids),
// whose stored outcome fails its checksum, back into pending items
// (StatusError, class ClassChecksum; their verdict, digest and result
// removed), so that Run redoes them, and counts them (MetaResultsRedone).
func (s *Store) redoDamaged(bad [][2]string) error {
	if len(bad) == 0 {
		return nil
	}
	return s.write(func(tx *sql.Tx) error {
		for _, b := range bad {
			if _, err := tx.Exec(`UPDATE items SET status = ?, error_class = ?, error = ?, correct = NULL, verdict = NULL, digest = NULL
				WHERE trial_id = ? AND question_id = ?`, StatusError, ClassChecksum,
				"the stored result failed its checksum; the item is redone", b[0], b[1]); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM results WHERE trial_id = ? AND question_id = ?`, b[0], b[1]); err != nil {
				return err
			}
		}
		return addCounts(tx, map[string]int{MetaResultsRedone: len(bad)})
	})
}

// VerifyRun reads, without writing, every entry of run directory dir's
// stores: the model cache and the gold cache of the cache directory the
// run used (its meta's MetaCacheDir, else dir/cache) and the run store,
// each against its checksums. It returns one checksum.Check per store, in
// that order; a cache the run never wrote is reported Missing.
func VerifyRun(ctx context.Context, dir string) ([]checksum.Check, error) {
	st, err := openDB(dir, true)
	if err != nil {
		return nil, err
	}
	defer st.db.Close()
	cacheDir := filepath.Join(dir, "cache")
	var cd string
	switch err := st.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, MetaCacheDir).Scan(&cd); {
	case err == nil && cd != "":
		cacheDir = cd
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	var out []checksum.Check
	mc, err := llm.VerifyCache(ctx, filepath.Join(cacheDir, ModelCacheFile))
	if err != nil {
		return nil, err
	}
	out = append(out, mc)
	gc, err := metrics.VerifyGoldCache(ctx, filepath.Join(cacheDir, "gold"))
	if err != nil {
		return nil, err
	}
	out = append(out, gc)
	rc, err := verifyStore(ctx, st.db, filepath.Join(dir, StoreFile))
	if err != nil {
		return nil, fmt.Errorf("store %s: verify: %w", dir, err)
	}
	return append(out, rc), nil
}

// verifyStore checks every finished item's stored outcome; items of the
// store's older layout (results kept in items.result, or stored before
// checksums) count as unchecked.
func verifyStore(ctx context.Context, db *sql.DB, path string) (checksum.Check, error) {
	out := checksum.Check{Store: "run store", Path: path}
	if _, err := os.Stat(path); err != nil {
		out.Missing = true
		return out, nil
	}
	hasResults := 0
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'results'`).Scan(&hasResults); err != nil {
		return out, err
	}
	sumCol := "NULL"
	if hasResults > 0 {
		ok, err := hasColumn(db, "results", "sum")
		if err != nil {
			return out, err
		}
		if ok {
			sumCol = "r.sum"
		}
	}
	// A store written between table results and items.digest, and not
	// opened for writing since, has no digest: its rows have no checksum
	// either.
	digestCol := "NULL"
	if ok, err := hasColumn(db, "items", "digest"); err != nil {
		return out, err
	} else if ok {
		digestCol = "i.digest"
	}
	q := `SELECT i.trial_id, i.question_id, i.status, i.correct, i.verdict, NULL, NULL, NULL FROM items i WHERE i.status IN ('done', 'failed')`
	if hasResults > 0 {
		q = `SELECT i.trial_id, i.question_id, i.status, i.correct, i.verdict, ` + digestCol + `, r.result, ` + sumCol + ` FROM items i
			LEFT JOIN results r ON r.trial_id = i.trial_id AND r.question_id = i.question_id
			WHERE i.status IN ('done', 'failed') ORDER BY i.trial_id, i.question_id`
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var o storedOutcome
		if err := o.scan(rows); err != nil {
			return out, err
		}
		switch ok, checked := o.ok(); {
		case !checked:
			out.Unchecked++
		case ok:
			out.OK++
		default:
			out.AddMismatch(checksum.Mismatch{Table: "results", Key: "trial " + o.trial + " question " + o.question, Reason: "checksum mismatch"})
		}
	}
	return out, rows.Err()
}
