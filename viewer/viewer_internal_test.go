package viewer

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestCellValue: every preview value encodes as JSON, text is capped on a
// rune boundary, BLOBs show their length.
func TestCellValue(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxCell) // 2 bytes per rune
	tests := []struct {
		in   any
		want string
	}{
		{nil, `null`},
		{int64(3), `3`},
		{1.5, `1.5`},
		{math.Inf(1), `"+Inf"`},
		{math.NaN(), `"NaN"`},
		{[]byte{1, 2, 3}, `"\u003cblob 3 bytes\u003e"`},
		{"<b>x</b>", `"\u003cb\u003ex\u003c/b\u003e"`},
		{long, `"` + strings.Repeat("é", maxCell/2) + `…"`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(cellValue(tt.in))
		if err != nil || string(b) != tt.want {
			t.Errorf("cellValue(%.20v) = %s, %v; want %s", tt.in, b, err, tt.want)
		}
	}
}
