package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
)

// keywordState is the part of an understanding or verification answer
// the keyword tests read.
type keywordState struct {
	Intent        string   `json:"intent"`
	Tables        []string `json:"tables"`
	FieldPatterns []string `json:"field_patterns"`
	Operators     []string `json:"operators"`
	Numbers       []struct {
		Value string `json:"value"`
	} `json:"numbers"`
}

func (s keywordState) kinds() [numKinds][]string {
	var nums []string
	for _, n := range s.Numbers {
		nums = append(nums, n.Value)
	}
	return [numKinds][]string{s.Tables, s.FieldPatterns, nums, s.Operators}
}

func parseKeywordState(t *testing.T, out string) keywordState {
	t.Helper()
	var st keywordState
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):strings.LastIndex(out, "}")+1]), &st); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return st
}

// binomialTol is the tolerance of a share observed over n draws against
// its expected value w: 4 binomial standard deviations, at least 0.01.
func binomialTol(w, n float64) float64 { return math.Max(4*math.Sqrt(w*(1-w)/n), 0.01) }

// checkKeepShares checks that each item x of want was kept in got[x] of
// n draws (selections, rounds: what) at its rate, within binomialTol.
func checkKeepShares(t *testing.T, got map[string]int, want map[string]float64, n float64, what string) {
	t.Helper()
	for x, w := range want {
		g := float64(got[x]) / n
		if tol := binomialTol(w, n); math.Abs(g-w) > tol {
			t.Errorf("%s: kept in %.3f of %s; want %.3f +- %.3f", x, g, what, w, tol)
		}
	}
}

// TestKeywordOperatingPoints checks the extraction and the verification
// against the model's operating points: over 200 request seeds of one
// question whose reading lists items of several tiers of every kind, each
// reading item is in the extraction with its tier's Extract keep rate and
// in the verified state with its Verified keep rate, each pool item with
// the pool rates (within 4 binomial sd, at least 0.01); where a tier's
// Verified rate is at least its Extract rate, every item the extraction
// kept is in the verified state (one draw per item); and a second
// verification round, shown the first round's state, answers it unchanged.
func TestKeywordOperatingPoints(t *testing.T) {
	t.Parallel()
	b := concertBenchmark(t, true)
	q := "How many singers from France above age 20 have a song name of more than 2 words?"
	b.Examples = append(b.Examples, datasets.Example{ID: "k", Index: len(b.Examples), DBID: "concert_singer", Question: q,
		GoldSQL: "SELECT count(*) FROM singer WHERE country = 'France' AND age > 20"})
	for _, name := range []string{"qwen2.5-7b", "gpt-4o"} {
		t.Run(name, func(t *testing.T) {
			m, err := New(b, Config{P: 0.6, Seed: 5, Profile: name})
			if err != nil {
				t.Fatal(err)
			}
			c := &Sample{Prompt: ParsePrompt(drawMessages(prompt(q, ""))), Question: q, model: m}
			k := keywordReading(c)
			ops := m.operatingPoints().stage
			// want[stage][kind][item] is the item's keep rate.
			var want [2][numKinds]map[string]float64
			for st := range 2 {
				for kind := range numKinds {
					want[st][kind] = map[string]float64{}
					for tier, items := range k.rank[kind].tiers {
						for _, x := range items {
							want[st][kind][x] = ops[st][kind].Tier[tier]
						}
					}
					for _, x := range k.rank[kind].pool {
						want[st][kind][x] = ops[st][kind].Pool
					}
				}
			}
			for kind := range numKinds {
				if len(k.rank[kind].items()) == 0 || len(k.rank[kind].pool) == 0 {
					t.Fatalf("%s: reading %v, pool %v; want a question with both", kindNames[kind], k.rank[kind].items(), k.rank[kind].pool)
				}
			}
			var got [2][numKinds]map[string]int
			for st := range 2 {
				for kind := range numKinds {
					got[st][kind] = map[string]int{}
				}
			}
			const n = 200
			for seed := range int64(n) {
				resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, ""), Responder: "iesr/understand", Seed: &seed})
				if err != nil {
					t.Fatal(err)
				}
				ext := parseKeywordState(t, resp.Choices[0])
				verify := func(st keywordState) keywordState {
					shown, _ := json.Marshal(st)
					resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, "【Extracted keywords】\n```json\n"+string(shown)+"\n```\n\n【Task】\nVerify the keywords."), Responder: "iesr/verify_keywords", Seed: &seed})
					if err != nil {
						t.Fatal(err)
					}
					return parseKeywordState(t, resp.Choices[0])
				}
				ver := verify(ext)
				if again := verify(ver); fmt.Sprint(again.kinds()) != fmt.Sprint(ver.kinds()) {
					t.Fatalf("seed %d: a second round gave %v; want the first round's %v", seed, again.kinds(), ver.kinds())
				}
				for st, s := range []keywordState{ext, ver} {
					for kind, items := range s.kinds() {
						for _, x := range items {
							got[st][kind][x]++
						}
					}
				}
				for kind, items := range ext.kinds() {
					for _, x := range items {
						if want[stageVerified][kind][x] >= want[stageExtract][kind][x] && !slices.Contains(ver.kinds()[kind], x) {
							t.Errorf("seed %d: %s %q kept by the extraction, dropped by the verification; want kept (its keep rate rises)", seed, kindNames[kind], x)
						}
					}
				}
			}
			for st := range 2 {
				for kind := range numKinds {
					for x, w := range want[st][kind] {
						g := float64(got[st][kind][x]) / n
						if tol := binomialTol(w, n); math.Abs(g-w) > tol {
							t.Errorf("stage %d %s %q: kept in %.3f of samples; want %.3f +- %.3f", st, kindNames[kind], x, g, w, tol)
						}
					}
					for x := range got[st][kind] {
						if _, ok := want[st][kind][x]; !ok {
							t.Errorf("stage %d %s %q: listed, but neither in the reading nor in its pool", st, kindNames[kind], x)
						}
					}
				}
			}
		})
	}
}

// TestIESRVerifyReadsShownState: the verification reads the state the
// prompt shows: it keeps the shown intent, drops what the prompt's schema
// lacks (the ghost table, singer.nope), and its keywords are its own
// reading's at the Verified row, whatever the shown state lists: two
// different shown states give the same keywords.
func TestIESRVerifyReadsShownState(t *testing.T) {
	t.Parallel()
	q := "What are all distinct countries where singers above age 20 are from?"
	b := concertBenchmark(t, true)
	m, err := New(b, Config{P: 0.6, Seed: 1, Profile: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range int64(20) {
		var kws [][numKinds][]string
		for _, shown := range []string{
			`{"intent": "lookup", "entities": ["France"], "tables": ["ghost", "stadium"], "field_patterns": ["singer.nope"], "numbers": [], "operators": []}`,
			`{"intent": "lookup", "entities": [], "tables": ["singer"], "field_patterns": ["singer.country"], "numbers": [{"value": "20", "unit": ""}], "operators": [">"]}`,
		} {
			resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, "【Extracted keywords】\n```json\n"+shown+"\n```\n\n【Task】\nVerify the keywords."), Responder: "iesr/verify_keywords", Seed: &seed})
			if err != nil {
				t.Fatal(err)
			}
			st := parseKeywordState(t, resp.Choices[0])
			if slices.Contains(st.Tables, "ghost") || slices.Contains(st.FieldPatterns, "singer.nope") {
				t.Fatalf("tables %v, field patterns %v; want no ghost table and no singer.nope (the schema lacks them)", st.Tables, st.FieldPatterns)
			}
			if st.Intent != "lookup" {
				t.Fatalf("intent %q; want the shown one kept", st.Intent)
			}
			kws = append(kws, st.kinds())
		}
		if fmt.Sprint(kws[0]) != fmt.Sprint(kws[1]) {
			t.Errorf("seed %d: keywords %v and %v after two shown states; want the same", seed, kws[0], kws[1])
		}
	}
}

// TestSchemaSelectionKeepRates: a schema selection keeps each table of
// the ranked reading at its tier's schema keep rate and each other shown
// table at the pool rate (within 4 binomial sd over 300 request seeds,
// at least 0.01), the rates whose expected recall against the gold on the
// benchmark's calibration is the profile's SchemaRecall (TestRecallPoint).
func TestSchemaSelectionKeepRates(t *testing.T) {
	t.Parallel()
	b := concertBenchmark(t, true)
	q := "How many singers from France above age 20 have a song name of more than 2 words?"
	b.Examples = append(b.Examples, datasets.Example{ID: "k", Index: len(b.Examples), DBID: "concert_singer", Question: q,
		GoldSQL: "SELECT count(*) FROM singer WHERE country = 'France' AND age > 20"})
	for _, name := range []string{"qwen2.5-7b", "gpt-4o"} {
		t.Run(name, func(t *testing.T) {
			m, err := New(b, Config{P: 0.6, Seed: 5, Profile: name})
			if err != nil {
				t.Fatal(err)
			}
			k := keywordReading(&Sample{Prompt: ParsePrompt(drawMessages(prompt(q, ""))), Question: q, model: m}).rank[KindTable]
			schema := m.operatingPoints().schema
			want := map[string]float64{}
			for tier, items := range k.tiers {
				for _, x := range items {
					want[x] = schema.Tier[tier]
				}
			}
			for _, x := range k.pool {
				want[x] = schema.Pool
			}
			got := map[string]int{}
			const n = 300
			for seed := range int64(n) {
				resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, ""), Responder: "iesr/schema_selection", Seed: &seed})
				if err != nil {
					t.Fatal(err)
				}
				out := resp.Choices[0]
				var sel struct {
					Tables []struct{ Table string } `json:"tables"`
				}
				if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):strings.LastIndex(out, "}")+1]), &sel); err != nil {
					t.Fatal(err)
				}
				for _, x := range sel.Tables {
					got[x.Table]++
				}
			}
			checkKeepShares(t, got, want, n, "selections")
		})
	}
}

// TestVerifyShownOutsideReading checks the precision side of a
// verification: a shown item outside the reading and its pool (a column
// of a table the question does not relate to, stadium.capacity) counts as
// a pool item, so over 400 request seeds it stays in the verified state
// in the Verified pool rate's share of rounds (within 4 binomial sd, at
// least 0.01), and a shown reading item in its tier's share.
func TestVerifyShownOutsideReading(t *testing.T) {
	t.Parallel()
	q := "What are all distinct countries where singers above age 20 are from?"
	b := concertBenchmark(t, true)
	for _, name := range []string{"qwen2.5-7b", "qwen3-8b"} {
		t.Run(name, func(t *testing.T) {
			m, err := New(b, Config{P: 0.6, Seed: 1, Profile: name})
			if err != nil {
				t.Fatal(err)
			}
			k := keywordReading(&Sample{Prompt: ParsePrompt(drawMessages(prompt(q, ""))), Question: q, model: m}).rank[KindColumn]
			const outside, inside = "stadium.capacity", "singer.country"
			if k.has(outside) || containsFold(k.pool, outside) {
				t.Fatalf("%s is in the reading or its pool; want a column outside both", outside)
			}
			ops := m.operatingPoints().stage[stageVerified][KindColumn]
			want := map[string]float64{outside: ops.Pool}
			for tier, items := range k.tiers {
				if containsFold(items, inside) {
					want[inside] = ops.Tier[tier]
				}
			}
			if _, ok := want[inside]; !ok {
				t.Fatalf("%s not in the reading %v", inside, k.tiers)
			}
			shown := `{"intent": "lookup", "tables": ["singer"], "field_patterns": ["` + outside + `", "` + inside + `"], "numbers": [], "operators": []}`
			got := map[string]int{}
			const n = 400
			for seed := range int64(n) {
				resp, err := m.Complete(context.Background(), llm.Request{Messages: prompt(q, "【Extracted keywords】\n```json\n"+shown+"\n```\n\n【Task】\nVerify the keywords."), Responder: "iesr/verify_keywords", Seed: &seed})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range parseKeywordState(t, resp.Choices[0]).FieldPatterns {
					got[f]++
				}
			}
			checkKeepShares(t, got, want, n, "rounds")
		})
	}
}

// TestKeywordsLeaveReadingPool: a verification's shown items join the
// pool of its own copy of the ranking, never the reading's: a reading
// whose pool has spare capacity keeps that capacity untouched.
func TestKeywordsLeaveReadingPool(t *testing.T) {
	t.Parallel()
	b := concertBenchmark(t, true)
	q := "How many singers from France above age 20?"
	m, err := New(b, Config{P: 0.6, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	c := &Sample{Prompt: ParsePrompt(drawMessages(prompt(q, ""))), Question: q, model: m}
	k := keywordReading(c)
	for kind := range numKinds {
		pool := make([]string, len(k.rank[kind].pool), len(k.rank[kind].pool)+4)
		copy(pool, k.rank[kind].pool)
		k.rank[kind].pool = pool
	}
	var shown [numKinds][]string
	for kind := range numKinds {
		shown[kind] = []string{"shown_only_" + kindNames[kind]}
	}
	for stage := range 2 {
		c.keywords(k, stage, &shown)
	}
	for kind := range numKinds {
		p := k.rank[kind].pool
		if spare := p[len(p):cap(p)]; slices.ContainsFunc(spare, func(s string) bool { return s != "" }) {
			t.Errorf("%s: the reading's pool's spare capacity holds %q; want it untouched", kindNames[kind], spare)
		}
	}
}
