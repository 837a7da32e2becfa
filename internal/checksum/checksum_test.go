package checksum

import (
	"hash/crc32"
	"testing"
)

// TestCastagnoli: the table is CRC-32C's. Expected value: the check value
// of CRC-32C over "123456789", 0xE3069283 (Koopman's and the CRC
// catalogue's "CRC-32/ISCSI"; RFC 3720, appendix B.4).
func TestCastagnoli(t *testing.T) {
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xE3069283 {
		t.Errorf("CRC-32C(123456789) = %#x; want 0xe3069283", got)
	}
}

// TestFields: a sum is the CRC-32C of the fields' encoding (a length
// before each byte field, a varint for an integer, one byte for a flag),
// so fields that concatenate to the same bytes still differ.
func TestFields(t *testing.T) {
	h := New()
	h.String("ab")
	h.Bytes([]byte("c"))
	h.Int(-1)
	h.Flag(true)
	// "ab" behind its length 2, "c" behind 1, -1 as a zigzag varint (1),
	// true as 1.
	want := int64(crc32.Checksum([]byte{2, 'a', 'b', 1, 'c', 1, 1}, castagnoli))
	if got := h.Sum(); got != want {
		t.Errorf("Sum = %d; want %d", got, want)
	}
	other := New()
	other.String("a")
	other.String("bc")
	other.Int(-1)
	other.Flag(true)
	if other.Sum() == h.Sum() {
		t.Errorf(`fields ("a", "bc") and ("ab", "c") have the same sum %d; want different`, h.Sum())
	}
	if New().Sum() != 0 {
		t.Errorf("the sum of no field = %d; want 0 (CRC-32C of nothing)", New().Sum())
	}
}
