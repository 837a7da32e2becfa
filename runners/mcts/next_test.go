package mcts

import (
	"reflect"
	"testing"
)

func TestNext(t *testing.T) {
	table := map[Action][]Action{RootAction: {"A1", "A2", "A5"}, "A5": {"A7", "A6"}}
	if got := Next(table, RootAction, map[Action]bool{"A2": true}); !reflect.DeepEqual(got, []Action{"A1", "A5"}) {
		t.Errorf("Next(root, A2 disabled) = %v; want [A1 A5]", got)
	}
	if got := Next(table, "A5", nil); !reflect.DeepEqual(got, []Action{"A7", "A6"}) {
		t.Errorf("Next(A5) = %v; want table order [A7 A6]", got)
	}
	if got := Next(table, "A7", nil); got != nil {
		t.Errorf("Next(A7) = %v; want none", got)
	}
}

// TestDisabledNames: the switched-on actions, sorted; an empty list, not
// nil, when none is.
func TestDisabledNames(t *testing.T) {
	got := DisabledNames(map[Action]bool{"A6": true, "A2": true, "A3": false})
	if !reflect.DeepEqual(got, []string{"A2", "A6"}) {
		t.Errorf("DisabledNames = %v; want [A2 A6]", got)
	}
	if got := DisabledNames(nil); got == nil || len(got) != 0 {
		t.Errorf("DisabledNames(nil) = %#v; want an empty, non-nil list", got)
	}
}
