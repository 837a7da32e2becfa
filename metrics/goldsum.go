package metrics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/t2sbench/t2sbench/internal/checksum"
)

// Checksums of the gold cache. Every entry carries, in column sum, the
// CRC-32C (Castagnoli) of its key and value, each length-prefixed
// (goldSum). An entry is verified when it is read: one that fails (or,
// stored before checksums, does not decode) is executed again, replaced,
// and counted (GoldCache.Corrupt), never served. Entries stored before
// checksums (sum NULL; the column is added when such a file is opened)
// are served unverified, as before. The checksum is internal/checksum's
// (CRC-32C, for the reasons given there).

// errGoldChecksum marks an entry whose checksum does not match.
var errGoldChecksum = errors.New("metrics: gold cache entry fails its checksum")

// goldSum is the checksum of the entry (key, value), as a non-negative
// int64.
func goldSum(key string, value []byte) int64 {
	h := checksum.New()
	h.String(key)
	h.Bytes(value)
	return h.Sum()
}

// goldStored is an entry as the file holds it: its value and checksum
// (NULL for an entry stored before checksums).
type goldStored struct {
	value []byte
	sum   sql.NullInt64
}

// decode verifies the entry stored under key and decodes it.
func (e goldStored) decode(key string) (GoldResult, error) {
	if e.sum.Valid && e.sum.Int64 != goldSum(key, e.value) {
		return GoldResult{}, errGoldChecksum
	}
	return decodeGoldEntry(e.value)
}

// VerifyGoldCache reads every entry of the gold cache in directory dir
// (GoldCacheFile), read-only, and checks it against its checksum and
// decodes it.
func VerifyGoldCache(ctx context.Context, dir string) (checksum.Check, error) {
	path := filepath.Join(dir, GoldCacheFile)
	out := checksum.Check{Store: "gold cache", Path: path}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		out.Missing = true
		return out, nil
	}
	wrap := func(err error) error { return fmt.Errorf("metrics: verify gold cache %s: %w", path, err) }
	db, err := sql.Open("sqlite3", goldURI(path, "mode=ro&_busy_timeout=10000"))
	if err != nil {
		return out, wrap(err)
	}
	defer db.Close()
	sums, err := checksum.HasColumn(ctx, db, "entries")
	if err != nil {
		return out, wrap(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT key, value, `+checksum.Selected(sums)+` FROM entries ORDER BY key`)
	if err != nil {
		return out, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var e goldStored
		if err := rows.Scan(&key, &e.value, &e.sum); err != nil {
			return out, wrap(err)
		}
		_, err := e.decode(key)
		switch {
		case errors.Is(err, errGoldChecksum):
			out.AddMismatch(checksum.Mismatch{Table: "entries", Key: key, Reason: "checksum mismatch"})
		case err != nil && e.sum.Valid:
			out.AddMismatch(checksum.Mismatch{Table: "entries", Key: key, Reason: "does not decode"})
		case err != nil:
			out.AddMismatch(checksum.Mismatch{Table: "entries", Key: key, Reason: "no checksum, does not decode"})
		case e.sum.Valid:
			out.OK++
		default:
			out.Unchecked++
		}
	}
	if err := rows.Err(); err != nil {
		return out, wrap(err)
	}
	return out, nil
}
