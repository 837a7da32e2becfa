package llm

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/t2sbench/t2sbench/internal/codec"
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

// cacheFlate is codecFlate1's compressor: DEFLATE against cacheDict1.
var cacheFlate = codec.NewDeflate([]byte(cacheDict1), 8)

// packValue returns the stored form of payload: compressed when that is
// shorter, behind its codec byte.
func packValue(payload []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(payload)/2 + 16)
	buf.WriteByte(codecFlate1)
	err := cacheFlate.Compress(&buf, payload)
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
		out, err := cacheFlate.Decompress(v[1:])
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
	e := codec.Encoder{B: []byte{codecDelta1}}
	e.Uint(uint64(baseID))
	e.Uint(uint64(pre))
	e.Uint(uint64(suf))
	return append(e.B, packValue(text[pre:len(text)-suf])...)
}

// deltaBase returns the base id of a codecDelta1 value, 0 for another.
func deltaBase(v []byte) (int64, error) {
	if len(v) == 0 || v[0] != codecDelta1 {
		return 0, nil
	}
	d := codec.Decoder{B: v[1:]}
	id := d.Uint()
	if d.Err != nil || id == 0 {
		return 0, codec.ErrTruncated
	}
	return int64(id), nil
}

// unpackDelta returns the text of a codecDelta1 value whose base's text
// is base.
func unpackDelta(v, base []byte) ([]byte, error) {
	d := codec.Decoder{B: v[1:]}
	d.Uint() // base id
	pre, suf := d.Uint(), d.Uint()
	if d.Err != nil {
		return nil, d.Err
	}
	if pre+suf > uint64(len(base)) {
		return nil, fmt.Errorf("edit keeps %d+%d bytes of a base of %d", pre, suf, len(base))
	}
	mid, err := unpackValue(d.B)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, int(pre)+len(mid)+int(suf))
	out = append(append(append(out, base[:pre]...), mid...), base[len(base)-int(suf):]...)
	return out, nil
}

// encodeSamples is the payload of a row of table samples: entries es of
// samples idx, stored at unix time created.
func encodeSamples(idx []int, es []entry, created int64) []byte {
	var e codec.Encoder
	e.Uint(uint64(len(es)))
	e.Int(created)
	for i, x := range es {
		e.Uint(uint64(idx[i]))
		e.Int(int64(x.promptTokens))
		e.Int(int64(x.completionTokens))
		e.Int(int64(x.reasoningTokens))
		e.Int(int64(x.latency))
		e.Str(x.choice)
		e.Str(x.reasoning)
		e.Str(x.finish)
		e.Str(x.structured)
	}
	return e.B
}

// decodeSamples reads an encodeSamples payload; model is the row's. The
// samples' texts are substrings of one copy of b, rather than a copy
// each.
func decodeSamples(b []byte, model string) ([]int, []entry, error) {
	all := string(b)
	d := codec.Decoder{B: b}
	n := d.Count(1)
	d.Int() // created
	idx := make([]int, 0, n)
	es := make([]entry, 0, n)
	for range n {
		i := d.Uint()
		x := entry{model: model}
		x.promptTokens = int(d.Int())
		x.completionTokens = int(d.Int())
		x.reasoningTokens = int(d.Int())
		x.latency = time.Duration(d.Int())
		x.choice = decodeStr(&d, b, all)
		x.reasoning = decodeStr(&d, b, all)
		x.finish = decodeStr(&d, b, all)
		x.structured = decodeStr(&d, b, all)
		if d.Err != nil {
			return nil, nil, d.Err
		}
		idx = append(idx, int(i))
		es = append(es, x)
	}
	if d.Err == nil && len(d.B) > 0 {
		d.Err = fmt.Errorf("%d bytes after the samples", len(d.B))
	}
	return idx, es, d.Err
}

// decodeStr reads a byte string from d, whose input is a suffix of b, as
// the substring of all (b as a string) it is.
func decodeStr(d *codec.Decoder, b []byte, all string) string {
	t := d.Bytes()
	end := len(b) - len(d.B)
	return all[end-len(t) : end]
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
	var e codec.Encoder
	e.Int(created)
	e.Int(settings)
	e.Uint(uint64(len(msgs)))
	prev := settings
	for _, m := range msgs {
		e.Str(m.role)
		e.Uint(uint64(len(m.parts)))
		for _, id := range m.parts {
			e.Int(id - prev)
			prev = id
		}
	}
	return e.B
}

// decodePrompt reads an encodePrompt payload.
func decodePrompt(b []byte) (settings int64, msgs []promptMessage, err error) {
	d := codec.Decoder{B: b}
	d.Int() // created
	settings = d.Int()
	n := d.Count(1)
	prev := settings
	for range n {
		m := promptMessage{role: d.Str()}
		k := d.Count(1)
		for range k {
			prev += d.Int()
			m.parts = append(m.parts, prev)
		}
		if d.Err != nil {
			return 0, nil, d.Err
		}
		msgs = append(msgs, m)
	}
	if d.Err == nil && len(d.B) > 0 {
		d.Err = fmt.Errorf("%d bytes after the messages", len(d.B))
	}
	return settings, msgs, d.Err
}
