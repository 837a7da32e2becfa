package runstore

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/t2sbench/t2sbench/runners/llm"
)

// tokenSum is the SQL aggregate of the token column col over a group of
// model_calls rows: each row read as the client validates a server's count
// (llm.Usage.Clamp: within [0, llm.MaxTokenCount]), summed in floating
// point (total, which never fails) and cast back to an integer, which
// saturates at 2^63-1. SQLite's sum fails the whole query with "integer
// overflow" when a store holds a count such as 2^63-1 written before
// counts were validated; with tokenSum such a store still reads, its rows
// flagged (RunData.BadCounts). Sums up to 2^53 are exact.
func tokenSum(col string) string {
	return `CAST(total(min(max(` + col + `, 0), ` + strconv.Itoa(llm.MaxTokenCount) + `)) AS INTEGER)`
}

// tokenSums is the SQL of the two token sums of a group of model_calls
// rows, prompt then completion (tokenSum), their columns prefixed with
// prefix ("c." or "").
func tokenSums(prefix string) string {
	return tokenSum(prefix+"prompt_tokens") + ", " + tokenSum(prefix+"completion_tokens")
}

// clampTokens is a stored token count as the readers count it (see
// tokenSum).
func clampTokens[T int | int64](v T) T {
	return min(max(v, 0), llm.MaxTokenCount)
}

// maxBadCounts is the number of out-of-range rows RunData.BadCounts names.
const maxBadCounts = 10

// badCount is the SQL condition of a model_calls row (its columns
// prefixed with prefix, "c." or "") whose token counts are outside [0,
// llm.MaxTokenCount]: counts a server sent before they were validated.
// Summed, it is CallTotals.Bad.
func badCount(prefix string) string {
	limit := strconv.Itoa(llm.MaxTokenCount)
	return `(` + prefix + `prompt_tokens < 0 OR ` + prefix + `prompt_tokens > ` + limit +
		` OR ` + prefix + `completion_tokens < 0 OR ` + prefix + `completion_tokens > ` + limit + `)`
}

// readBadCounts names the call-log rows whose token counts are outside [0,
// llm.MaxTokenCount] (at most maxBadCounts of them, then how many more),
// given their number n (CallTotals.Bad): it reads the call log only when
// there are some. Readers count them as clamped (tokenSum); the lines say
// so, naming the item.
func readBadCounts(db *sql.DB, n int) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	rows, err := db.Query(`SELECT c.id, coalesce(t.label, c.trial_id), c.question_id, coalesce(c.role, ''), c.prompt_tokens, c.completion_tokens
		FROM model_calls c LEFT JOIN trials t ON t.id = c.trial_id WHERE `+badCount("c.")+` ORDER BY c.id LIMIT ?`, maxBadCounts)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var trial, question, role string
		var pt, ct sql.NullInt64
		if err := rows.Scan(&id, &trial, &question, &role, &pt, &ct); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("item %s/%s: call %d (role %s) has prompt_tokens %d, completion_tokens %d, outside [0, %d]; counted as %d and %d",
			trial, question, id, role, pt.Int64, ct.Int64, llm.MaxTokenCount, clampTokens(pt.Int64), clampTokens(ct.Int64)))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if n > maxBadCounts {
		out = append(out, fmt.Sprintf("and %d more calls with token counts outside [0, %d]", n-maxBadCounts, llm.MaxTokenCount))
	}
	return out, nil
}

// satSQL is the SQL expression of a+b for the non-negative integer
// expressions a and b, saturated at 2^63-1 instead of failing with
// "integer overflow" (endpoint counters summed over sessions and shards).
func satSQL(a, b string) string {
	return `CASE WHEN ` + b + ` > 9223372036854775807 - ` + a + ` THEN 9223372036854775807 ELSE ` + a + ` + ` + b + ` END`
}
