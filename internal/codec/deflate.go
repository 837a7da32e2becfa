package codec

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
)

// Deflate compresses with raw DEFLATE (RFC 1951, compress/flate at its
// default level unless NewDeflateLevel chose another), against a preset
// dictionary when it has one; any level's output decodes the same way. It keeps
// compressors and decompressors in bounded free lists rather than a
// sync.Pool, which every garbage collection empties: a compressor is about
// 1 MB, whose allocation and clearing cost more than compressing a small
// value. A Deflate is safe for concurrent use.
//
// A dictionary once used to write values must never change, or the values
// compressed with it no longer decode.
type Deflate struct {
	dict    []byte
	level   int
	writers chan *flate.Writer
	readers chan io.ReadCloser
}

// NewDeflate returns a Deflate with preset dictionary dict (nil for none)
// that keeps up to free compressors and as many decompressors.
func NewDeflate(dict []byte, free int) *Deflate {
	return NewDeflateLevel(dict, flate.DefaultCompression, free)
}

// NewDeflateLevel returns a Deflate like NewDeflate's that compresses at
// compress/flate level level. It panics when level is not one of
// compress/flate's.
func NewDeflateLevel(dict []byte, level, free int) *Deflate {
	if level < flate.HuffmanOnly || level > flate.BestCompression {
		panic(fmt.Sprintf("codec: invalid compression level %d", level))
	}
	return &Deflate{
		dict:    dict,
		level:   level,
		writers: make(chan *flate.Writer, free),
		readers: make(chan io.ReadCloser, free),
	}
}

// Compress writes src compressed to buf.
func (d *Deflate) Compress(buf *bytes.Buffer, src []byte) error {
	w := d.writer()
	defer release(d.writers, w)
	w.Reset(buf)
	if _, err := w.Write(src); err != nil {
		return err
	}
	return w.Close()
}

// Decompress returns the bytes compressed in src.
func (d *Deflate) Decompress(src []byte) ([]byte, error) {
	r := d.reader()
	defer release(d.readers, r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(src), d.dict); err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func (d *Deflate) writer() *flate.Writer {
	select {
	case w := <-d.writers:
		return w
	default:
		w, err := flate.NewWriterDict(nil, d.level, d.dict)
		if err != nil {
			panic(err) // only for an invalid level, which NewDeflateLevel refuses
		}
		return w
	}
}

func (d *Deflate) reader() io.ReadCloser {
	select {
	case r := <-d.readers:
		return r
	default:
		return flate.NewReaderDict(bytes.NewReader(nil), d.dict)
	}
}

// release returns x to free list ch unless it is full.
func release[T any](ch chan T, x T) {
	select {
	case ch <- x:
	default:
	}
}
