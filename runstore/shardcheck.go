package runstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/t2sbench/t2sbench/spec"
)

// ShardOutside counts the work items the run directory dir holds that
// shard sh does not select (Shard.Has), and its items in all: a shard run
// into a directory holding items of other shards (an unsharded run,
// another shard's, a merge of shards) would find them finished and report
// them as its own, so `run --shard` refuses such a directory. A directory
// without a run holds none.
func ShardOutside(dir string, sh spec.Shard) (outside, total int, err error) {
	if _, err := os.Stat(filepath.Join(dir, StoreFile)); errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	s, err := openDB(dir, true)
	if err != nil {
		return 0, 0, err
	}
	defer s.db.Close()
	rows, err := s.db.Query(`SELECT trial_id, question_id FROM items`)
	if err != nil {
		return 0, 0, fmt.Errorf("store %s: %w", dir, err)
	}
	defer rows.Close()
	for rows.Next() {
		var trial, question string
		if err := rows.Scan(&trial, &question); err != nil {
			return 0, 0, fmt.Errorf("store %s: %w", dir, err)
		}
		total++
		if !sh.Has(trial, question) {
			outside++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("store %s: %w", dir, err)
	}
	return outside, total, nil
}
