package llm

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendKeyJSON appends the canonical JSON of doc (the document a request
// key hashes), byte for byte what json.Marshal(doc) returns, without
// reflection or a copy of the result; ok is false where it cannot (a
// float json.Marshal rejects: NaN or infinite), and the caller marshals
// instead, which reports the error. doc.Schema must be what newKeyDoc
// makes of it: compact JSON with HTML escaped (json.Marshal's), which
// json.Marshal copies as is. TestKeyJSONMatchesMarshal and
// FuzzKeyJSONMatchesMarshal compare the two.
func appendKeyJSON(b []byte, doc *keyDoc) ([]byte, bool) {
	for _, f := range [...]float64{doc.Temperature, doc.TopP} {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return b, false
		}
	}
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(doc.V), 10)
	b = append(b, `,"ident":{"backend":`...)
	b = appendJSONString(b, doc.Ident.Backend)
	b = append(b, `,"base_url":`...)
	b = appendJSONString(b, doc.Ident.BaseURL)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, doc.Ident.Model)
	if doc.Ident.Options != "" {
		b = append(b, `,"options":`...)
		b = appendJSONString(b, doc.Ident.Options)
	}
	if doc.Ident.Server != "" {
		b = append(b, `,"server":`...)
		b = appendJSONString(b, doc.Ident.Server)
	}
	b = append(b, `},"role":`...)
	b = appendJSONString(b, doc.Role)
	b = append(b, `,"messages":`...)
	if doc.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range doc.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"role":`...)
			b = appendJSONString(b, m.Role)
			b = append(b, `,"content":`...)
			b = appendJSONString(b, m.Content)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"temperature":`...)
	b = appendJSONFloat(b, doc.Temperature)
	b = append(b, `,"top_p":`...)
	b = appendJSONFloat(b, doc.TopP)
	if doc.TopK != 0 {
		b = append(b, `,"top_k":`...)
		b = strconv.AppendInt(b, int64(doc.TopK), 10)
	}
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(doc.MaxTokens), 10)
	b = append(b, `,"stop":`...)
	if doc.Stop == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range doc.Stop {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		b = append(b, ']')
	}
	b = append(b, `,"seed":`...)
	if doc.Seed == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *doc.Seed, 10)
	}
	b = append(b, `,"answer":`...)
	b = appendJSONString(b, string(doc.Answer))
	b = append(b, `,"schema":`...)
	if doc.Schema == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, doc.Schema...)
	}
	b = append(b, `,"schema_name":`...)
	b = appendJSONString(b, doc.SchemaName)
	b = append(b, `,"responder":`...)
	b = appendJSONString(b, doc.Responder)
	return append(b, '}'), true
}

// appendJSONFloat appends f as json.Marshal writes a float64 (f neither
// NaN nor infinite): like %g, with ES6's exponent cut-offs and no padding
// of the exponent.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// jsonPlain marks the ASCII bytes json.Marshal writes as they are in a
// string: printable, and neither a quote, a backslash nor one of the HTML
// characters it escapes (<, >, &).
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as json.Marshal writes a string: quoted,
// with control characters, quotes, backslashes, <, > and &, U+2028 and
// U+2029 escaped, and each byte of invalid UTF-8 written as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
