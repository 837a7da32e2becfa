package bench

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

func TestReplicasSpecErrors(t *testing.T) {
	const head = "benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nmodels:\n  l:\n    backend: openai\n    base_url: http://a:8000/v1\n    model: m\n    replicas:\n"
	tests := []struct{ name, yaml, want string }{
		{"no base_url", head + "      - {concurrency: 4}\n", "bad.yaml:9: models.l.replicas[0].base_url: required"},
		{"bad scheme", head + "      - {base_url: \"gpu1:8000/v1\"}\n", `bad.yaml:9: models.l.replicas[0].base_url: "gpu1:8000/v1" must start with http:// or https://`},
		{"repeats base_url", head + "      - base_url: http://a:8000/v1/\n", `bad.yaml:9: models.l.replicas[0].base_url: "http://a:8000/v1/" repeats models.l.base_url`},
		{"repeats a replica", head + "      - base_url: http://b/v1\n      - base_url: http://b/v1\n", `bad.yaml:10: models.l.replicas[1].base_url: "http://b/v1" repeats models.l.replicas[0].base_url`},
		{"negative", head + "      - {base_url: http://b/v1, rpm: -1}\n", "bad.yaml:9: models.l.replicas[0]: concurrency, rpm and tpm must not be negative"},
		{"unknown key", head + "      - {base_url: http://b/v1, weight: 2}\n", `9: models.l.replicas[0].weight: unknown key "weight"`},
		{"on sim", "benchmarks: [{name: mini}]\nrunners: [{name: direct}]\nmodels:\n  s:\n    backend: sim\n    replicas: [{base_url: http://b/v1}]\n", "bad.yaml:6: models.s.replicas: apply to the openai backend only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.ParseSpec([]byte(tt.yaml), "bad.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want containing %q", err, tt.want)
			}
		})
	}
}

// TestReplicasKeepTrialIDs: replicas are where a model is served, not
// what it is: adding them changes no trial id.
func TestReplicasKeepTrialIDs(t *testing.T) {
	const one = "benchmarks: [{name: fake}]\nmodels:\n  l: {backend: openai, base_url: \"http://a:8000/v1\", model: m}\nroles: {reason: l}\nrunners: [{name: direct}, {name: sc, params: {k: 3}}]\n"
	const three = "benchmarks: [{name: fake}]\nmodels:\n  l:\n    backend: openai\n    base_url: \"http://a:8000/v1\"\n    model: m\n    replicas: [{base_url: \"http://b:8000/v1\", concurrency: 32}, {base_url: \"http://c:8000/v1\"}]\nroles: {reason: l}\nrunners: [{name: direct}, {name: sc, params: {k: 3}}]\n"
	ids := func(yml string) []string {
		var out []string
		for _, tr := range mustPlan(t, yml).Trials {
			out = append(out, tr.ID)
		}
		return out
	}
	if a, b := ids(one), ids(three); !reflect.DeepEqual(a, b) {
		t.Errorf("trial ids with replicas: got %v; want %v (those without)", b, a)
	}
}

// TestRunOverReplicas: a run whose model is served by three fake servers
// spreads its calls over them, answers every question, and stores the
// per-endpoint counters, which a resume adds to and merge sums.
func TestRunOverReplicas(t *testing.T) {
	gold := regexp.MustCompile(`question number (\d+)\?`)
	answer := func(r *fakeopenai.Request, _ fakeopenai.Sample) fakeopenai.Choice {
		m := gold.FindStringSubmatch(r.Messages[len(r.Messages)-1].Content)
		if m == nil {
			return fakeopenai.Choice{Content: "no question"}
		}
		return fakeopenai.Choice{Content: "```sql\nSELECT " + m[1] + "\n```"}
	}
	var srvs []*fakeopenai.Server
	for range 3 {
		srvs = append(srvs, fakeopenai.New(t, fakeopenai.Options{Responder: answer}))
	}
	yml := fmt.Sprintf(`name: pooled
benchmarks: [{name: fake}]
models:
  l:
    backend: openai
    base_url: %s
    model: m
    concurrency: 2
    replicas:
      - {base_url: %s}
      - {base_url: %s, concurrency: 1}
roles: {reason: l}
workers: 6
runners:
  - name: direct
`, srvs[0].BaseURL(), srvs[1].BaseURL(), srvs[2].BaseURL())
	p := mustPlan(t, yml)
	base, _ := testEnv(30, 1, nil)
	real, closeEnv := DefaultEnv()
	defer closeEnv()
	env := Env{OpenBenchmark: base.OpenBenchmark, NewScorer: base.NewScorer, NewClient: real.NewClient}
	dir := t.TempDir()
	sum, err := runOnce(t, dir, p, env, Options{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 20 || sum.Correct != 20 {
		t.Fatalf("done %d, correct %d; want 20, 20", sum.Done, sum.Correct)
	}
	r, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Endpoints) != 3 {
		t.Fatalf("endpoint rows: got %+v; want 3", r.Endpoints)
	}
	var calls int64
	for i, e := range r.Endpoints {
		calls += e.Calls
		if e.Model != "l" || e.Errors != 0 || e.Calls == 0 || e.MeanLatencyMS() <= 0 {
			t.Errorf("endpoint %d: got %+v; want model l, calls > 0, no errors, a latency", i, e)
		}
	}
	served := 0
	for _, s := range srvs {
		served += s.Calls()
	}
	if calls != int64(served) || calls != 20 {
		t.Errorf("calls in endpoint_stats: got %d; want %d (what the servers got) = 20 (one per question)", calls, served)
	}

	// A second session adds its increments; merge sums shards.
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddEndpointStats([]runstore.EndpointStat{{Model: "l", Endpoint: r.Endpoints[0].Endpoint, Calls: 5, Errors: 1, LatencyMSSum: 40, LatencyMSMax: 1e6}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r2, err := runstore.ReadRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	e0, e1 := r.Endpoints[0], r2.Endpoints[0]
	if e1.Calls != e0.Calls+5 || e1.Errors != 1 || e1.LatencyMSSum != e0.LatencyMSSum+40 || e1.LatencyMSMax != 1e6 {
		t.Errorf("after adding {5 calls, 1 error, 40 ms, max 1e6 ms}: got %+v; want added to %+v", e1, e0)
	}
	// A second directory of the same trials holding no item, only the
	// same endpoint counters, stands for a second shard.
	other := t.TempDir()
	ost, err := runstore.OpenStore(other)
	if err != nil {
		t.Fatal(err)
	}
	trials := make([]*spec.Trial, len(r2.Trials))
	for i := range r2.Trials {
		trials[i] = &r2.Trials[i].Trial
	}
	if err := ost.PutTrials(trials); err != nil {
		t.Fatal(err)
	}
	if err := ost.AddEndpointStats(r2.Endpoints); err != nil {
		t.Fatal(err)
	}
	ost.Close()
	out := filepath.Join(t.TempDir(), "merged")
	if _, err := runstore.Merge(out, dir, other); err != nil {
		t.Fatal(err)
	}
	m, err := runstore.ReadRun(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Endpoints) != len(r2.Endpoints) {
		t.Fatalf("merged endpoints: got %+v; want %d rows", m.Endpoints, len(r2.Endpoints))
	}
	for i := range m.Endpoints {
		if got, want := m.Endpoints[i].Calls, 2*r2.Endpoints[i].Calls; got != want {
			t.Errorf("merged endpoint %d calls: got %d; want %d (twice the shard's)", i, got, want)
		}
	}
}

// TestReplicaSecrets: a replica's key is redacted like the model's.
func TestReplicaSecrets(t *testing.T) {
	t.Setenv("T2SBENCH_TEST_KEY_A", "sk-a")
	t.Setenv("T2SBENCH_TEST_KEY_B", "sk-b")
	m := spec.ModelSpec{Backend: "openai", BaseURL: "http://a/v1", Model: "m", APIKeyEnv: "T2SBENCH_TEST_KEY_A",
		Replicas: []spec.ReplicaSpec{{BaseURL: "http://b/v1", APIKeyEnv: "T2SBENCH_TEST_KEY_B"}, {BaseURL: "http://c/v1"}}}
	if got, want := m.Secrets(), []string{"sk-a", "sk-b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("secrets: got %q; want %q", got, want)
	}
}
