// Package checksum is the one checksum of the project's stored entries
// (model-cache samples, gold-cache entries, run-store results): CRC-32C
// (Castagnoli) over a sequence of fields, each behind its length, so that
// no two different sequences of fields share an encoding.
//
// CRC-32C and not a cryptographic hash: it guards against accidental
// damage (a flipped bit, a torn or misdirected write, a file edited by
// hand), not against someone who can write the file, who could as well
// write a matching checksum. It detects every error of up to 32
// consecutive bits and all but one in 2^32 of the others; LevelDB,
// RocksDB, ext4 and iSCSI use it for the same purpose; hash/crc32
// computes it with the SSE 4.2 and ARMv8 CRC instructions; and it takes 4
// bytes a row where SHA-256 takes 32.
//
// Each store keeps a row's checksum in its column sum (Column), added to
// a file made before checksums by AddColumn; its older rows read NULL
// there and are served unverified.
package checksum

import (
	"encoding/binary"
	"hash"
	"hash/crc32"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Hash accumulates the checksum of a sequence of fields. The zero value is
// not ready; use New.
type Hash struct {
	h   hash.Hash32
	buf [binary.MaxVarintLen64]byte
}

// New returns an empty Hash.
func New() *Hash { return &Hash{h: crc32.New(castagnoli)} }

// Bytes adds the field b: its length as a uvarint, then its bytes.
func (h *Hash) Bytes(b []byte) {
	h.h.Write(h.buf[:binary.PutUvarint(h.buf[:], uint64(len(b)))])
	h.h.Write(b)
}

// String adds the field s, as Bytes does.
func (h *Hash) String(s string) { h.Bytes([]byte(s)) }

// Int adds the integer v as a varint (a field of its own fixed meaning,
// without a length).
func (h *Hash) Int(v int64) { h.h.Write(h.buf[:binary.PutVarint(h.buf[:], v)]) }

// Flag adds one byte, 1 for true and 0 for false (for instance whether an
// optional field follows).
func (h *Hash) Flag(b bool) {
	if b {
		h.h.Write([]byte{1})
	} else {
		h.h.Write([]byte{0})
	}
}

// Sum is the checksum of the fields added, as a non-negative int64 (the
// form a SQLite INTEGER column stores).
func (h *Hash) Sum() int64 { return int64(h.h.Sum32()) }

// Check is what a verification of one store found: rows whose checksum
// matches (OK), does not (Mismatch), and rows without a checksum
// (Unchecked: written before checksums, or of a table that has none),
// with the first mismatches named. The model cache, the gold cache and
// the run store report their verification in it.
type Check struct {
	// Store names what was checked ("model cache", "gold cache", "run
	// store") and Path its file.
	Store string `json:"store"`
	Path  string `json:"path"`
	// Missing is true when the file does not exist (nothing was checked).
	Missing   bool `json:"missing,omitempty"`
	OK        int  `json:"ok"`
	Mismatch  int  `json:"mismatch"`
	Unchecked int  `json:"unchecked"`
	// First are the first mismatches (at most MaxListed).
	First []Mismatch `json:"first,omitempty"`
}

// Mismatch names one row that failed its check: its table, its key and
// why.
type Mismatch struct {
	Table  string `json:"table"`
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// MaxListed bounds Check.First.
const MaxListed = 10

// AddMismatch counts a mismatch and names it while fewer than MaxListed
// are named.
func (c *Check) AddMismatch(m Mismatch) {
	c.Mismatch++
	if len(c.First) < MaxListed {
		c.First = append(c.First, m)
	}
}
