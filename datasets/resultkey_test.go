package datasets

import "testing"

func TestResultKeys(t *testing.T) {
	rs := func(rows ...[]any) *ResultSet { return &ResultSet{Columns: []string{"a", "b"}, Rows: rows} }
	tests := []struct {
		name     string
		x, y     *ResultSet
		bag, set bool // want equal keys
	}{
		// Python equality: 1 == 1.0, so the keys agree.
		{"int equals integral float", rs([]any{int64(1), "x"}), rs([]any{1.0, "x"}), true, true},
		// '1' != 1 in Python.
		{"text is not a number", rs([]any{"1", "x"}), rs([]any{int64(1), "x"}), false, false},
		{"bytes are not text", rs([]any{[]byte("x"), nil}), rs([]any{"x", nil}), false, false},
		{"row order ignored", rs([]any{int64(1), "x"}, []any{int64(2), "y"}), rs([]any{int64(2), "y"}, []any{int64(1), "x"}), true, true},
		{"duplicates count in a bag only", rs([]any{int64(1), "x"}, []any{int64(1), "x"}), rs([]any{int64(1), "x"}), false, true},
		{"NULL equals NULL", rs([]any{nil, nil}), rs([]any{nil, nil}), true, true},
		{"non-integral floats", rs([]any{0.5, "x"}), rs([]any{0.25, "x"}), false, false},
		{"column count matters", &ResultSet{Columns: []string{"a"}}, &ResultSet{Columns: []string{"a", "b"}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.x.BagKey() == tc.y.BagKey(); got != tc.bag {
				t.Errorf("BagKey equal = %v; want %v", got, tc.bag)
			}
			if got := tc.x.SetKey() == tc.y.SetKey(); got != tc.set {
				t.Errorf("SetKey equal = %v; want %v", got, tc.set)
			}
		})
	}
	if a, a2 := ShortKey("a"), ShortKey(string([]byte{'a'})); ShortKey("a") == ShortKey("b") || a != a2 {
		t.Error("ShortKey is not a stable digest")
	}
}
