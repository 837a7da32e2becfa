package llm

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Values of the compact cache tables (samples, paragraphs; see
// Cache) start with a codec byte: the rest of the value is the payload as
// is (codecRaw) or compressed with DEFLATE against a preset dictionary
// (codecFlate1: cacheDict1). A value is stored compressed only when that
// makes it shorter. A new dictionary gets a new codec byte: a dictionary
// once used must never change, or the values compressed with it no longer
// decode (TestCacheDictFrozen).
const (
	codecRaw    byte = 0
	codecFlate1 byte = 1
	// codecDelta1 (table paragraphs only): the text is an edit of a base
	// paragraph: the base's id, how many bytes of the base's start and
	// end it keeps (uvarints), then the bytes between as a value of its
	// own (codec byte and all). A paragraph that extends or edits an
	// earlier one (a search's "reasoning so far" one step longer) costs
	// little more than the difference.
	codecDelta1 byte = 2
)

// maxDeltaChain bounds how many bases reading a paragraph may need.
const maxDeltaChain = 8

// cacheDict1 is the preset dictionary of codecFlate1: text that model
// prompts and answers about SQL databases commonly hold (SQL keywords and
// clauses, schema statements, markdown fences, reasoning phrases, the JSON
// of a request's settings). DEFLATE refers back into it, so even a short
// value that shares a phrase with it compresses. Its later parts are the
// cheapest to refer to, so the most common text comes last. On the
// recorded workload of TestCacheCompactSize the cache file takes 0.44 MB
// with it and 0.52 MB with no dictionary.
const cacheDict1 = `Let me think step by step. First, I need to identify the relevant tables and columns. ` +
	`Okay, so the question is asking for the number of records. Wait, I should check whether the column is nullable. ` +
	`Hmm, let me look at the schema again. Alternatively, we could use a subquery. So the final query would be: ` +
	`Looking at the database schema, the relevant table is The question asks for the To answer this question, we need to ` +
	`join the tables on the foreign key. Therefore, the SQL query is: Here is the SQL query that answers the question: ` +
	`Based on the schema and the evidence, </think>` + "\n\n" +
	`CREATE TABLE IF NOT EXISTS "id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, VARCHAR(255) DEFAULT NULL, ` +
	`REAL, NUMERIC, DATE, DATETIME, BOOLEAN, FOREIGN KEY (` + "`id`" + `) REFERENCES ` + "`" + `table` + "`" + ` (id) ON DELETE CASCADE,` + "\n" +
	`Primary Key, Examples: [, Foreign Key, Column Description, Value Description, Database schema: Table: Columns: ` +
	"\n" + `Question: Evidence: Hint: External knowledge: Answer the question with a single SQL query. ` +
	`You are an expert in SQL. Given the database schema and the question, write a SQLite query that answers it. ` +
	`Only output the SQL query, without any explanation. Return the answer in the following JSON format: ` +
	`{"tables": [{"table": "", "columns": []}], "columns": [{"column": "", "meaning": ""}], "reasoning": "", "answer": "", "sql": ""}` + "\n" +
	`{"doc":{"v":1,"ident":{"backend":"openai","base_url":"http://localhost:8000/v1","model":""},"role":"reason",` +
	`"messages":null,"temperature":0,"top_p":0,"max_tokens":0,"stop":null,"seed":null,"answer":"sql","schema":null,` +
	`"schema_name":"","responder":""}}` + "\n" +
	`SELECT COUNT(*) FROM WHERE IS NOT NULL AND OR LIKE '%' BETWEEN IN (SELECT DISTINCT MAX( MIN( AVG( SUM( CAST( AS REAL) ` +
	`CASE WHEN THEN ELSE END LEFT JOIN INNER JOIN GROUP BY HAVING COUNT(DISTINCT ORDER BY DESC LIMIT 1 ASC ` +
	`UNION EXCEPT INTERSECT WITH AS T1 JOIN AS T2 ON T1.id = T2.id WHERE T1.name = '` + "\n" +
	"```sql\nSELECT T1.name FROM "

// flateWriters and flateReaders keep DEFLATE state between values (a
// writer allocates about 1 MB): free lists, which unlike a sync.Pool a
// garbage collection does not empty.
var (
	flateWriters = make(chan *flate.Writer, 8)
	flateReaders = make(chan io.ReadCloser, 8)
)

func getWriter() *flate.Writer {
	select {
	case w := <-flateWriters:
		return w
	default:
		w, err := flate.NewWriterDict(nil, flate.DefaultCompression, []byte(cacheDict1))
		if err != nil {
			panic(err) // only for an invalid level
		}
		return w
	}
}

func getReader() io.ReadCloser {
	select {
	case r := <-flateReaders:
		return r
	default:
		return flate.NewReaderDict(bytes.NewReader(nil), []byte(cacheDict1))
	}
}

// release returns x to free list ch unless it is full.
func release[T any](ch chan T, x T) {
	select {
	case ch <- x:
	default:
	}
}

// packValue returns the stored form of payload: compressed when that is
// shorter, behind its codec byte.
func packValue(payload []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(payload)/2 + 16)
	buf.WriteByte(codecFlate1)
	w := getWriter()
	w.Reset(&buf)
	_, err := w.Write(payload)
	if err == nil {
		err = w.Close()
	}
	release(flateWriters, w)
	if err != nil || buf.Len() >= 1+len(payload) {
		out := make([]byte, 1+len(payload))
		out[0] = codecRaw
		copy(out[1:], payload)
		return out
	}
	return buf.Bytes()
}

// unpackValue returns the payload of a stored value.
func unpackValue(v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("empty value")
	}
	switch v[0] {
	case codecRaw:
		return v[1:], nil
	case codecFlate1:
		r := getReader()
		defer release(flateReaders, r)
		if err := r.(flate.Resetter).Reset(bytes.NewReader(v[1:]), []byte(cacheDict1)); err != nil {
			return nil, err
		}
		out, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("decompress: %w", err)
		}
		return out, nil
	case codecDelta1:
		return nil, errors.New("a paragraph stored against a base read without it")
	}
	return nil, fmt.Errorf("unknown codec %d (a newer version wrote this cache)", v[0])
}

// packDelta returns text stored as an edit of base, paragraph baseID.
func packDelta(text []byte, baseID int64, base []byte) []byte {
	pre := 0
	for pre < len(text) && pre < len(base) && text[pre] == base[pre] {
		pre++
	}
	suf := 0
	for suf < len(text)-pre && suf < len(base)-pre && text[len(text)-1-suf] == base[len(base)-1-suf] {
		suf++
	}
	out := []byte{codecDelta1}
	out = binary.AppendUvarint(out, uint64(baseID))
	out = binary.AppendUvarint(out, uint64(pre))
	out = binary.AppendUvarint(out, uint64(suf))
	return append(out, packValue(text[pre:len(text)-suf])...)
}

// deltaBase returns the base id of a codecDelta1 value, 0 for another.
func deltaBase(v []byte) (int64, error) {
	if len(v) == 0 || v[0] != codecDelta1 {
		return 0, nil
	}
	id, n := binary.Uvarint(v[1:])
	if n <= 0 || id == 0 {
		return 0, errors.New("truncated value")
	}
	return int64(id), nil
}

// unpackDelta returns the text of a codecDelta1 value whose base's text
// is base.
func unpackDelta(v, base []byte) ([]byte, error) {
	d := decoder{b: v[1:]}
	d.uint() // base id
	pre, suf := d.uint(), d.uint()
	if d.err != nil {
		return nil, d.err
	}
	if pre+suf > uint64(len(base)) {
		return nil, fmt.Errorf("edit keeps %d+%d bytes of a base of %d", pre, suf, len(base))
	}
	mid, err := unpackValue(d.b)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, int(pre)+len(mid)+int(suf))
	out = append(append(append(out, base[:pre]...), mid...), base[len(base)-int(suf):]...)
	return out, nil
}

// encoder appends the fields of a payload.
type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// decoder reads the fields of a payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("truncated value")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errors.New("truncated value")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errors.New("truncated value")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a length that must fit in what is left (each element takes
// at least one byte), so a corrupt value cannot make a huge allocation.
func (d *decoder) count() int {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = errors.New("truncated value")
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

// encodeSamples is the payload of a row of table samples: entries es of
// samples idx, stored at unix time created.
func encodeSamples(idx []int, es []entry, created int64) []byte {
	var e encoder
	e.uint(uint64(len(es)))
	e.int(created)
	for i, x := range es {
		e.uint(uint64(idx[i]))
		e.int(int64(x.promptTokens))
		e.int(int64(x.completionTokens))
		e.int(int64(x.reasoningTokens))
		e.int(int64(x.latency))
		e.str(x.choice)
		e.str(x.reasoning)
		e.str(x.finish)
		e.str(x.structured)
	}
	return e.b
}

// decodeSamples reads an encodeSamples payload; model is the row's.
func decodeSamples(b []byte, model string) ([]int, []entry, error) {
	d := decoder{b: b}
	n := d.count()
	d.int() // created
	idx := make([]int, 0, n)
	es := make([]entry, 0, n)
	for range n {
		i := d.uint()
		x := entry{model: model}
		x.promptTokens = int(d.int())
		x.completionTokens = int(d.int())
		x.reasoningTokens = int(d.int())
		x.latency = time.Duration(d.int())
		x.choice = d.str()
		x.reasoning = d.str()
		x.finish = d.str()
		x.structured = d.str()
		if d.err != nil {
			return nil, nil, d.err
		}
		idx = append(idx, int(i))
		es = append(es, x)
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes after the samples", len(d.b))
	}
	return idx, es, d.err
}

// promptMessage is a message of a stored request: its role and the ids
// of its paragraphs in table paragraphs.
type promptMessage struct {
	role  string
	parts []int64
}

// encodePrompt is the payload of column p of table samples: the id of the
// request's settings (its key document without messages, as JSON, in table
// paragraphs) and its messages; paragraph ids are stored as differences
// from the previous one, which are small.
func encodePrompt(created, settings int64, msgs []promptMessage) []byte {
	var e encoder
	e.int(created)
	e.int(settings)
	e.uint(uint64(len(msgs)))
	prev := settings
	for _, m := range msgs {
		e.str(m.role)
		e.uint(uint64(len(m.parts)))
		for _, id := range m.parts {
			e.int(id - prev)
			prev = id
		}
	}
	return e.b
}

// decodePrompt reads an encodePrompt payload.
func decodePrompt(b []byte) (settings int64, msgs []promptMessage, err error) {
	d := decoder{b: b}
	d.int() // created
	settings = d.int()
	n := d.count()
	prev := settings
	for range n {
		m := promptMessage{role: d.str()}
		k := d.count()
		for range k {
			prev += d.int()
			m.parts = append(m.parts, prev)
		}
		if d.err != nil {
			return 0, nil, d.err
		}
		msgs = append(msgs, m)
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes after the messages", len(d.b))
	}
	return settings, msgs, d.err
}
