// Package jsonl reads JSON-lines files: one JSON object a line, blank
// lines skipped, every error naming the file and the line.
//
// It imports only the standard library, so that every package of the
// module may use it.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line Each reads, in bytes.
const MaxLine = 64 << 20

// Options say how Each decodes a line.
type Options struct {
	// Strict rejects an object with a field the value's type does not
	// have.
	Strict bool
	// What, when set, describes a well-formed line in the error of a line
	// that does not decode ("not a verdict line (want ...)"); it stands
	// between the file:line and the decoder's error.
	What string
}

// Each decodes every non-blank line of r (white space around a line
// ignored) into a new T and calls fn with its 1-based line number and its
// text (valid only during the call). A line that does not decode as one
// JSON value, a line longer than MaxLine, and an error fn returns stop the
// read with an error starting "path:line: ".
func Each[T any](r io.Reader, path string, o Options, fn func(line int, text []byte, v *T) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		v := new(T)
		if err := decode(text, v, o.Strict); err != nil {
			if o.What != "" {
				return fmt.Errorf("%s:%d: %s: %w", path, line, o.What, err)
			}
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if err := fn(line, text, v); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return nil
}

// decode reads text, one JSON value and nothing after it, into v.
func decode(text []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(text))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("text after the JSON value on the line")
	}
	return nil
}
