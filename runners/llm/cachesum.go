package llm

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/t2sbench/t2sbench/internal/checksum"
)

// Checksums. Every row of table samples carries, in column sum, the
// CRC-32C (Castagnoli) of all its other columns: request key, first
// sample, model, sample count, samples and request, each length-prefixed
// (sampleRow.sum). A row is verified whenever it is read: one whose
// checksum does not match answers nothing, so its samples are missing and
// the model is asked for them again; the samples asked again replace the
// row, and are counted (CacheStats.Corrupt). A bit flipped on disk thus
// costs a call, never a garbled answer scored as the model's, nor a
// failed item.
//
// The checksum is internal/checksum's: CRC-32C, which guards against
// accidental damage at 4 bytes a row and is computed in hardware, so that
// reading a row costs a fraction of its decompression
// (BenchmarkCacheReadChecksum).
//
// Rows written before checksums (column sum NULL, the column added by
// checksum.AddColumn when such a file is first opened for writing) are
// served unverified, as before; one that does not decode is treated like
// a checksum mismatch (asked again) instead of failing its item. Rows of the first format
// (table responses) carry no checksum either. Paragraphs (the stored
// prompts, read only to display a call) are verified against the
// SHA-256 prefix that already keys them (paragraphHashLen).
//
// `t2sbench cache verify` reads every row (VerifyCache).

// errChecksum marks a row whose checksum does not match its content.
var errChecksum = errors.New("checksum mismatch")

// sampleRow is a row of table samples.
type sampleRow struct {
	rk    []byte
	first int
	model string
	n     int
	v, p  []byte // p nil when NULL
}

// sum is the row's checksum: CRC-32C over its columns, each behind its
// length (p behind a flag saying whether it is NULL), as a non-negative
// int64.
func (r sampleRow) sum() int64 {
	h := checksum.New()
	h.Bytes(r.rk)
	h.Int(int64(r.first))
	h.String(r.model)
	h.Int(int64(r.n))
	h.Bytes(r.v)
	h.Flag(r.p != nil)
	if r.p != nil {
		h.Bytes(r.p)
	}
	return h.Sum()
}

// decode returns the samples the row holds (decodeSamples of its
// unpacked value).
func (r sampleRow) decode() ([]int, []entry, error) {
	payload, err := unpackValue(r.v)
	if err != nil {
		return nil, nil, err
	}
	return decodeSamples(payload, r.model)
}

// VerifyCache reads every row of the model cache file at path, without
// writing to it: each row of table samples against its checksum (a row
// without one counts as unchecked, unless it does not decode), each
// paragraph against its hash, and counts the rows of the first format
// (table responses) as unchecked. A file that does not exist gives a
// checksum.Check with Missing set.
func VerifyCache(ctx context.Context, path string) (checksum.Check, error) {
	out := checksum.Check{Store: "model cache", Path: path}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		out.Missing = true
		return out, nil
	}
	r, err := OpenCacheReader(path)
	if err != nil {
		return out, err
	}
	defer r.Close()
	wrap := func(err error) error { return fmt.Errorf("llm: verify cache %s: %w", path, err) }
	if r.compact {
		if err := r.verifySamples(ctx, &out); err != nil {
			return out, wrap(err)
		}
		if err := r.verifyParagraphs(ctx, &out); err != nil {
			return out, wrap(err)
		}
	}
	if r.old.responses {
		var n int
		if err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM responses`).Scan(&n); err != nil {
			return out, wrap(err)
		}
		out.Unchecked += n
	}
	return out, nil
}

// verifySamples checks every row of table samples.
func (r *CacheReader) verifySamples(ctx context.Context, out *checksum.Check) error {
	rows, err := r.db.QueryContext(ctx, `SELECT rk, first, model, n, v, p, `+checksum.Selected(r.sums)+` FROM samples`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var row sampleRow
		var sum sql.NullInt64
		if err := rows.Scan(&row.rk, &row.first, &row.model, &row.n, &row.v, &row.p, &sum); err != nil {
			return err
		}
		key := fmt.Sprintf("%s samples from %d", hex.EncodeToString(row.rk), row.first)
		switch {
		case sum.Valid && sum.Int64 != row.sum():
			out.AddMismatch(checksum.Mismatch{Table: "samples", Key: key, Reason: errChecksum.Error()})
		case sum.Valid:
			out.OK++
		default:
			if _, _, err := row.decode(); err != nil {
				out.AddMismatch(checksum.Mismatch{Table: "samples", Key: key, Reason: "no checksum, does not decode: " + err.Error()})
			} else {
				out.Unchecked++
			}
		}
	}
	return rows.Err()
}

// verifyParagraphs checks every paragraph (decoding its bases) against
// the hash it is stored under.
func (r *CacheReader) verifyParagraphs(ctx context.Context, out *checksum.Check) error {
	type para struct {
		id   int64
		hash []byte
		v    []byte
	}
	rows, err := r.db.QueryContext(ctx, `SELECT id, hash, v FROM paragraphs ORDER BY id`)
	if err != nil {
		return err
	}
	var ps []para
	for rows.Next() {
		var p para
		if err := rows.Scan(&p.id, &p.hash, &p.v); err != nil {
			rows.Close()
			return err
		}
		ps = append(ps, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range ps {
		key := fmt.Sprintf("paragraph %d", p.id)
		// Bases come from the reader's bounded memory of paragraphs
		// read before (or from the file), as a viewer reads them.
		text, err := r.paragraph(ctx, p.id, p.v, map[int64]string{})
		if err != nil {
			out.AddMismatch(checksum.Mismatch{Table: "paragraphs", Key: key, Reason: "does not decode: " + err.Error()})
			continue
		}
		if h := sha256.Sum256([]byte(text)); string(h[:paragraphHashLen]) != string(p.hash) {
			out.AddMismatch(checksum.Mismatch{Table: "paragraphs", Key: key, Reason: "text does not match its hash"})
			continue
		}
		r.remember(map[int64]string{p.id: text})
		out.OK++
	}
	return nil
}
