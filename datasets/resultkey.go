package datasets

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ValueKey returns a canonical text key of a normalised value under Python
// equality, the equality every official EX scorer uses: an integral float
// and the equal integer share a key (1 == 1.0), text and numbers never do
// ('1' != 1), and text and BLOB bytes stay distinct.
func ValueKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "N"
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return "i" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "s" + strconv.Quote(x)
	case []byte:
		return "b" + strconv.Quote(string(x))
	default:
		return fmt.Sprintf("?%v", x)
	}
}

// BagKey returns a canonical key of rs as a multiset of rows: row order is
// ignored, duplicates count. Runners use it to group candidate SQL by
// execution result (self-consistency votes).
func (rs *ResultSet) BagKey() string { return rs.rowsKey(false) }

// SetKey returns a canonical key of rs as a set of rows: row order and
// duplicates are ignored (Alpha-SQL's result groups).
func (rs *ResultSet) SetKey() string { return rs.rowsKey(true) }

func (rs *ResultSet) rowsKey(set bool) string {
	rows := make([]string, 0, len(rs.Rows))
	seen := map[string]bool{}
	var b strings.Builder
	for _, r := range rs.Rows {
		b.Reset()
		for j, v := range r {
			if j > 0 {
				b.WriteByte(0x1f)
			}
			b.WriteString(ValueKey(v))
		}
		k := b.String()
		if set {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		rows = append(rows, k)
	}
	sort.Strings(rows)
	return strconv.Itoa(len(rs.Columns)) + "\x1e" + strings.Join(rows, "\x1e")
}

// ShortKey condenses a result key to a 64-bit FNV-1a hex digest for traces.
func ShortKey(k string) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(k); i++ {
		h ^= uint64(k[i])
		h *= 1099511628211
	}
	return strconv.FormatUint(h, 16)
}
