package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// channelQuestions are the questions of the channel tests, over
// testdata/concert.sql. Values and evidence are given to the model only by
// the prompt's "Values:" and "Evidence:" lines, never by the question, so
// that a test can remove them.
var channelQuestions = []struct {
	q, sql, evidence, values string
}{
	// Needs table singer (and its column country); literal 'France' from the values line.
	{"How many singers come from the country of the Eiffel tower?", "SELECT count(*) FROM singer WHERE country = 'France'", "", "singer.country: France"},
	// Needs singer.age only.
	{"What is the average age of all singers?", "SELECT avg(age) FROM singer", "", ""},
	// Needs stadium only; evidence defines "big".
	{"How many big stadiums are there?", "SELECT count(*) FROM stadium WHERE capacity > 10000", "big refers to capacity > 10000", ""},
	// Needs concert only.
	{"How many concerts are there?", "SELECT count(*) FROM concert", "", ""},
	// Needs stadium; literal 'Raith Rovers' from the values line, evidence too.
	{"What is the total capacity of stadiums at the home of the Rovers?", "SELECT sum(capacity) FROM stadium WHERE location = 'Raith Rovers'", "the home of the Rovers is a location", "stadium.location: Raith Rovers"},
}

func channelBenchmark(t *testing.T) *datasets.Benchmark {
	b := concertBenchmark(t, true)
	b.Examples = nil
	for i, c := range channelQuestions {
		b.Examples = append(b.Examples, datasets.Example{ID: fmt.Sprint(i), Index: i, DBID: "concert_singer", Question: c.q, GoldSQL: c.sql, Evidence: c.evidence})
	}
	return b
}

// promptParts is what a channel-test prompt carries.
type promptParts struct {
	schema   string // the schema section
	values   bool   // the "Values:" line
	evidence bool   // the "Evidence:" line
	question bool
}

func channelPrompt(i int, pp promptParts, attempt int) []llm.Message {
	c := channelQuestions[i]
	var u strings.Builder
	fmt.Fprintf(&u, "Database: concert_singer (attempt %d)\nSchema:\n%s\n", attempt, pp.schema)
	if pp.values && c.values != "" {
		u.WriteString("Values: " + c.values + "\n")
	}
	if pp.evidence && c.evidence != "" {
		u.WriteString("Evidence: " + c.evidence + "\n")
	}
	if pp.question {
		u.WriteString("Question: " + c.q + "\n")
	}
	return []llm.Message{{Role: "system", Content: "You are a careful SQL expert. Answer with one ```sql block."}, {Role: "user", Content: u.String()}}
}

// withoutTable removes table's CREATE TABLE statement from a schema.
func withoutTable(schema, table string) string {
	re := regexp.MustCompile(`(?s)CREATE TABLE ` + table + ` \(.*?\n\);\n`)
	return re.ReplaceAllString(schema, "")
}

// withoutColumn removes one column line of table from a schema.
func withoutColumn(schema, table, col string) string {
	i := strings.Index(schema, "CREATE TABLE "+table+" (")
	j := i + strings.Index(schema[i:], ");")
	block := regexp.MustCompile(`(?m)^\s*`+col+` [^\n]*\n`).ReplaceAllString(schema[i:j], "")
	return schema[:i] + block + schema[j:]
}

// channelSamples is the number of samples per question and condition:
// 100 requests (the attempt number in the prompt varies the seed) of 20.
const channelSamples = 2000

// accuracy is the share of samples of question i whose SQL is the gold.
func accuracy(t *testing.T, s *Model, i int, pp promptParts) float64 {
	t.Helper()
	right := 0
	for a := range channelSamples / 20 {
		resp, err := s.Complete(context.Background(), llm.Request{Messages: channelPrompt(i, pp, a), N: 20, Answer: llm.AnswerSQL})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range resp.Choices {
			if fencedSQL(t, c) == channelQuestions[i].sql {
				right++
			}
		}
	}
	return float64(right) / channelSamples
}

// tolerance is 4 binomial standard deviations of a share q over
// channelSamples draws (at least 0.005 for q = 0): a true model misses it
// about once in 16,000 checks.
func tolerance(q float64) float64 {
	return math.Max(4*math.Sqrt(q*(1-q)/channelSamples), 0.005)
}

// TestChannels removes one information channel at a time from the prompt
// and checks each question's sample accuracy: p times (1 - penalty) for
// the questions whose gold needs what was removed, p for the others
// (P(right) formula of the package documentation; p = 0.6, penalties at
// their defaults except the schema penalty, set to 0.5 so that the test
// also sees a partial one; rho = 0, so that every question's success
// probability is p itself: TestDifficulty checks the questions' spread).
func TestChannels(t *testing.T) {
	const p = 0.6
	half := 0.5
	s, err := New(channelBenchmark(t), Config{P: p, Seed: 2, SchemaPenalty: &half, Rho: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	full := promptParts{schema: concertSchema, values: true, evidence: true, question: true}
	tests := []struct {
		name string
		pp   promptParts
		// penalty per question (0: does not need what was removed)
		penalty []float64
	}{
		{"everything", full, []float64{0, 0, 0, 0, 0}},
		{"no table singer", promptParts{withoutTable(concertSchema, "singer"), true, true, true}, []float64{half, half, 0, 0, 0}},
		{"no column singer.country", promptParts{withoutColumn(concertSchema, "singer", "country"), true, true, true}, []float64{half, 0, 0, 0, 0}},
		{"no schema", promptParts{"(not shown)", true, true, true}, []float64{half, half, half, half, half}},
		{"no values", promptParts{concertSchema, false, true, true}, []float64{DefaultValuePenalty, 0, 0, 0, DefaultValuePenalty}},
		{"no evidence", promptParts{concertSchema, true, false, true}, []float64{0, 0, DefaultEvidencePenalty, 0, DefaultEvidencePenalty}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range channelQuestions {
				want := p * (1 - tc.penalty[i])
				got := accuracy(t, s, i, tc.pp)
				t.Logf("question %d: accuracy %.3f; want %.3f +- %.3f", i, got, want, tolerance(want))
				if math.Abs(got-want) > tolerance(want) {
					t.Errorf("question %d (%s): accuracy %.3f; want p*(1-%g) = %.3f +- %.3f", i, channelQuestions[i].sql, got, tc.penalty[i], want, tolerance(want))
				}
			}
		})
	}
}

// TestChannelDefaults checks the default penalties end to end for one
// question needing each channel: a missing table forces a mistake in
// every sample (schema_penalty 1), and the forced mistake is of the kind
// the missing channel names.
func TestChannelDefaults(t *testing.T) {
	s, err := New(channelBenchmark(t), Config{P: 1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := accuracy(t, s, 1, promptParts{withoutTable(concertSchema, "singer"), true, true, true}); got != 0 {
		t.Errorf("no table singer, default schema penalty: accuracy %.3f; want 0", got)
	}
	for _, tc := range []struct {
		name string
		i    int
		pp   promptParts
		kind string
	}{
		{"table", 1, promptParts{withoutTable(concertSchema, "singer"), true, true, true}, MistakeTable},
		{"column", 0, promptParts{withoutColumn(concertSchema, "singer", "country"), true, true, true}, MistakeColumn},
		{"value", 0, promptParts{concertSchema, false, true, true}, MistakeValue},
		{"evidence", 2, promptParts{concertSchema, true, false, true}, MistakeEvidence},
	} {
		kinds := map[string]int{}
		pr := ParsePrompt(channelPrompt(tc.i, tc.pp, 0))
		ex := s.b.Examples[tc.i]
		_, sch := s.database(context.Background(), ex.DBID)
		for k := range 200 {
			c := &Sample{Prompt: pr, P: 1, example: ex, schema: sch, model: s, correct: true,
				Rand: newRand(uint64(k), 1), chRand: newRand(uint64(k), 2)}
			o := c.Outcome()
			kinds[o.Kind]++
			if o.Kind == tc.kind && o.SQL == ex.GoldSQL {
				t.Errorf("%s: a %s mistake gave the gold SQL", tc.name, o.Kind)
			}
		}
		if kinds[tc.kind] == 0 || kinds[tc.kind]+kinds[""] != 200 {
			t.Errorf("%s: outcome kinds %v; want only %s (and right answers)", tc.name, kinds, tc.kind)
		}
	}
}

// TestNoQuestion: a prompt without the question cannot be answered; the
// call fails with ErrNoQuestion, which a runner records as a failed
// (wrong) sample.
func TestNoQuestion(t *testing.T) {
	s, err := New(channelBenchmark(t), Config{P: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Complete(context.Background(), llm.Request{Messages: channelPrompt(0, promptParts{concertSchema, true, true, false}, 0)})
	if !errors.Is(err, ErrNoQuestion) {
		t.Errorf("prompt without the question: err = %v; want ErrNoQuestion", err)
	}
}

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }
