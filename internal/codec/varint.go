package codec

import (
	"encoding/binary"
	"errors"
)

// ErrTruncated is a Decoder's error when its input ends inside a field or
// a length exceeds what is left.
var ErrTruncated = errors.New("truncated value")

// Encoder appends fields to B: integers as (zigzag) varints
// (encoding/binary), byte strings as a uvarint length and the bytes.
type Encoder struct{ B []byte }

// Uint appends v as a uvarint.
func (e *Encoder) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Int appends v as a varint.
func (e *Encoder) Int(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Str appends s as its length (uvarint) and its bytes.
func (e *Encoder) Str(s string) {
	e.Uint(uint64(len(s)))
	e.B = append(e.B, s...)
}

// Decoder reads Encoder's fields from B, which it advances. The first
// failure sticks: Err is ErrTruncated, B is emptied, and every later read
// returns the zero value.
type Decoder struct {
	B   []byte
	Err error
}

// Fail marks the input malformed, as a failed read does: for a decoder
// of a format whose fields constrain each other.
func (d *Decoder) Fail() {
	d.Err = ErrTruncated
	d.B = nil
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.Err != nil || len(d.B) == 0 {
		d.Fail()
		return 0
	}
	c := d.B[0]
	d.B = d.B[1:]
	return c
}

// Uint reads a uvarint.
func (d *Decoder) Uint() uint64 {
	if d.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Int reads a varint.
func (d *Decoder) Int() int64 {
	if d.Err != nil {
		return 0
	}
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Bytes reads a byte string; the result shares B's memory (with its
// capacity cut to its length).
func (d *Decoder) Bytes() []byte {
	n := d.Uint()
	if d.Err != nil || n > uint64(len(d.B)) {
		d.Fail()
		return nil
	}
	s := d.B[:n:n]
	d.B = d.B[n:]
	return s
}

// Str reads a byte string as a string.
func (d *Decoder) Str() string { return string(d.Bytes()) }

// Count reads a length whose elements take at least min bytes each and
// must fit in what is left, so that a corrupt value cannot make a huge
// allocation.
func (d *Decoder) Count(min int) int {
	n := d.Uint()
	if d.Err == nil && n > uint64(len(d.B)/min) {
		d.Fail()
	}
	if d.Err != nil {
		return 0
	}
	return int(n)
}
