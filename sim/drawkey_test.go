package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// TestCanonicalAnswer: the forms one answer takes (the clean style's and
// the realistic style's: prose, fences with any tag, a draft before a
// final marker, SQL in JSON, markdown escapes, a reasoning block with a
// draft, a clause a line, a trailing semicolon; JSON indented or compact,
// keys shuffled, numbers as strings; DSL in a dsl or python block,
// numbered, with semicolons, or bare) read as one payload, and different
// answers as different payloads.
func TestCanonicalAnswer(t *testing.T) {
	const sql = "SELECT name FROM singer WHERE singer_id > 2"
	groups := []struct {
		name  string
		forms []string
	}{
		{"sql", []string{
			"I look up table singer and filter the rows the question describes.\n\n```sql\n" + sql + "\n```",
			"Here is the SQL query:\n\n```SQLite\nSELECT name\nFROM singer\nWHERE singer_id > 2;\n```\n\nThis returns exactly the rows the question asks for.",
			"<think>\nA draft:\n```sql\nSELECT name FROM singer\n```\nNo, the filter is missing.\n</think>\n```sql\n" + sql + "\n```",
			"1. Find the table.\n2. Draft:\n```sql\nSELECT name FROM singer WHERE singer_id > 3\n```\nFinal SQL:\n```sql\n" + sql + "\n```",
			`{"sql": "` + sql + `"}`,
			"The query is: SELECT name FROM singer WHERE singer\\_id > 2\n\nIt filters by id.",
			"```sql\n" + sql + "\n```<|im_end|>",
		}},
		{"other sql", []string{"```sql\nSELECT name FROM singer WHERE singer_id > 3\n```"}},
		{"json", []string{
			"Functions the query needs:\n```json\n{\"functions\": [\"count(singer_id)\"], \"limit\": 3}\n```",
			"{\n  \"limit\": \"3\",\n  \"functions\": [\n    \"count(singer_id)\"\n  ]\n}",
			"Sure! The functions are {\"limit\":3,\"functions\":[\"count(singer_id)\"]} as asked.",
		}},
		{"dsl", []string{
			"Thought: first look at the data.\n```dsl\nt1_r0 = table_ref(\"singer\")\nsample_rows(t1_r0, 3)\n```",
			"```python\n1. t1_r0 = table_ref(\"singer\");\n2. sample_rows(t1_r0, 3);\n```",
			"Thought: look first.\nt1_r0 = table_ref(\"singer\")\nsample_rows(t1_r0, 3)",
		}},
		{"text", []string{"Conditions:\n- the question concerns France\nQuestion: How many singers?", "Conditions:\n  - the question concerns France\n\nQuestion:  How many singers?"}},
	}
	seen := map[string]string{}
	for _, g := range groups {
		want := canonicalAnswer(g.forms[0])
		for i, f := range g.forms {
			t.Run(fmt.Sprintf("%s/%d", g.name, i), func(t *testing.T) {
				if got := canonicalAnswer(f); got != want {
					t.Errorf("got %q; want %q (the payload of the first form)", got, want)
				}
			})
		}
		if other, dup := seen[want]; dup {
			t.Errorf("groups %s and %s read as one payload %q; want different payloads", other, g.name, want)
		}
		seen[want] = g.name
	}
}

// TestDrawsPairAcrossStyles: a second request quotes the model's first
// answer as each style wrote it, as an assistant turn (ReAct) and as a
// "Step 1 (...)" block of a reasoning path (Alpha-SQL, IESR), the first
// answer's SQL a clause a line as a runner that extracted it quotes it.
// Each sample of the second request draws the same SQL in both styles
// (the realistic style's cut samples aside): the draws are keyed by the
// quoted answers' payloads, not their form.
func TestDrawsPairAcrossStyles(t *testing.T) {
	b := concertBenchmark(t, true)
	clean, err := New(b, Config{P: 0.5, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	real, err := New(b, Config{P: 0.5, Seed: 5, Style: StyleRealistic, CutRate: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	compared, differed := 0, 0
	for qi, g := range concertGold[:6] {
		first := llm.Request{Messages: prompt(g.q, ""), Answer: llm.AnswerSQL, Seed: ptrInt(int64(qi))}
		var answers [2]string
		for k, m := range []*Model{clean, real} {
			resp, err := m.Complete(ctx, first)
			if err != nil {
				t.Fatal(err)
			}
			answers[k] = resp.Choices[0]
		}
		if answers[0] != answers[1] {
			differed++
		}
		followUps := map[string]func(answer string) []llm.Message{
			"assistant turn": func(a string) []llm.Message {
				return append(prompt(g.q, ""), llm.Message{Role: "assistant", Content: a}, llm.Message{Role: "user", Content: "Result: 3 rows. Check it and answer again."})
			},
			"reasoning step": func(a string) []llm.Message {
				return prompt(g.q, "\n【Previous reasoning steps】\nStep 1 (SQL Generation):\n"+a+"\n\n【Task】SQL Revision\nEnd with the final query in a fenced block:\n```sql\n<query>\n```")
			},
			"extracted sql": func(a string) []llm.Message {
				sql, _ := sqltext.Extract(a)
				return prompt(g.q, "Your previous query:\n```sql\n"+layoutSQL(sql)+"\n```\nWrite a corrected query.")
			},
		}
		for name, follow := range followUps {
			var sqls [2][]string
			for k, m := range []*Model{clean, real} {
				resp, err := m.Complete(ctx, llm.Request{Messages: follow(answers[k]), Answer: llm.AnswerSQL, N: 6, Seed: ptrInt(int64(qi))})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range resp.Choices {
					sql, _ := sqltext.Extract(c)
					sqls[k] = append(sqls[k], sqltext.Normalise(sql))
				}
			}
			for i := range sqls[0] {
				compared++
				if sqls[0][i] != sqls[1][i] {
					t.Errorf("question %d, %s, sample %d: clean drew %q, realistic %q; want the same draw", qi, name, i, sqls[0][i], sqls[1][i])
				}
			}
		}
	}
	// The test means something only when the styles wrote the first
	// answers differently.
	if differed == 0 || compared != 6*3*6 {
		t.Errorf("%d of 6 first answers differed in form, %d samples compared; want some and %d", differed, compared, 6*3*6)
	}
}

func ptrInt(v int64) *int64 { return &v }
