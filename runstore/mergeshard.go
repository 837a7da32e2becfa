package runstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
	counts, err := mergeShardMeta(dst, r, totals)
	if err != nil {
		return err
	}
	eps, err := readEndpointStats(src.db)
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	// Endpoint counters of shards add up.
	if err := dst.AddEndpointStats(eps); err != nil {
		return err
	}
	if err := copyShardItems(dst, src.db, s, earlier, counts, st); err != nil {
		return err
	}
	if err := dst.AddIntegrity(counts); err != nil {
		return err
	}
	return copyShardCalls(dst, dir, src.db)
}

// mergeShardMeta adds the meta of shard r to dst's: item totals add up
// (totals holds the sums so far), the shard's integrity counts are
// returned for AddIntegrity, and the keys Merge writes itself are left
// out.
func mergeShardMeta(dst *Store, r *RunData, totals map[string]int) (map[string]int, error) {
	meta := map[string]string{}
	counts := map[string]int{}
	for k, v := range r.Meta {
		switch {
		case strings.HasPrefix(k, "items:"):
			// Sources hold disjoint slices: totals add up.
			n, _ := strconv.Atoi(v)
			meta[k] = strconv.Itoa(n + totals[k])
			totals[k] = n + totals[k]
		case isIntegrityKey(k):
			// Damage found in each shard adds up (AddIntegrity).
			counts[k], _ = strconv.Atoi(v)
		case k == MetaShards, k == MetaMergedFrom, k == MetaLimit:
			// Merge writes the shards and sources of the joined store.
		case k != "simulated" || v == "1":
			meta[k] = v
		}
	}
	return counts, dst.SetMeta(meta)
}

// copyShardItems copies the items of shard s (database src) of the
// trials it records into dst. A finished item whose stored outcome fails
// its checksum is left out, counted in st and counts; an item dst already
// holds refuses the merge.
func copyShardItems(dst *Store, src *sql.DB, s *mergeSource, earlier []*mergeSource, counts map[string]int, st *MergeStats) error {
	dir, r := s.dir, s.head
	known := map[string]bool{}
	for _, t := range r.Trials {
		known[t.ID] = true
	}
	resultCol, err := resultColumn(src, "items")
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	digestCol := `NULL`
	if ok, err := hasColumn(src, "items", "digest"); err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	} else if ok {
		digestCol = `digest`
	}
	sumCol, err := sumColumn(src, "items")
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	rows, err := src.Query(`SELECT trial_id, question_id, idx, status, correct, verdict, error_class, error, attempts, started, wall_ms, session, ` +
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
		stored, digest, err := mergedResult(result, digest)
		if err != nil {
			return fmt.Errorf("store %s: item %s/%s result: %w", dir, it.TrialID, it.QuestionID, err)
		}
		var c any
		if correct.Valid {
			c = correct.Int64
		}
		// The items join the joined store's open batch (see
		// BatchItems), which the next durable write commits: the
		// store is renamed into place only once it is whole.
		err = dst.writeItem(func(tx *sql.Tx) error {
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
	return nil
}

// mergedResult returns the stored form of a shard item's result (nil
// when it has none), compressed as the store writes it, and its digest,
// derived from the result when the shard's layout kept none.
func mergedResult(result, digest []byte) (stored any, _ []byte, err error) {
	if result == nil {
		return nil, digest, nil
	}
	if !bytes.HasPrefix(result, resultMagic) {
		raw, err := storedJSON(result)
		if err != nil {
			return nil, nil, err
		}
		if result, err = compressJSON(raw); err != nil {
			return nil, nil, err
		}
	}
	if digest == nil {
		d, err := digestFromResult(result)
		if err != nil {
			return nil, nil, err
		}
		if digest, err = json.Marshal(d); err != nil {
			return nil, nil, err
		}
	}
	return result, digest, nil
}

// copyShardCalls copies the whole call log of the shard in dir (database
// src) into dst in batches, a transaction each: every row, answered,
// failed or left in flight, once.
func copyShardCalls(dst *Store, dir string, src *sql.DB) error {
	ir, err := newItemReader(dir, src)
	if err != nil {
		return err
	}
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
