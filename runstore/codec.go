package runstore

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"

	"github.com/t2sbench/t2sbench/internal/codec"
)

// An item's result (SQL, candidates, trace, usage) is stored in
// table results as its JSON, compressed when it is long: the bytes
// resultMagic and then the JSON in raw DEFLATE (RFC 1951, compress/flate;
// the level is the writer's choice, see compressFastMax, and does not
// change how it decodes). The trace of a search item repeats its prompts,
// schema text and tree node shapes within a few KB, which DEFLATE's 32 KB
// window finds: an Alpha-SQL or IESR item of 60-180 KB of JSON takes 4-11
// KB (measured on a simulated Spider dev run, see scripts/bench-store.sh).
// A result of under compressMin bytes of JSON (a direct or cot item: its
// prompt, one answer and a few counters) is stored as the JSON text
// itself, as rows written before compression hold it (it begins with '{',
// never with resultMagic's NUL byte); decodeResult reads both.
var resultMagic = []byte{0, 'z', '1'}

// compressMin is the length of JSON from which a result is compressed.
// Below it DEFLATE's fixed cost per stream (resetting its hash tables,
// building and writing the block's Huffman codes: tens of microseconds,
// the largest part of storing a small item in a replay from the model
// cache) outweighs the bytes it saves (a 2.6 KB direct item takes 1 KB).
const compressMin = 4096

// compressFastMax is the length of JSON under which a result is
// compressed at flate.BestSpeed rather than the default level. The
// default level clears 640 KB of hash chains for every stream and
// searches them, which costs more than the rest of storing such an item
// (a self-consistency item of 6.6 KB with 8 samples: see
// BenchmarkEncodeItem); BestSpeed does neither. On the results of 4-16 KB
// of a simulated run of the mini benchmark (sc, steinersql, react-dsl,
// alphasql, iesr: 62 results) it writes 11% more bytes than the default
// level (117,941 rather than 106,664, some 180 bytes a result); on longer
// results the default level saves more (BestSpeed writes 15% more on
// those of 16-32 KB, 25-35% more on the search items of 32-180 KB), so
// they keep it.
const compressFastMax = 16 << 10

// resultFlate compresses results of compressFastMax bytes of JSON or more
// and decompresses all of them; resultFlateFast compresses the shorter
// ones (no preset dictionary).
var (
	resultFlate     = codec.NewDeflate(nil, 4)
	resultFlateFast = codec.NewDeflateLevel(nil, flate.BestSpeed, 4)
)

// encodeResult returns the stored form of v's JSON.
func encodeResult(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return compressJSON(raw)
}

// compressJSON returns the stored form of JSON text raw: raw itself when
// it is shorter than compressMin, else raw compressed.
func compressJSON(raw []byte) ([]byte, error) {
	if len(raw) < compressMin {
		return raw, nil
	}
	d := resultFlate
	if len(raw) < compressFastMax {
		d = resultFlateFast
	}
	var buf bytes.Buffer
	buf.Grow(len(raw)/4 + 64)
	buf.Write(resultMagic)
	if err := d.Compress(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// storedJSON returns the JSON text of a stored result: b itself when it
// was written before compression, else b inflated.
func storedJSON(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, resultMagic) {
		if len(b) > 0 && b[0] == 0 {
			return nil, fmt.Errorf("unknown result encoding %q", b[:min(len(b), 3)])
		}
		return b, nil
	}
	out, err := resultFlate.Decompress(b[len(resultMagic):])
	if err != nil {
		return nil, fmt.Errorf("inflate result: %w", err)
	}
	return out, nil
}

// decodeResult decodes a stored result (compressed or not) into v.
func decodeResult(b []byte, v any) error {
	raw, err := storedJSON(b)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
