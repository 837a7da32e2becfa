package reactdsl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/internal/testkit/runkit"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runners/sqltext"
)

// The tests in this file are written from what real models send to a
// ReAct loop (Qwen2.5-Coder, Llama-3.x, GPT-4o-class models, and reasoning
// models whose <think> text the client has already moved to
// Response.Reasoning): prose around fences, ```python and unlabelled
// blocks, numbered calls, inline backticks, trailing semicolons, an
// exploratory query that mentions "the final answer" mid-sentence, a FINAL
// ANSWER line, answers cut at max_tokens and permanent HTTP errors.

// realModel is a fake llm.Client that answers request i with replies[i]
// (Text as Choices, Reasoning as Reasoning, Finish as FinishReasons,
// "stop" when unset) and records the requests.
type realModel struct {
	*testkit.Model
	replies []testkit.Turn
}

func newRealModel(replies []testkit.Turn) *realModel {
	return &realModel{replies: replies, Model: &testkit.Model{Reply: testkit.Turns(replies...), DefaultFinish: llm.FinishStop,
		Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 40}}}
}

func sameAsGold(t *testing.T, db datasets.Database, gold, got string) bool {
	t.Helper()
	g, err := db.Execute(context.Background(), gold)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := db.Execute(context.Background(), got)
	if err != nil {
		return false
	}
	return flat(g) == flat(rs)
}

func TestParseCallsRealStyles(t *testing.T) {
	tests := []struct {
		name string
		text string
		// want lists "target=op" (or "op" for calls without a target).
		want []string
		errs int
	}{
		{"python fence", "Let me load the table first.\n```python\nr1 = table_ref(\"student\", as=\"S\")\nsample_rows(r1, 3)\n```\nThis shows the columns.",
			[]string{"r1=table_ref", "sample_rows"}, 0},
		{"untagged fence", "```\nr1 = table_ref(\"student\")\nexecute(r1)\n```", []string{"r1=table_ref", "execute"}, 0},
		{"trailing semicolons", "```dsl\nr1 = table_ref(\"student\");\nexecute(r1);  \n```", []string{"r1=table_ref", "execute"}, 0},
		{"numbered list", "I will:\n1. r1 = table_ref(\"student\")\n2. r2 = limit(r1, 3)\n3) execute(r2)", []string{"r1=table_ref", "r2=limit", "execute"}, 0},
		{"dash and star bullets", "- r1 = table_ref(\"student\")\n* execute(r1)\n• sample_rows(r1, 2)", []string{"r1=table_ref", "execute", "sample_rows"}, 0},
		{"inline backticks with prose", "Plan:\n1. `r1 = table_ref(\"student\")` loads the students.\n2. `execute(r1)`", []string{"r1=table_ref", "execute"}, 0},
		{"bare backticked call", "`answer(r3)`", []string{"answer"}, 0},
		{"action label", "Thought: the result is right.\nAction: answer(r3)", []string{"answer"}, 0},
		{"bold action label with backticks", "**Thought:** it is right.\n**Action:** `answer(r3)`", []string{"answer"}, 0},
		{"one-line fence", "```answer(r3)```", []string{"answer"}, 0},
		{"python fence with other code", "```python\n# load\nr1 = table_ref(\"student\")\nprint(r1)\n```", []string{"r1=table_ref"}, 0},
		{"numbered calls inside a fence", "```dsl\n1. r1 = table_ref(\"student\")\n2. execute(r1);\n```", []string{"r1=table_ref", "execute"}, 0},
		{"multi-line call in python fence", "```python\nr2 = aggregate(r1,\n    group_by=[\"S.major_dept\"],\n    aggs=[\"count(*) AS n\"])\n```", []string{"r2=aggregate"}, 0},
		{"sql fence is never read as calls", "```sql\nSELECT 1\n```\nr1 = table_ref(\"student\")", []string{"r1=table_ref"}, 0},
		{"fence with calls wins over prose lines", "r9 = table_ref(\"x\")\n```python\nr1 = table_ref(\"student\")\n```", []string{"r1=table_ref"}, 0},
		{"mention mid-sentence is not a call", "Once r3 looks right I will call answer(r3) in the next turn.", nil, 0},
		{"call followed by prose is an error", "answer(r3) is what I will send next", nil, 1},
		{"cut inside a fence", "```dsl\nr1 = table_ref(\"student\")\nr2 = filter_expr(r1, \"name = 'A", []string{"r1=table_ref"}, 1},
		{"dsl fence prose line is an error", "```dsl\nLet me think\nr1 = table_ref(\"student\")\n```", []string{"r1=table_ref"}, 1},
		{"json fence ignored", "```json\n{\"call\": \"answer(r1)\"}\n```", nil, 0},
		{"crlf line endings", "```python\r\nr1 = table_ref(\"student\");\r\nexecute(r1)\r\n```", []string{"r1=table_ref", "execute"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, errs := ParseCalls(tt.text)
			var got []string
			for _, c := range calls {
				if c.Target != "" {
					got = append(got, c.Target+"="+c.Op)
				} else {
					got = append(got, c.Op)
				}
			}
			if !slices.Equal(got, tt.want) || len(errs) != tt.errs {
				t.Errorf("got calls %v, %d errors %v; want %v, %d errors", got, len(errs), errs, tt.want, tt.errs)
			}
		})
	}
}

func TestFinalSQL(t *testing.T) {
	tests := []struct {
		name, text, want string
		ok               bool
	}{
		{"marker line and fence", "The count is 4.\nFINAL ANSWER\n```sql\nSELECT 1\n```", "SELECT 1", true},
		{"bold with colon", "**Final Answer:**\n```sql\nSELECT a FROM t\n```", "SELECT a FROM t", true},
		{"same line", "Final answer: SELECT a FROM t;", "SELECT a FROM t", true},
		{"heading", "## Final answer\n\n```SQL\nSELECT b FROM t\n```", "SELECT b FROM t", true},
		{"colon then prose then fence", "Final answer: the query below counts them.\n```sql\nSELECT count(*) FROM t\n```", "SELECT count(*) FROM t", true},
		{"draft before the marker", "```sql\nSELECT draft FROM t\n```\nThat works.\nFINAL ANSWER:\n```sql\nSELECT final FROM t\n```", "SELECT final FROM t", true},
		{"mid-sentence mention", "Before the final answer, let me check the spelling: SELECT DISTINCT name FROM department", "", false},
		{"sentence starting with the words", "Final answer will come after I check the values:\n```sql\nSELECT DISTINCT name FROM department\n```", "", false},
		{"sql block alone", "```sql\nSELECT 1\n```", "", false},
		{"marker without sql", "FINAL ANSWER\nThere are 4 students.", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := finalSQL(tt.text)
			if got != tt.want || ok != tt.ok {
				t.Errorf("finalSQL(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// noReasoningFedBack checks that no request carries any turn's reasoning.
func noReasoningFedBack(t *testing.T, m *realModel) {
	t.Helper()
	for i, req := range m.Requests() {
		for _, msg := range req.Messages {
			for _, r := range m.replies {
				if r.Reasoning != "" && strings.Contains(msg.Content, r.Reasoning) {
					t.Errorf("request %d message %q carries reasoning %q; want reasoning kept out of the conversation", i, msg.Role, r.Reasoning)
				}
			}
		}
	}
}

// TestDSLEpisodeRealStyles runs the full method on mini question 0 with a
// model that explores in a ```python block behind prose, sends numbered
// calls in inline backticks, is cut at max_tokens right after an
// answer(...) (which must not end the episode), and answers with a
// trailing semicolon in an unlabelled fence.
func TestDSLEpisodeRealStyles(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	m := newRealModel([]testkit.Turn{
		{Reasoning: "The user wants CS majors. Draft: answer(r9). ```sql\nSELECT 1\n```",
			Text: "I'll look at the department names first.\n\n```python\nr1 = table_ref(\"department\", as=\"D\");\ndistinct_values(r1, \"D.name\", 10);\n```\n\nThen I can filter."},
		{Reasoning: "Computer Science is spelled like that.",
			Text: "The department is spelled 'Computer Science'. Plan:\n\n1. `r2 = join_table(r1, \"student\", on=\"S.major_dept = D.dept_id\", as=\"S\")`\n2. `r3 = filter_expr(r2, \"D.name = 'Computer Science'\")`\n3. `r4 = aggregate(r3, group_by=[], aggs=[\"count(*) AS n\"])`\n4. `execute(r4)` to check the count."},
		{Text: "The count is 4, so:\n```dsl\nanswer(r4)\n```\nThis returns the number of students who declared a major in", Finish: llm.FinishLength},
		{Reasoning: "Resend the answer.", Text: "```\nanswer(r4);\n```"},
	})
	res, err := newRunner(t, runners.Params{}).Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Trace.Counters["turns"]; got != 4 {
		t.Errorf("turns: got %v; want 4 (the cut turn 3 does not end the episode)", got)
	}
	if res.Trace.Counters[runners.CounterCut(runners.RoleReason)] != 1 || res.Trace.Counters["cut_answers_ignored"] != 1 || res.Trace.Counters["answered"] != 1 {
		t.Errorf("counters %v; want one cut turn whose answer is ignored, one answer", res.Trace.Counters)
	}
	if res.Trace.Counters["dsl_errors"] != 0 {
		t.Errorf("dsl_errors: got %v; want 0 (every call parses in its real style)", res.Trace.Counters["dsl_errors"])
	}
	if !sameAsGold(t, db, runkit.MiniQ0Gold, res.SQL) {
		t.Errorf("answer %q does not give the gold result", res.SQL)
	}
	noReasoningFedBack(t, m)
	if got := m.Requests()[1].Messages[2].Content; got != m.replies[0].Text {
		t.Errorf("assistant message of turn 1 = %q; want the answer text only", got)
	}
	if s := res.Trace.Steps[0]; s.Info["reasoning"] != m.replies[0].Reasoning || s.Info["finish_reason"] != llm.FinishStop {
		t.Errorf("step 1 info %v; want its reasoning and finish reason", s.Info)
	}
	if s := res.Trace.Steps[2]; s.Info["finish_reason"] != llm.FinishLength {
		t.Errorf("step 3 finish_reason %v; want length", s.Info["finish_reason"])
	}
	if obs := m.Requests()[3].Messages[len(m.Requests()[3].Messages)-1].Content; !strings.Contains(obs, "cut at the token limit") {
		t.Errorf("turn-4 observation %q; want the cut explained", obs)
	}
	if req := m.Requests()[0]; req.MaxTokens != DefaultMaxTokens {
		t.Errorf("max_tokens %d; want %d", req.MaxTokens, DefaultMaxTokens)
	}
}

// TestSQLEpisodeRealStyles runs the raw-SQL loop on mini question 0: an
// exploratory query that mentions "the final answer" mid-sentence and a
// ```sql block alone are run and observed; only the FINAL ANSWER line ends
// the episode.
func TestSQLEpisodeRealStyles(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	m := newRealModel([]testkit.Turn{
		{Reasoning: "FINAL ANSWER\n```sql\nSELECT 99\n```", Text: "Before the final answer, let me check the spelling of the department:\nSELECT DISTINCT name FROM department"},
		{Text: "It is 'Computer Science'. Now the count:\n```sql\nSELECT COUNT(*) FROM student s JOIN department d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science';\n```"},
		{Reasoning: "4 looks right.", Text: "The query returns 4.\n\n**FINAL ANSWER**\n```sql\nSELECT COUNT(*) FROM student s JOIN department d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'\n```"},
	})
	res, err := newRunner(t, runners.Params{"setting": SettingIterateSQL}).Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.Counters["turns"] != 3 || res.Trace.Counters["answered"] != 1 || res.Trace.Counters[CounterFallback] != 0 {
		t.Errorf("counters %v; want 3 turns ending in the FINAL ANSWER", res.Trace.Counters)
	}
	if !sameAsGold(t, db, runkit.MiniQ0Gold, res.SQL) {
		t.Errorf("answer %q does not give the gold result", res.SQL)
	}
	if res.Extraction != sqltext.ReasonFinalMarker {
		t.Errorf("extraction %q; want %q (the FINAL ANSWER line chose it)", res.Extraction, sqltext.ReasonFinalMarker)
	}
	obs := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1].Content
	if !strings.Contains(obs, "Computer Science") {
		t.Errorf("turn-2 observation %q; want the exploratory query's rows", obs)
	}
	noReasoningFedBack(t, m)
}

// TestFallbackBestSQL: when turns run out, the loop returns the last query
// that executed with rows, not a later one that failed or was empty, and
// says so.
func TestFallbackBestSQL(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	good := "SELECT COUNT(*) FROM student s JOIN department d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'"
	for _, tc := range []struct {
		setting string
		replies []testkit.Turn
	}{
		{SettingIterateSQL, []testkit.Turn{
			{Text: "```sql\n" + good + "\n```"},
			{Text: "```sql\nSELECT name FROM student WHERE name = 'nobody'\n```"},
			{Text: "```sql\nSELECT nme FROM student\n```"},
		}},
		{SettingIterateDSL, []testkit.Turn{
			{Text: "```dsl\nr1 = table_ref(\"student\", as=\"S\")\nr2 = join_table(r1, \"department\", on=\"S.major_dept = D.dept_id\", as=\"D\")\nr3 = filter_expr(r2, \"D.name = 'Computer Science'\")\nr4 = select_columns(r3, [\"count(*)\"])\nexecute(r4)\n```"},
			{Text: "```dsl\nr5 = filter_expr(r1, \"S.name = 'nobody'\")\nexecute(r5)\n```"},
			{Text: "```dsl\nr6 = table_ref(\"nosuch\")\n```"},
		}},
	} {
		t.Run(tc.setting, func(t *testing.T) {
			m := newRealModel(tc.replies)
			res, err := newRunner(t, runners.Params{"setting": tc.setting, "max_turns": 3}).Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
			if err != nil {
				t.Fatal(err)
			}
			if !sameAsGold(t, db, runkit.MiniQ0Gold, res.SQL) {
				t.Errorf("fallback %q; want the query that executed with rows", res.SQL)
			}
			if res.Trace.Counters[CounterFallback] != 1 || !strings.Contains(res.Note, "within 3 turns") || !strings.Contains(res.Note, "executed with rows") {
				t.Errorf("note %q counters %v; want the fallback explained", res.Note, res.Trace.Counters)
			}
		})
	}
}

// TestModelErrors: a permanent model error at a late turn (HTTP 400,
// context length exceeded) ends the episode with the best SQL so far; an
// endpoint failure (503 after retries, 401) is a Run error.
func TestModelErrors(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	good := "```sql\nSELECT COUNT(*) FROM student s JOIN department d ON s.major_dept = d.dept_id WHERE d.name = 'Computer Science'\n```"
	ctxLen := &llm.StatusError{StatusCode: 400, Message: "This model's maximum context length is 8192 tokens"}
	for _, tc := range []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"context length 400", ctxLen, false},
		{"wrapped 400", errors.Join(errors.New("cache"), ctxLen), false},
		{"503 after retries", &llm.StatusError{StatusCode: 503, Message: "overloaded"}, true},
		{"401", &llm.StatusError{StatusCode: 401, Message: "bad key"}, true},
		{"network", errors.New("dial tcp: connection refused"), true},
	} {
		for _, setting := range []string{SettingIterateSQL, SettingIterateDSL} {
			t.Run(tc.name+"/"+setting, func(t *testing.T) {
				m := newRealModel([]testkit.Turn{{Text: good}, {Err: tc.err}})
				res, err := newRunner(t, runners.Params{"setting": setting}).Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
				if (err != nil) != tc.wantErr {
					t.Fatalf("Run error %v; want error: %v", err, tc.wantErr)
				}
				if tc.wantErr {
					if !errors.Is(err, tc.err) {
						t.Errorf("error %v does not wrap %v", err, tc.err)
					}
					return
				}
				if !sameAsGold(t, db, runkit.MiniQ0Gold, res.SQL) || res.Trace.Counters[CounterModelErrors] != 1 || !strings.Contains(res.Note, "turn 2") {
					t.Errorf("SQL %q note %q counters %v; want the best SQL so far and the model error noted", res.SQL, res.Note, res.Trace.Counters)
				}
			})
		}
	}
}

// TestBaselineRealStyles: the one-call setting reads prose + fence answers,
// notes an answer without SQL, and takes SQL from a cut answer only when
// its block was closed before the cut.
func TestBaselineRealStyles(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	for _, tc := range []struct {
		name    string
		reply   testkit.Turn
		wantSQL bool
		note    string
	}{
		{"prose and fence", testkit.Turn{Reasoning: "```sql\nSELECT 1\n```", Text: "Here is the query:\n\n```sql\n" + runkit.MiniQ0Gold + ";\n```\n\nIt counts the students."}, true, ""},
		{"no sql", testkit.Turn{Text: "There are four such students."}, false, NoSQLNote},
		{"cut inside the sql", testkit.Turn{Text: "```sql\nSELECT COUNT(*) FROM student AS s JOIN department AS d ON s.major_dept = d.dept_id WHERE", Finish: llm.FinishLength}, false, "unfinished"},
		{"cut after a closed block", testkit.Turn{Text: "```sql\n" + runkit.MiniQ0Gold + "\n```\nThis query joins the student table with", Finish: llm.FinishLength}, true, "complete"},
		{"cut in reasoning", testkit.Turn{Reasoning: "Let me think about the joins", Text: "", Finish: llm.FinishLength}, false, NoSQLNote},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newRealModel([]testkit.Turn{tc.reply})
			res, err := newRunner(t, runners.Params{"setting": SettingBaseline}).Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
			if err != nil {
				t.Fatal(err)
			}
			if (res.SQL != "") != tc.wantSQL || tc.wantSQL && !sameAsGold(t, db, runkit.MiniQ0Gold, res.SQL) {
				t.Errorf("SQL %q; want the gold query: %v", res.SQL, tc.wantSQL)
			}
			if !strings.Contains(res.Note, tc.note) {
				t.Errorf("note %q; want it to contain %q", res.Note, tc.note)
			}
			if cut := tc.reply.Finish == llm.FinishLength; (res.Trace.Counters[runners.CounterCut(runners.RoleReason)] == 1) != cut {
				t.Errorf("cut counter %v; want counted: %v", res.Trace.Counters[runners.CounterCut(runners.RoleReason)], cut)
			}
		})
	}
}

// TestDSLSQLBlockIsAProbe: in the DSL setting a ```sql block alone does
// not end the episode (it used to be taken as the
// final answer); the query runs as a probe, the model sees its rows, and
// only answer(...) ends the episode.
func TestDSLSQLBlockIsAProbe(t *testing.T) {
	db := runkit.MiniDB(t, "university")
	m := newRealModel([]testkit.Turn{
		{Text: "Let me check the spelling first:\n```sql\nSELECT DISTINCT name FROM department\n```"},
		{Text: "```dsl\nr1 = table_ref(\"student\", as=\"S\")\nr2 = join_table(r1, \"department\", on=\"S.major_dept = D.dept_id\", as=\"D\")\nr3 = filter_expr(r2, \"D.name = 'Computer Science'\")\nr4 = select_columns(r3, [\"count(*)\"])\nexecute(r4)\nanswer(r4)\n```"},
	})
	res, err := newRunner(t, runners.Params{}).Run(context.Background(), runners.Task{Example: runkit.MiniQ0, DB: db, LLM: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.Counters["turns"] != 2 || res.Trace.Counters[CounterRawSQL] != 1 || res.Trace.Counters["answered"] != 1 {
		t.Errorf("counters %v; want the SQL block run as a probe and the answer on turn 2", res.Trace.Counters)
	}
	if obs := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1].Content; !strings.Contains(obs, "SQL probe -> 5 rows") || !strings.Contains(obs, "Computer Science") {
		t.Errorf("turn-2 observation %q; want the probe's rows (5 departments in university.sql)", obs)
	}
	if !sameAsGold(t, db, runkit.MiniQ0Gold, res.SQL) {
		t.Errorf("answer %q does not give the gold result", res.SQL)
	}
}
