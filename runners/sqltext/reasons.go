package sqltext

import (
	"fmt"
	"sort"
	"strings"
)

// ReasonUnrecorded is the count key of an answer that carries no
// extraction reason: an answer no response was read for by ExtractWith
// (ReAct-DSL's answer compiled from DSL calls), or a result stored before
// runners recorded reasons. ExtractWith never returns it.
const ReasonUnrecorded Reason = "unrecorded"

// ReasonCounts counts answers by the rule that chose their SQL
// (Extraction.Reason). It is the one count behind every surface that shows
// how answers were found: eval's summary and the report's table.
type ReasonCounts map[Reason]int

// CountReasons counts reasons, an empty one under ReasonUnrecorded.
func CountReasons(reasons []Reason) ReasonCounts {
	c := ReasonCounts{}
	for _, r := range reasons {
		c.Add(r)
	}
	return c
}

// Add counts one answer found by reason r (ReasonUnrecorded when r is
// empty).
func (c ReasonCounts) Add(r Reason) {
	if r == "" {
		r = ReasonUnrecorded
	}
	c[r]++
}

// Total is the number of answers counted.
func (c ReasonCounts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Order lists the reasons c counts, in the order of Reasons, then
// ReasonUnrecorded, then any other key sorted.
func (c ReasonCounts) Order() []Reason {
	var out []Reason
	seen := map[Reason]bool{}
	for _, r := range append(append([]Reason(nil), Reasons...), ReasonUnrecorded) {
		seen[r] = true
		if c[r] > 0 {
			out = append(out, r)
		}
	}
	var other []string
	for r, n := range c {
		if !seen[r] && n > 0 {
			other = append(other, string(r))
		}
	}
	sort.Strings(other)
	for _, r := range other {
		out = append(out, Reason(r))
	}
	return out
}

// String lists the counts in Order: "single 40 final_marker 2".
func (c ReasonCounts) String() string {
	parts := make([]string, 0, len(c))
	for _, r := range c.Order() {
		parts = append(parts, fmt.Sprintf("%s %d", r, c[r]))
	}
	return strings.Join(parts, " ")
}
