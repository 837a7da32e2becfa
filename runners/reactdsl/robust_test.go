package reactdsl

import (
	"context"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runners"
)

// loopingModel is a fake llm.Client that answers every request with the
// next reply of a script and repeats the last reply forever, like a model
// stuck in a pattern.
func loopingModel(replies []string) *testkit.Model {
	return &testkit.Model{Reply: testkit.Looping(replies...)}
}

// TestGarbageModel feeds each setting the ways a real model fails (no
// code block, an empty string, a refusal, malformed DSL, JSON, a huge batch
// of probes, an endless stream of probes) and checks the runner degrades
// gracefully: no Go error, no panic, at most max_turns calls, and either a
// SQL answer or a note saying why there is none.
func TestGarbageModel(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "How many singers are from France?"}
	var many strings.Builder
	many.WriteString("```dsl\nr1 = table_ref(\"singer\")\n")
	for range 500 {
		many.WriteString("sample_rows(r1, 50)\n")
	}
	many.WriteString("```")
	probes := "```dsl\nr1 = table_ref(\"singer\")\ndistinct_values(r1, \"country\")\nexecute(r1)\n```"
	cases := []struct {
		name    string
		replies []string
		// wantSQL: an answer is expected (from the shaping pass); else a
		// note.
		wantSQL bool
	}{
		{"empty", []string{""}, false},
		{"refusal", []string{"I'm sorry, but I can't help with that request."}, false},
		{"json", []string{`{"sql": null, "answer": "France"}`}, false},
		{"malformed-dsl", []string{"```dsl\nr1 = table_ref(\"singer\"\nr2 = filter_expr(r9, 'x')\nanswer(\nr3 = nosuchop(r1)\nr4 = limit(r1, \"ten\")\n```"}, false},
		{"unterminated", []string{"```dsl\nr1 = table_ref(\"singer\")\nr2 = filter_expr(r1, \"name = 'x"}, true},
		{"binary", []string{"\x00\xff\xfe```dsl\n\x00r1 = \xff(\n```"}, false},
		{"answer-undefined", []string{"```dsl\nanswer(r7)\n```"}, false},
		{"endless-probes", []string{probes}, true},
		{"huge-batch", []string{many.String()}, true},
	}
	for _, setting := range []string{SettingBaseline, SettingIterateSQL, SettingIterateDSL} {
		for _, tc := range cases {
			t.Run(setting+"/"+tc.name, func(t *testing.T) {
				client := loopingModel(tc.replies)
				res, err := newRunner(t, runners.Params{"setting": setting, "max_turns": 4}).Run(context.Background(),
					runners.Task{Example: ex, DB: db, LLM: client})
				if err != nil {
					t.Fatalf("got error %v; want a model mistake recorded as data", err)
				}
				if client.Calls("") > 4 {
					t.Errorf("got %d model calls; want at most max_turns = 4", client.Calls(""))
				}
				if res.SQL == "" && res.Note == "" {
					t.Errorf("empty SQL without a note; trace %v", res.Trace.Counters)
				}
				if setting == SettingIterateDSL && tc.wantSQL && res.SQL == "" {
					t.Errorf("got no SQL (note %q); want the shaping pass to return the last relation", res.Note)
				}
				if setting == SettingIterateDSL && !tc.wantSQL && res.SQL != "" {
					t.Errorf("got SQL %q from garbage; want none", res.SQL)
				}
				if got := res.Trace.Counters["turns"]; int(got) != client.Calls("") {
					t.Errorf("turns counter %v; want %d (one per model call)", got, client.Calls(""))
				}
			})
		}
	}
}

// TestCallsPerTurnCap: a turn with more calls than max_calls_per_turn runs
// only the first ones and says so in the observation and the trace.
func TestCallsPerTurnCap(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "x"}
	prog := "```dsl\nr1 = table_ref(\"singer\")\nexecute(r1)\nexecute(r1)\nexecute(r1)\nanswer(r1)\n```"
	client := scripted(prog, "```dsl\nanswer(r1)\n```")
	res, err := newRunner(t, runners.Params{"max_calls_per_turn": 3}).Run(context.Background(), runners.Task{Example: ex, DB: db, LLM: client})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Trace.Counters["calls_dropped"]; got != 2 {
		t.Errorf("calls_dropped: got %v; want 2 (5 calls, cap 3)", got)
	}
	if got := res.Trace.Counters["probes"]; got != 2 {
		t.Errorf("probes: got %v; want 2 (the third execute is past the cap)", got)
	}
	obs := client.Requests()[1].Messages[len(client.Requests()[1].Messages)-1].Content
	if !strings.Contains(obs, "Only the first 3 calls") {
		t.Errorf("observation %q; want the cap explained", obs)
	}
	if res.Trace.Counters["answered"] != 1 || res.Trace.Counters["turns"] != 2 {
		t.Errorf("counters %v; want the answer on turn 2", res.Trace.Counters)
	}
}

// TestRequestsCarrySeed: every request carries the task's seed.
func TestRequestsCarrySeed(t *testing.T) {
	db, _ := fixture(t)
	ex := datasets.Example{ID: "q1", DBID: "concert", Question: "x"}
	for _, setting := range []string{SettingBaseline, SettingIterateSQL, SettingIterateDSL} {
		client := scripted("```sql\nSELECT 1\n```")
		if _, err := newRunner(t, runners.Params{"setting": setting, "max_turns": 1}).Run(context.Background(),
			runners.Task{Example: ex, DB: db, LLM: client, Seed: 42}); err != nil {
			t.Fatal(err)
		}
		if len(client.Requests()) != 1 || client.Requests()[0].Seed == nil || *client.Requests()[0].Seed != 42 {
			t.Errorf("%s: request seed %v; want 42", setting, client.Requests()[0].Seed)
		}
	}
}
