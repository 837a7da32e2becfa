package codec

import (
	"bytes"
	"compress/flate"
	"errors"
	"strings"
	"testing"
)

func TestDeflateRoundTrip(t *testing.T) {
	dict := []byte("SELECT COUNT(*) FROM ")
	for _, d := range []*Deflate{NewDeflate(nil, 1), NewDeflate(dict, 1)} {
		for _, src := range []string{"", "x", strings.Repeat("SELECT COUNT(*) FROM singer; ", 200)} {
			var buf bytes.Buffer
			if err := d.Compress(&buf, []byte(src)); err != nil {
				t.Fatal(err)
			}
			got, err := d.Decompress(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != src {
				t.Errorf("round trip of %d bytes: got %d bytes", len(src), len(got))
			}
		}
	}
	if _, err := NewDeflate(nil, 1).Decompress([]byte{0xff, 0xff}); err == nil {
		t.Error("Decompress of garbage: got no error")
	}
}

func TestVarintRoundTrip(t *testing.T) {
	var e Encoder
	e.Uint(300)
	e.Int(-7)
	e.Str("héllo")
	e.Uint(2)
	d := Decoder{B: e.B}
	if got := d.Uint(); got != 300 {
		t.Errorf("Uint: got %d; want 300", got)
	}
	if got := d.Int(); got != -7 {
		t.Errorf("Int: got %d; want -7", got)
	}
	if got := d.Str(); got != "héllo" {
		t.Errorf("Str: got %q; want héllo", got)
	}
	if got := d.Count(1); got != 0 || !errors.Is(d.Err, ErrTruncated) {
		t.Errorf("Count(1) of 2 with nothing left: got %d, %v; want 0, ErrTruncated", got, d.Err)
	}
	if got := d.Int(); got != 0 {
		t.Errorf("read after a failure: got %d; want 0", got)
	}
}

func TestDecoderTruncated(t *testing.T) {
	var e Encoder
	e.Str("abcdef")
	d := Decoder{B: e.B[:4]}
	if got := d.Bytes(); got != nil || d.Err == nil {
		t.Errorf("Bytes of a cut string: got %q, %v; want nil, an error", got, d.Err)
	}
	d = Decoder{}
	if d.Byte(); d.Err == nil {
		t.Error("Byte of empty input: got no error")
	}
}

// TestDeflateLevel compresses at a chosen level into a stream that any
// Deflate of the same dictionary decodes, and refuses a level flate has
// not.
func TestDeflateLevel(t *testing.T) {
	src := []byte(strings.Repeat(`{"sql": "SELECT name FROM singer WHERE age > 30", "score": 1}, `, 100))
	fast, def := NewDeflateLevel(nil, flate.BestSpeed, 1), NewDeflate(nil, 1)
	var a, b bytes.Buffer
	if err := fast.Compress(&a, src); err != nil {
		t.Fatal(err)
	}
	if err := def.Compress(&b, src); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("BestSpeed and the default level wrote the same stream")
	}
	for _, d := range []*Deflate{fast, def} {
		got, err := d.Decompress(a.Bytes())
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("Decompress of the BestSpeed stream: %d bytes, %v; want the %d bytes written", len(got), err, len(src))
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewDeflateLevel(nil, 10, 1) did not panic")
		}
	}()
	NewDeflateLevel(nil, 10, 1)
}
