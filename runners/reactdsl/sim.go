package reactdsl

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

func init() {
	llm.RegisterResponder(ResponderTurn, SimTurn)
	llm.RegisterResponder(ResponderSQLTurn, SimSQLTurn)
}

// turnState reads a conversation: the number of model turns so far and the
// last observation the harness sent.
func turnState(msgs []llm.Message) (turn int, lastObs, lastAnswer string) {
	for _, m := range msgs {
		if m.Role == "assistant" {
			turn++
			lastAnswer = m.Content
		}
	}
	if turn > 0 && len(msgs) > 0 && msgs[len(msgs)-1].Role == "user" {
		lastObs = msgs[len(msgs)-1].Content
	}
	return turn, lastObs, lastAnswer
}

// executedRe finds an execute probe's result in an observation the
// harness sent ("execute(r4) -> 3 rows").
var executedRe = regexp.MustCompile(`(?m)^execute\(([A-Za-z_][A-Za-z0-9_]*)\) -> (\d+) rows?`)

// SimTurn is the sim responder for DSL turns ("reactdsl/turn"). It plays a
// simulated model that explores, builds and checks, and reads only what a
// real model reads (the question's example comes from the harness, the
// rest from the conversation):
//
//   - turn 1: loads the first table of the query it means to write and
//     samples a few rows;
//   - later turns: if the previous observation shows the execute result of
//     its final relation, answers with answer(rN); otherwise (an
//     exploration turn, a DSL error or an execution error) lifts
//     SimContext.SQL() (the gold SQL, or a corruption of it, drawn afresh
//     each turn) into DSL calls and executes the result.
//
// SQL the lifter cannot express is sent as a ```sql block, as a model that
// cannot phrase its query in the DSL would: the loop runs it as a probe
// and never takes it as an answer, so such a question ends at max_turns
// with the loop's fallback (the last query that executed with rows).
func SimTurn(c *llm.SimContext) (string, error) {
	turn, lastObs, _ := turnState(c.Request.Messages)
	sql := c.SQL()
	raw := "The DSL cannot express this query; checking it directly.\n```sql\n" + sql + "\n```"
	if c.DB == nil {
		return raw, nil
	}
	schema, err := c.DB.Schema(context.Background())
	if err != nil {
		return raw, nil
	}
	prefix := fmt.Sprintf("t%d_", turn+1)
	calls, final, err := Lift(sql, schema, prefix)
	if err != nil {
		return raw, nil
	}
	if turn == 0 {
		first := calls[0]
		return fmt.Sprintf("Thought: first look at the data in the main table.\n```dsl\n%s\nsample_rows(%s, 3)\n```", first.String(), first.Target), nil
	}
	if m := executedRe.FindAllStringSubmatch(lastObs, -1); len(m) > 0 && !strings.Contains(lastObs, string(ExecutionError)) {
		name := m[len(m)-1][1]
		return fmt.Sprintf("Thought: %s executed and looks right.\n```dsl\nanswer(%s)\n```", name, name), nil
	}
	var b strings.Builder
	b.WriteString("Thought: build the query step by step and check it.\n```dsl\n")
	b.WriteString(FormatProgram(calls))
	fmt.Fprintf(&b, "execute(%s)\n```", final)
	return b.String(), nil
}

// SimSQLTurn is the sim responder for raw-SQL ReAct turns
// ("reactdsl/sqlturn"): it runs SimContext.SQL(), and once the previous
// query executed without error it repeats it as the FINAL ANSWER; after an
// error it draws again.
func SimSQLTurn(c *llm.SimContext) (string, error) {
	turn, lastObs, lastAnswer := turnState(c.Request.Messages)
	if turn > 0 && strings.HasPrefix(lastObs, "Result: ") && !strings.HasPrefix(lastObs, "Result: error") {
		if prev, ok := sqltext.Extract(lastAnswer); ok {
			return "The result looks right.\nFINAL ANSWER\n```sql\n" + prev + "\n```", nil
		}
	}
	return "Thought: run the query and check the result.\n```sql\n" + c.SQL() + "\n```", nil
}
