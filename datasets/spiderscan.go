package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errSpiderScan is any input scanSpiderFast leaves to scanSpider.
var errSpiderScan = errors.New("not a simple Spider question file")

// spiderScanChunk is how much of the file scanSpiderFast reads at a time.
const spiderScanChunk = 1 << 20

// maxScanDepth bounds the nesting validJSON follows, as encoding/json's
// scanner bounds it (10000): deeper input is left to scanSpider.
const maxScanDepth = 10000

// scanSpiderFast gives what scanSpider gives on r, or an error whenever it
// is not sure to (scanSpider then decides). It reads the file a chunk at a
// time, so that memory stays flat as the file grows, checks that each
// question is valid JSON with its own scanner (validJSON, much faster than
// encoding/json's, which decodes the parse tree "sql" value byte by byte
// through a state machine only to throw it away), and takes db_id, query
// and question from the question's top-level keys. Anything unusual is an
// error, never a guess: a question that is not an object, a key matching a
// field only when case is ignored (encoding/json would take it), a field
// that is not a string, a missing field.
func scanSpiderFast(r io.Reader, limit int) ([]Example, error) {
	return scanSpiderChunks(r, limit, spiderScanChunk)
}

// spiderHardnessBatch is how many questions scanSpiderChunks hands to its
// hardness goroutine at a time.
const spiderHardnessBatch = 64

// scanSpiderChunks is scanSpiderFast reading chunk bytes at a time. The
// hardness of the gold SQL is computed by a second goroutine while the
// file is scanned; any error of either is an error (scanSpider then
// decides which one to report).
func scanSpiderChunks(r io.Reader, limit, chunk int) ([]Example, error) {
	batches := make(chan []Example, 4)
	type result struct {
		out []Example
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		for b := range batches {
			for k := range b {
				if res.err != nil {
					break
				}
				b[k].Difficulty, res.err = SpiderHardness(b[k].GoldSQL)
			}
			res.out = append(res.out, b...)
		}
		done <- res
	}()
	var batch []Example
	err := scanSpiderItems(r, limit, chunk, func(e Example) {
		batch = append(batch, e)
		if len(batch) == spiderHardnessBatch {
			batches <- batch
			batch = nil
		}
	})
	if len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	res := <-done
	if err != nil {
		return nil, err
	}
	if res.err != nil {
		return nil, res.err
	}
	return res.out, nil
}

// scanSpiderItems scans the questions of r, calling keep with each of the
// first limit (0: all) in order, without Difficulty.
func scanSpiderItems(r io.Reader, limit, chunk int, keep func(Example)) error {
	s := &chunkReader{r: r, chunk: chunk, buf: make([]byte, 0, chunk)}
	if c, err := s.next(); err != nil || c != '[' {
		return errSpiderScan
	}
	s.pos++
	for i := 0; ; i++ {
		c, err := s.next()
		if err != nil {
			return errSpiderScan
		}
		if i == 0 && c == ']' {
			s.pos++
			break
		}
		if c != '{' {
			return errSpiderScan
		}
		it, err := s.object()
		if err != nil {
			return err
		}
		if it.DBID == "" || it.Query == "" || it.Question == "" {
			return fmt.Errorf("example %d: missing field", i)
		}
		if limit <= 0 || i < limit {
			keep(Example{ID: strconv.Itoa(i), Index: i, DBID: it.DBID, Question: it.Question, GoldSQL: it.Query})
		}
		if c, err = s.next(); err != nil {
			return errSpiderScan
		}
		s.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return errSpiderScan
		}
	}
	if _, err := s.next(); err != io.EOF {
		return errSpiderScan // trailing data, or a read error
	}
	return nil
}

// chunkReader holds the unread part of a stream in buf[pos:].
type chunkReader struct {
	r     io.Reader
	chunk int
	buf   []byte
	pos   int
	eof   bool
	err   error
}

// more reads another chunk, keeping buf[pos:]; false at the end of the
// stream or on a read error (in err).
func (s *chunkReader) more() bool {
	if s.eof || s.err != nil {
		return false
	}
	n := copy(s.buf, s.buf[s.pos:])
	s.buf, s.pos = s.buf[:n], 0
	if cap(s.buf)-n < (s.chunk+1)/2 {
		grown := make([]byte, n, 2*cap(s.buf))
		copy(grown, s.buf)
		s.buf = grown
	}
	for {
		m, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+m]
		switch {
		case err == io.EOF:
			s.eof = true
			return m > 0
		case err != nil:
			s.err = err
			return m > 0
		case m > 0:
			return true
		}
	}
}

// next skips white space and returns the next byte without consuming it,
// or io.EOF at the end of the stream.
func (s *chunkReader) next() (byte, error) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if !s.more() {
			if s.err != nil {
				return 0, s.err
			}
			return 0, io.EOF
		}
	}
}

// object consumes the question (a JSON object) at pos and returns its
// fields (spiderObjectAt), reading more of the stream while the object
// runs past the end of the buffer.
func (s *chunkReader) object() (spiderItem, error) {
	for {
		end, it, err := spiderObjectAt(s.buf, s.pos)
		if err == nil {
			s.pos = end
			return it, nil
		}
		if err != errShort || !s.more() {
			return spiderItem{}, errSpiderScan
		}
	}
}

// errShort: the value runs past the end of the buffer.
var errShort = errors.New("short")

// validJSON checks the JSON value starting at b[i] (no white space before
// it) and returns the index after it. It accepts exactly what
// encoding/json's scanner accepts (strings may hold any byte but the ASCII
// controls; invalid UTF-8 is accepted, as json.Valid does), and returns
// errShort when b ends inside the value.
func validJSON(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errShort
	}
	if depth > maxScanDepth {
		return 0, errSpiderScan
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, errShort
		}
		if b[i] == closer {
			return i + 1, nil
		}
		for {
			var err error
			if closer == '}' {
				if b[i] != '"' {
					return 0, errSpiderScan
				}
				if i, err = validString(b, i); err != nil {
					return 0, err
				}
				i = skipSpace(b, i)
				if i >= len(b) {
					return 0, errShort
				}
				if b[i] != ':' {
					return 0, errSpiderScan
				}
				i = skipSpace(b, i+1)
			}
			if i, err = validJSON(b, i, depth+1); err != nil {
				return 0, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, errShort
			}
			switch b[i] {
			case closer:
				return i + 1, nil
			case ',':
				i = skipSpace(b, i+1)
				if i >= len(b) {
					return 0, errShort
				}
			default:
				return 0, errSpiderScan
			}
		}
	case c == '"':
		return validString(b, i)
	case c == 't':
		return validWord(b, i, "true")
	case c == 'f':
		return validWord(b, i, "false")
	case c == 'n':
		return validWord(b, i, "null")
	case c == '-' || ('0' <= c && c <= '9'):
		return validNumber(b, i)
	}
	return 0, errSpiderScan
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func validWord(b []byte, i int, w string) (int, error) {
	n := min(len(b)-i, len(w))
	if string(b[i:i+n]) != w[:n] {
		return 0, errSpiderScan
	}
	if n < len(w) {
		return 0, errShort
	}
	return i + len(w), nil
}

// validString checks the string starting at b[i] ('"').
func validString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return 0, errSpiderScan
		case c == '\\':
			if i+1 >= len(b) {
				return 0, errShort
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(b) {
					return 0, errShort
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, errSpiderScan
					}
				}
				i += 5
			default:
				return 0, errSpiderScan
			}
		}
	}
	return 0, errShort
}

// validNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at
// b[i]. A number is never the last byte of a question (its object closes
// after it), so running out of input is errShort.
func validNumber(b []byte, i int) (int, error) {
	digits := func() (int, error) {
		j := i
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j == len(b) {
			return 0, errShort
		}
		if j == i {
			return 0, errSpiderScan
		}
		return j, nil
	}
	var err error
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, errShort
	case b[i] == '0':
		i++
	default:
		if i, err = digits(); err != nil {
			return 0, err
		}
	}
	if i >= len(b) {
		return 0, errShort
	}
	if b[i] == '.' {
		i++
		if i, err = digits(); err != nil {
			return 0, err
		}
	}
	if b[i] == 'e' || b[i] == 'E' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, err = digits(); err != nil {
			return 0, err
		}
	}
	return i, nil
}

// spiderObjectAt checks the JSON object at b[i] ('{') as validJSON does
// and returns the index after it with its db_id, query and question; the
// last of duplicate keys wins, as in encoding/json. It returns errShort
// when b ends inside the object.
func spiderObjectAt(b []byte, i int) (int, spiderItem, error) {
	var it spiderItem
	i = skipSpace(b, i+1)
	if i >= len(b) {
		return 0, it, errShort
	}
	if b[i] == '}' {
		return i + 1, it, nil
	}
	for {
		if b[i] != '"' {
			return 0, it, errSpiderScan
		}
		kend, err := validString(b, i)
		if err != nil {
			return 0, it, err
		}
		key, err := jsonString(b[i:kend])
		if err != nil {
			return 0, it, err
		}
		i = skipSpace(b, kend)
		if i >= len(b) {
			return 0, it, errShort
		}
		if b[i] != ':' {
			return 0, it, errSpiderScan
		}
		i = skipSpace(b, i+1)
		vend, err := validJSON(b, i, 1)
		if err != nil {
			return 0, it, err
		}
		var dst *string
		switch key {
		case "db_id":
			dst = &it.DBID
		case "query":
			dst = &it.Query
		case "question":
			dst = &it.Question
		default:
			for _, f := range spiderFields {
				if strings.EqualFold(key, f) {
					return 0, it, errSpiderScan // encoding/json would match it
				}
			}
		}
		if dst != nil {
			if b[i] != '"' {
				return 0, it, errSpiderScan
			}
			if *dst, err = jsonString(b[i:vend]); err != nil {
				return 0, it, err
			}
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return 0, it, errShort
		}
		switch b[i] {
		case '}':
			return i + 1, it, nil
		case ',':
			i = skipSpace(b, i+1)
			if i >= len(b) {
				return 0, it, errShort
			}
		default:
			return 0, it, errSpiderScan
		}
	}
}

// jsonString decodes a valid JSON string token as encoding/json does.
func jsonString(tok []byte) (string, error) {
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", errSpiderScan
	}
	return s, nil
}
