package datasets

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Duplicate is a question that repeats an earlier one: same database and
// same question text (white space collapsed, case ignored).
type Duplicate struct {
	ID      string `json:"question_id"`
	FirstID string `json:"first_id"`
	// SameGold is true when both golds are the same SQL (white space
	// collapsed).
	SameGold bool `json:"same_gold"`
}

func normText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// DuplicateQuestions lists, in benchmark order, the questions whose
// database and text repeat an earlier question's.
func DuplicateQuestions(b *Benchmark) []Duplicate {
	first := map[string]Example{}
	var out []Duplicate
	for _, ex := range b.Examples {
		k := ex.DBID + "\x00" + normText(ex.Question)
		if f, ok := first[k]; ok {
			out = append(out, Duplicate{ID: ex.ID, FirstID: f.ID, SameGold: normText(f.GoldSQL) == normText(ex.GoldSQL)})
			continue
		}
		first[k] = ex
	}
	return out
}

// PreviousVersion names the earlier release of benchmark name whose gold
// SQL GoldChanges compares with, and says which: BIRD dev's current
// revision against the initial release of May 2023 (bird-dev-2023-05),
// and mini-dev against the BIRD dev it was drawn from (question_id is the
// dev id). It returns "" for benchmarks with no earlier version at hand.
func PreviousVersion(name string) (prev, what string) {
	k, ok := Lookup(name)
	if !ok || k.Previous == nil {
		return "", ""
	}
	return k.Previous(name)
}

// GoldChange is a question whose gold SQL differs between two versions.
type GoldChange struct {
	ID  string `json:"question_id"`
	Old string `json:"old_sql"`
	New string `json:"new_sql"`
	// QuestionChanged is true when the question text changed too.
	QuestionChanged bool `json:"question_changed,omitempty"`
}

// GoldChanges compares the gold SQL of cur with that of old, matching
// questions by ID and ignoring differences in white space only. It returns
// the changed questions in cur's order and how many questions matched.
func GoldChanges(old, cur *Benchmark) (changes []GoldChange, matched int) {
	byID := make(map[string]Example, len(old.Examples))
	for _, ex := range old.Examples {
		byID[ex.ID] = ex
	}
	for _, ex := range cur.Examples {
		o, ok := byID[ex.ID]
		if !ok {
			continue
		}
		matched++
		if normSpace(o.GoldSQL) != normSpace(ex.GoldSQL) {
			changes = append(changes, GoldChange{ID: ex.ID, Old: o.GoldSQL, New: ex.GoldSQL, QuestionChanged: normText(o.Question) != normText(ex.Question)})
		}
	}
	return changes, matched
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// GroupByChecker is implemented by databases that can tell whether a query
// picks non-aggregated columns from a group (MySQLDatabase).
type GroupByChecker interface {
	// PicksFromGroup reports whether q fails under ONLY_FULL_GROUP_BY
	// because a selected, ordered or HAVING column is neither aggregated
	// nor grouped.
	PicksFromGroup(ctx context.Context, q string) (bool, error)
}

// PicksFromGroup runs q with sql_mode ONLY_FULL_GROUP_BY (the engine's
// usual limits apply) and reports whether the server refuses it with
// error 1055 (ER_WRONG_FIELD_WITH_GROUP) or 1140 (ER_MIX_OF_GROUP_FUNC_AND_FIELDS:
// an aggregate beside a plain column without GROUP BY). MariaDB does not detect
// functional dependencies, so a column that depends on the grouped key
// (GROUP BY t.id, SELECT t.name) is reported too.
func (d *MySQLDatabase) PicksFromGroup(ctx context.Context, q string) (bool, error) {
	_, err := d.execute(ctx, q, ", sql_mode='ONLY_FULL_GROUP_BY'")
	if err == nil {
		return false, nil
	}
	var ee *ExecError
	if errors.As(err, &ee) && (strings.Contains(ee.Msg, "Error 1055") || strings.Contains(ee.Msg, "Error 1140")) {
		return true, nil
	}
	return false, fmt.Errorf("only_full_group_by check: %w", err)
}
