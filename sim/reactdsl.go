package sim

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/reactdsl"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// ReAct-DSL's request kinds (runners/reactdsl: Responder*). The simulated
// model writes the DSL the prompt documents with lift (lift.go), which
// translates SQL into DSL calls, as a model that has learnt the documented
// grammar; it reads the conversation for everything else.
func init() {
	register(map[string]Responder{
		"reactdsl/turn":    reactTurn,
		"reactdsl/sqlturn": reactSQLTurn,
	})
}

// turnState reads a conversation: the number of model turns so far, the
// last message the harness sent after one, and the model's last answer.
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

// executedRe finds an execute probe's result in an observation
// ("execute(r4) -> 3 rows"), the form the runner shows a model.
var executedRe = regexp.MustCompile(`(?m)^execute\(([A-Za-z_][A-Za-z0-9_]*)\) -> (\d+) rows?`)

// reactTurn answers a DSL turn:
//
//   - turn 1: looks at the prompt table the question relates to most and
//     samples a few rows;
//   - later turns: when the last observation shows its final relation's
//     execute result without an error, answers with answer(rN);
//     otherwise writes its final SQL (drawn afresh for this turn's
//     prompt, which now carries the observations) as DSL calls and
//     executes the result.
//
// SQL the lifter cannot express is sent as a ```sql block, which the loop
// runs as a probe.
func reactTurn(c *Sample) (string, error) {
	turn, lastObs, _ := turnState(c.Request.Messages)
	if turn > 0 && !strings.Contains(lastObs, string(reactdsl.ExecutionError)) {
		if m := executedRe.FindAllStringSubmatch(lastObs, -1); len(m) > 0 {
			name := m[len(m)-1][1]
			return fmt.Sprintf("Thought: %s executed and looks right.\n```dsl\nanswer(%s)\n```", name, name), nil
		}
	}
	if turn == 0 {
		if sc := c.scored(); len(sc) > 0 {
			return fmt.Sprintf("Thought: first look at the data in the main table.\n```dsl\nt1_r0 = table_ref(%q)\nsample_rows(t1_r0, 3)\n```", sc[0].name), nil
		}
	}
	sql := c.SQL()
	raw := "The DSL cannot express this query; checking it directly.\n```sql\n" + sql + "\n```"
	if c.schema == nil {
		return raw, nil
	}
	calls, final, err := lift(sql, c.schema, fmt.Sprintf("t%d_", turn+1))
	if err != nil || len(calls) == 0 {
		return raw, nil
	}
	var b strings.Builder
	b.WriteString("Thought: build the query step by step and check it.\n```dsl\n")
	b.WriteString(formatProgram(calls))
	fmt.Fprintf(&b, "execute(%s)\n```", final)
	return b.String(), nil
}

// reactSQLTurn answers a raw-SQL ReAct turn: it runs its final SQL, and
// once the previous query executed without error it repeats it as the
// FINAL ANSWER; after an error it draws again.
func reactSQLTurn(c *Sample) (string, error) {
	turn, lastObs, lastAnswer := turnState(c.Request.Messages)
	if turn > 0 && strings.HasPrefix(lastObs, "Result: ") && !strings.HasPrefix(lastObs, "Result: error") {
		if prev, ok := sqltext.Extract(lastAnswer); ok {
			return "The result looks right.\nFINAL ANSWER\n```sql\n" + prev + "\n```", nil
		}
	}
	return "Thought: run the query and check the result.\n```sql\n" + c.SQL() + "\n```", nil
}
