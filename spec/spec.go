package spec

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/internal/suggest"
	"github.com/t2sbench/t2sbench/metrics"
)

// Spec is an experiment: which runners, with which parameters, models and
// seeds, over which benchmarks. It is read from YAML with strict decoding:
// unknown keys and bad values are errors naming the file, line and path
// (e.g. "spec.yaml:12: runners[2].params.n_rollout: unknown parameter").
type Spec struct {
	// Name names the experiment (reports use it as the title).
	Name string `yaml:"name"`
	// Out is the run directory; the CLI's --out overrides it.
	Out string `yaml:"out"`
	// Cache is the directory of the shared model-response and gold-result
	// caches; default <out>/cache.
	Cache      string          `yaml:"cache"`
	Benchmarks []BenchmarkSpec `yaml:"benchmarks"`
	// Models are named model backends that roles are bound to.
	Models map[string]ModelSpec `yaml:"models"`
	// Roles is the default binding of model roles to model names.
	Roles   map[string]string `yaml:"roles"`
	Runners []RunnerSpec      `yaml:"runners"`
	// Seeds lists the seeds every trial runs with; default [0].
	Seeds []int64 `yaml:"seeds"`
	// Workers bounds the work items run at once; default DefaultWorkers.
	Workers int `yaml:"workers"`
	// Timeout bounds one work item; 0 means no limit.
	Timeout Duration `yaml:"timeout"`
	// Prices are USD per million tokens, by model name.
	Prices map[string]Price `yaml:"prices"`
	// MaxTrials caps the trials the plan may expand to (sweeps, grids,
	// ablations, backbones, seeds and benchmarks multiplied); default
	// DefaultMaxTrials. A plan over it is an error naming the runner
	// entry, before anything is expanded.
	MaxTrials int `yaml:"max_trials"`

	// ProfileUse is what the profile the spec was loaded with
	// (LoadOptions.Profile) changed; nil without one.
	ProfileUse *ProfileUse `yaml:"-" json:"-"`

	// file is the path the spec was read from, for error messages; locs
	// gives each path (runners[2].params.k) the place it came from: the
	// spec's file:line, a --models file's, or a --set expression.
	file string
	locs map[string]string
	// rebound names the models a --models file or --set redefined
	// (ModelLabels).
	rebound map[string]bool
}

// DefaultWorkers is the worker-pool size when a spec names none.
const DefaultWorkers = 8

// DefaultMaxTrials is the plan size cap when a spec names none: 10,000
// trials, a hundred times the largest paper table the experiments
// reproduce, and small enough to expand in memory at once. A simplex grid
// step or a sweep that would exceed it is almost always a typo (step:
// 0.0001 for 0.01).
const DefaultMaxTrials = 10000

// MaxTrialsCeiling is the largest trial cap that max_trials or run
// --max-trials can set: NewPlan holds every trial in memory (its
// parameters, models and benchmark), and a run stores each, so a plan
// over it is refused from its size alone, before anything is expanded,
// whatever cap is asked for.
const MaxTrialsCeiling = 100000

// maxTrials returns the effective trial cap: max_trials (default
// DefaultMaxTrials), at most MaxTrialsCeiling.
func (s *Spec) maxTrials() int {
	if s.MaxTrials > 0 {
		return min(s.MaxTrials, MaxTrialsCeiling)
	}
	return DefaultMaxTrials
}

// capSource names where the effective trial cap comes from, for errors.
func (s *Spec) capSource() string {
	if s.MaxTrials > MaxTrialsCeiling {
		return fmt.Sprintf("max_trials %d is over the largest cap a plan can have, %d", s.MaxTrials, MaxTrialsCeiling)
	}
	return "max_trials, run --max-trials"
}

// BenchmarkSpec names one benchmark split to run on.
type BenchmarkSpec struct {
	// Name is a datasets.Open name: mini, spider, bird, bird-minidev,
	// archer, logiccat.
	Name string `yaml:"name"`
	// Data is the data directory; "" means the loader's default.
	Data string `yaml:"data"`
	// Split selects the split where a benchmark has several.
	Split string `yaml:"split"`
	// Limit keeps the first Limit questions; 0 keeps all.
	Limit int `yaml:"limit"`
	// Mode overrides the EX comparator mode.
	Mode string `yaml:"mode"`
	// TieAware, beyond the official rules, accepts any valid top-k for a
	// gold ORDER BY ... LIMIT k whose boundary rows tie
	// (metrics.ScoreOptions.TieAware). Off by default: EX is official.
	TieAware bool `yaml:"tie_aware" json:"tie_aware,omitempty"`
	// MaxResultMB is the byte budget of one query result in MiB (default
	// datasets.DefaultMaxBytes, 64 MiB): over it the query is interrupted
	// and the prediction scores pred_error "result too large". It is not
	// part of the trial id (it changes no verdict of a result under it).
	MaxResultMB int64 `yaml:"max_result_mb" json:"max_result_mb,omitempty"`
	// MySQL runs LogicCat (its MySQL dialect: logiccat, logiccat-mini500,
	// logiccat-full-gold) on a MySQL/MariaDB server holding the dumps
	// (t2sbench datasets load-mysql) instead of its SQLite files.
	MySQL *MySQLSpec `yaml:"mysql" json:"mysql,omitempty"`
}

// MySQLSpec is the server a LogicCat benchmark runs on; it becomes a
// datasets.MySQLConfig. The account must be SELECT-only (the engine refuses
// any other) and the DSN must not hold its password: the password is read
// from the environment variable PasswordEnv and never stored.
type MySQLSpec struct {
	// DSN is a go-sql-driver/mysql DSN without password, e.g.
	// "t2s_ro@unix(/tmp/x/sock)/". DSNEnv names an environment variable
	// holding it instead (scripts/mariadb.sh picks a new socket per start).
	// Exactly one of the two is set.
	DSN    string `yaml:"dsn" json:"dsn,omitempty"`
	DSNEnv string `yaml:"dsn_env" json:"dsn_env,omitempty"`
	// PasswordEnv names the environment variable holding the password.
	PasswordEnv string `yaml:"password_env" json:"password_env,omitempty"`
	// Timeout is the per-query limit; 0 keeps the engine's default (30 s).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
}

// Config resolves the DSN (reading DSNEnv) into the engine configuration.
func (m *MySQLSpec) Config() (*datasets.MySQLConfig, error) {
	dsn := m.DSN
	if m.DSNEnv != "" {
		if dsn = os.Getenv(m.DSNEnv); dsn == "" {
			return nil, fmt.Errorf("mysql.dsn_env: environment variable %s is empty or unset", m.DSNEnv)
		}
	}
	if dsnHasPassword(dsn) {
		return nil, errors.New("mysql: the DSN holds a password; put it in the environment variable named by password_env")
	}
	return &datasets.MySQLConfig{DSN: dsn, PasswordEnv: m.PasswordEnv, Timeout: m.Timeout.D()}, nil
}

// Secrets returns the credentials the spec's models and servers are given
// (ModelSpec.Secrets, and each MySQL password_env's value), which the
// scheduler redacts from the error texts it stores when they could be
// secrets (llm.IsSecret). Unset variables give nothing; the result is
// sorted and without duplicates.
func (s *Spec) Secrets() []string {
	var out []string
	for _, m := range s.Models {
		out = append(out, m.Secrets()...)
	}
	for _, b := range s.Benchmarks {
		out = append(out, b.secrets()...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// secrets returns the password the benchmark's MySQL server is given (the
// value of its password_env), when the variable is set.
func (b BenchmarkSpec) secrets() []string {
	if b.MySQL == nil || b.MySQL.PasswordEnv == "" {
		return nil
	}
	if v := os.Getenv(b.MySQL.PasswordEnv); v != "" {
		return []string{v}
	}
	return nil
}

// Secrets returns the model's API keys (the values of its and its
// replicas' api_key_env) that are set: redacted from the requests the
// model cache keeps (llm.WithRedact) and from error texts, and hidden
// where stored answers that echo them are displayed (RunData.Redactor).
func (m ModelSpec) Secrets() []string {
	var out []string
	for _, env := range append([]string{m.APIKeyEnv}, replicaKeys(m.Replicas)...) {
		if v := os.Getenv(env); env != "" && v != "" {
			out = append(out, v)
		}
	}
	return out
}

func replicaKeys(rs []ReplicaSpec) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.APIKeyEnv)
	}
	return out
}

// dsnHasPassword reports whether a DSN's user part (before the first '@')
// has a ":password".
func dsnHasPassword(dsn string) bool {
	at := strings.Index(dsn, "@")
	return at >= 0 && strings.Contains(dsn[:at], ":")
}

// Key is the one identity of b's benchmark split, its name and split
// ("bird/minidev", "mini"): summaries, tables, compare and the viewer
// group and name benchmarks by it, and every other name of the benchmark
// derives from it: DatasetName (DatasetNameOf) for datasets.Open, eval's
// --benchmark and the "benchmark" field of verdict files, and report file
// names (a slug of it). A trial label's "@bird" word names the
// benchmark's Name only, as labels always have.
func (b BenchmarkSpec) Key() string {
	if b.Split != "" {
		return b.Name + "/" + b.Split
	}
	return b.Name
}

// DatasetName is the datasets.Open name of b ("bird-minidev"):
// DatasetNameOf(b.Key()).
func (b BenchmarkSpec) DatasetName() string { return DatasetNameOf(b.Key()) }

// DatasetNameOf turns a benchmark key ("bird/minidev", BenchmarkSpec.Key)
// into the benchmark's datasets.Open name ("bird-minidev"), the name eval
// --benchmark takes and verdict files record; a dataset name is returned
// unchanged, so that keys and dataset names match through it.
func DatasetNameOf(key string) string { return strings.ReplaceAll(key, "/", "-") }

// ModelSpec is one named model backend.
type ModelSpec struct {
	// Backend is "sim" or "openai".
	Backend string `yaml:"backend"`

	// P is sim's probability of answering correctly; RoleP overrides it by
	// role. Seed seeds sim.
	P     *float64           `yaml:"p"`
	Seed  int64              `yaml:"seed"`
	RoleP map[string]float64 `yaml:"role_p"`
	// Style is sim's answer style, clean (default) or realistic; CutRate
	// and ReasoningRate tune the realistic style (see simStyle).
	Style         string   `yaml:"style"`
	CutRate       *float64 `yaml:"cut_rate"`
	ReasoningRate *float64 `yaml:"reasoning_rate"`
	// SchemaPenalty, ValuePenalty and EvidencePenalty are sim's behaviour
	// model penalties (see simPenalties and the sim package).
	SchemaPenalty   *float64 `yaml:"schema_penalty"`
	ValuePenalty    *float64 `yaml:"value_penalty"`
	EvidencePenalty *float64 `yaml:"evidence_penalty"`
	// Rho is sim's intra-question correlation of samples and Profile its
	// backbone profile of intermediate answers (see the sim package).
	Rho     *float64 `yaml:"rho"`
	Profile string   `yaml:"profile"`

	// BaseURL, Model and APIKeyEnv address an OpenAI-compatible server;
	// the key is read from the environment variable APIKeyEnv and never
	// stored.
	BaseURL   string `yaml:"base_url"`
	Model     string `yaml:"model"`
	APIKeyEnv string `yaml:"api_key_env"`
	// Concurrency bounds requests in flight; RPM and TPM rate-limit
	// requests and tokens per minute (0: unlimited).
	Concurrency int      `yaml:"concurrency"`
	RPM         int      `yaml:"rpm"`
	TPM         int      `yaml:"tpm"`
	Timeout     Duration `yaml:"timeout"`
	MaxRetries  int      `yaml:"max_retries"`
	// MaxTokens is the token limit of requests that set none (0: the
	// server's default); MaxTokensParam names the parameter that carries
	// token limits (max_tokens, the default, or max_completion_tokens for
	// OpenAI's o-series); Structured is the structured-output mode of JSON
	// requests (strict, the default, json_object or none). See
	// llm.OpenAIConfig.
	MaxTokens      int    `yaml:"max_tokens"`
	MaxTokensParam string `yaml:"max_tokens_param"`
	Structured     string `yaml:"structured"`
	// Replicas are further servers of the same model (openai backend):
	// requests are balanced over base_url and the replicas (llm.Pool).
	// They are not part of Identity: adding one changes no trial id and no
	// cache key.
	Replicas []ReplicaSpec `yaml:"replicas"`
	// MaxResponseBytes and MaxChoiceBytes cap an answer's bytes after
	// decompression and one choice's text (0: llm's defaults,
	// llm.DefaultMaxResponseBytes and llm.DefaultMaxChoiceBytes); an
	// answer over a cap fails its call with class malformed. They reject
	// answers, never change one, so they are not part of Identity.
	MaxResponseBytes int64 `yaml:"max_response_bytes"`
	MaxChoiceBytes   int   `yaml:"max_choice_bytes"`
}

// ReplicaSpec is one further endpoint of a model; zero fields take the
// model's values.
type ReplicaSpec struct {
	BaseURL     string `yaml:"base_url" json:"base_url"`
	APIKeyEnv   string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	Concurrency int    `yaml:"concurrency" json:"concurrency,omitempty"`
	RPM         int    `yaml:"rpm" json:"rpm,omitempty"`
	TPM         int    `yaml:"tpm" json:"tpm,omitempty"`
}

// checkReplicas validates the replicas of openai model m at path p.
func (s *Spec) checkReplicas(p string, m ModelSpec) error {
	seen := map[string]string{strings.TrimRight(m.BaseURL, "/"): p + ".base_url"}
	for i, r := range m.Replicas {
		rp := fmt.Sprintf("%s.replicas[%d]", p, i)
		u := strings.TrimRight(r.BaseURL, "/")
		switch {
		case u == "":
			return s.errorf(rp+".base_url", "required")
		case !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://"):
			return s.errorf(rp+".base_url", "%q must start with http:// or https://", r.BaseURL)
		case seen[u] != "":
			return s.errorf(rp+".base_url", "%q repeats %s", r.BaseURL, seen[u])
		case r.Concurrency < 0 || r.RPM < 0 || r.TPM < 0:
			return s.errorf(rp, "concurrency, rpm and tpm must not be negative")
		}
		seen[u] = rp + ".base_url"
	}
	return nil
}

// Identity is the part of a model's configuration that changes its
// answers; it goes into trial ids. Throughput settings (concurrency, rate
// limits, timeouts, retries) and the key's variable name do not.
func (m ModelSpec) Identity() map[string]any {
	id := map[string]any{"backend": m.Backend}
	switch m.Backend {
	case "sim":
		p := DefaultSimP
		if m.P != nil {
			p = *m.P
		}
		id["p"] = p
		id["seed"] = m.Seed
		if len(m.RoleP) > 0 {
			id["role_p"] = m.RoleP
		}
		m.simStyleIdentity(id)
	default:
		id["base_url"] = m.BaseURL
		id["model"] = m.Model
		if m.MaxTokens > 0 {
			id["max_tokens"] = m.MaxTokens
		}
		if m.Structured != "" && m.Structured != "strict" {
			id["structured"] = m.Structured
		}
	}
	return id
}

// DefaultSimP is sim's probability of a correct answer when a spec gives
// none.
const DefaultSimP = 0.6

// Price is a model's price in USD per million tokens (prompt,
// completion): metrics.Price.
type Price = metrics.Price

// RunnerSpec is one runner entry; it expands into one or more trials.
type RunnerSpec struct {
	// Name is the registered runner name (runners.Names()).
	Name string `yaml:"name"`
	// Label overrides the readable trial label's prefix (default Name).
	Label string `yaml:"label"`
	// Params are the runner's parameters.
	Params map[string]any `yaml:"params"`
	// Roles override the spec's role bindings for this runner.
	Roles map[string]string `yaml:"roles"`
	// Sweep lists values per parameter; trials are the Cartesian product.
	Sweep map[string][]any `yaml:"sweep"`
	// Ablations are named parameter overrides; each is a trial next to the
	// full configuration (unless SkipFull).
	Ablations map[string]map[string]any `yaml:"ablations"`
	// SkipFull drops the full (un-ablated) configuration.
	SkipFull bool `yaml:"skip_full"`

	// ablationOrder is the order the ablations appear in the spec file,
	// which trials (and so report rows) follow.
	ablationOrder []string
	// Grid expands a simplex of weights (e.g. alpha, beta, gamma summing
	// to 1) at a step.
	Grid *GridSpec `yaml:"grid"`
	// Backbones lists models per role; trials are the Cartesian product.
	Backbones map[string][]string `yaml:"backbones"`
	// Seeds overrides the spec's seeds for this runner.
	Seeds []int64 `yaml:"seeds"`
}

// GridSpec is a simplex grid: every assignment of multiples of Step to the
// Simplex parameters that sums to 1.
type GridSpec struct {
	Simplex []string `yaml:"simplex"`
	Step    float64  `yaml:"step"`
}

// Duration is a time.Duration read from YAML as "30s" or a number of
// seconds.
type Duration time.Duration

// UnmarshalYAML reads "30s", "2m" or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 30s", n.Line)
	}
	if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
		if f < 0 {
			return fmt.Errorf("line %d: negative duration %q", n.Line, n.Value)
		}
		*d = Duration(f * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: bad duration %q (want e.g. 30s, 2m)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// LoadSpec reads and validates the spec at path.
func LoadSpec(path string) (*Spec, error) { return LoadSpecWith(path, LoadOptions{}) }

var lineRe = regexp.MustCompile(`line (\d+): `)

// fieldNotFoundRe matches yaml.v3's KnownFields error, which names a Go
// type the spec's author never wrote.
var fieldNotFoundRe = regexp.MustCompile(`field (\S+) not found in type (\S+)`)

// specTypes maps the Go type names yaml.v3 writes in its errors
// ("spec.RunnerSpec") to the types of the spec's tree, so that an unknown
// key can be answered with the closest key its mapping takes.
var specTypes = sync.OnceValue(func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || out[t.String()] != nil {
			return
		}
		out[t.String()] = t
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeOf(Spec{}))
	return out
})

// unknownKey rewrites yaml.v3's "field X not found in type T" in l into
// `unknown key "X"`, with the closest key of T when one is near, and
// returns the path of key X on line n (byPath: path -> line), else path
// (the line's path, which on a flow mapping's line is another node's).
func unknownKey(l string, n int, path string, byPath map[string]int) (string, string) {
	m := fieldNotFoundRe.FindStringSubmatch(l)
	if m == nil {
		return l, path
	}
	key := m[1]
	hint := ""
	if t, ok := specTypes()[m[2]]; ok {
		hint = suggest.Hint(key, yamlFields(t))
	}
	l = strings.Replace(l, m[0], fmt.Sprintf("unknown key %q%s", key, hint), 1)
	best := ""
	for p, line := range byPath {
		if line == n && (p == key || strings.HasSuffix(p, "."+key)) && (best == "" || p < best) {
			best = p
		}
	}
	if best != "" {
		path = best
	}
	return l, path
}

// ParseSpec decodes and validates a spec; file names it in errors.
// ${VAR} and ${VAR:-default} are read from the environment (see
// interpolate).
func ParseSpec(data []byte, file string) (*Spec, error) {
	return ParseSpecWith(data, file, LoadOptions{})
}

var errEOF = errors.New("EOF")

// checkFloats rejects NaN and infinite numbers anywhere in the spec (p:
// .nan, step: .inf, a sweep value -.inf), naming the file, line and path:
// no setting takes them, and range checks written as v < lo || v > hi let
// NaN through. (YAML reads a number that overflows, 1e999, as a string,
// which the field's decoder or the runner's parameter check refuses.)
func checkFloats(n *yaml.Node, path string, at func(line int) string) error {
	return walkScalars(n, path, func(n *yaml.Node, path string) error {
		if n.ShortTag() != "!!float" {
			return nil
		}
		v := strings.ToLower(n.Value)
		if strings.HasSuffix(v, ".nan") || strings.HasSuffix(v, ".inf") {
			return fmt.Errorf("%s: %s: %s is not a finite number", at(n.Line), path, n.Value)
		}
		return nil
	})
}

// annotate rewrites yaml's "line N: msg" into "loc: path: msg", loc being
// where line N came from (at) and path the line's (paths; byPath maps each
// path to its line). A result that starts with a location is marked with a
// leading NUL byte.
func annotate(msg string, paths map[int]string, byPath map[string]int, at func(line int) string) string {
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		line := 0
		l = lineRe.ReplaceAllStringFunc(l, func(m string) string {
			n, _ := strconv.Atoi(lineRe.FindStringSubmatch(m)[1])
			line = n
			if p, ok := paths[n]; ok && p != "" {
				_, p = unknownKey(l, n, p, byPath)
				return fmt.Sprintf("\x00%s: %s: ", at(n), p)
			}
			return fmt.Sprintf("\x00%s: ", at(n))
		})
		l, _ = unknownKey(l, line, "", nil)
		out = append(out, l)
	}
	joined := strings.Join(out, "; ")
	if strings.HasPrefix(joined, "\x00") {
		return "\x00" + strings.ReplaceAll(joined, "\x00", "")
	}
	return strings.ReplaceAll(joined, "\x00", "")
}

// indexPaths records, for every mapping key and sequence item, the path
// (runners[2].params.k) of the line it is on.
// ablationOrders returns, per runners[] entry, the names of its ablations
// in the order the spec file gives them (Go maps forget it).
func ablationOrders(root *yaml.Node) [][]string {
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	runners := mappingValue(doc, "runners")
	if runners == nil || runners.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([][]string, len(runners.Content))
	for i, r := range runners.Content {
		if abl := mappingValue(r, "ablations"); abl != nil && abl.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(abl.Content); j += 2 {
				out[i] = append(out[i], abl.Content[j].Value)
			}
		}
	}
	return out
}

// mappingValue returns the value of key in mapping node n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func indexPaths(n *yaml.Node, path string, byLine map[int]string, byPath map[string]int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			indexPaths(c, path, byLine, byPath)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if _, seen := byLine[k.Line]; !seen {
				byLine[k.Line] = p
			}
			byPath[p] = k.Line
			indexPaths(v, p, byLine, byPath)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if _, seen := byLine[c.Line]; !seen || c.Kind == yaml.ScalarNode {
				byLine[c.Line] = p
			}
			byPath[p] = c.Line
			indexPaths(c, p, byLine, byPath)
		}
	}
}

// errorf formats a validation error at path, with the line where the spec
// has it.
func (s *Spec) errorf(path, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", s.where(path), path, fmt.Sprintf(format, args...))
}

// where is the place path (or the nearest enclosing path) came from:
// file:line or a --set expression; the spec's file when unknown.
func (s *Spec) where(path string) string {
	if loc, ok := s.lookupLoc(path); ok {
		return loc
	}
	return s.file
}

func (s *Spec) lookupLoc(path string) (string, bool) {
	for p := path; p != ""; {
		if loc, ok := s.locs[p]; ok {
			return loc, true
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return "", false
}

// CheckBenchmarks refuses a benchmark whose name (with its split) known
// does not accept, naming the spec line (or --set expression) and the
// closest of the names a spec takes (datasets.SpecNames).
func (s *Spec) CheckBenchmarks(known func(name string) bool) error {
	for i, b := range s.Benchmarks {
		if known(b.DatasetName()) {
			continue
		}
		p := fmt.Sprintf("benchmarks[%d]", i)
		names := datasets.SpecNames()
		if b.Split != "" && known(b.Name) {
			return s.errorf(p+".split", "benchmark %s has no split %q (%s is not a benchmark it loads; t2sbench help spec lists the names)", b.Name, b.Split, b.DatasetName())
		}
		return s.errorf(p+".name", "unknown benchmark %q%s (known: %s)", b.Name, suggest.Hint(b.Name, names), strings.Join(names, ", "))
	}
	return nil
}

// validate checks values the decoder cannot.
func (s *Spec) validate() error {
	if err := s.validateBenchmarks(); err != nil {
		return err
	}
	if len(s.Runners) == 0 {
		return s.errorf("runners", "at least one runner is required")
	}
	names := s.modelNames()
	for _, n := range names {
		if err := s.validateModel("models."+n, s.Models[n]); err != nil {
			return err
		}
	}
	if err := s.validateModelRefs(names); err != nil {
		return err
	}
	for i, r := range s.Runners {
		if err := s.validateRunner(fmt.Sprintf("runners[%d]", i), r, names); err != nil {
			return err
		}
	}
	return nil
}

// validateBenchmarks checks the benchmark list: at least one, each named,
// with a sane limit, result cap and MySQL entry.
func (s *Spec) validateBenchmarks() error {
	if len(s.Benchmarks) == 0 {
		return s.errorf("benchmarks", "at least one benchmark is required")
	}
	for i, b := range s.Benchmarks {
		p := fmt.Sprintf("benchmarks[%d]", i)
		if b.Name == "" {
			return s.errorf(p+".name", "missing benchmark name")
		}
		if b.Limit < 0 {
			return s.errorf(p+".limit", "negative limit %d", b.Limit)
		}
		if b.MaxResultMB < 0 || b.MaxResultMB > 1<<20 {
			return s.errorf(p+".max_result_mb", "%d out of range [1, 1048576] (0: the default, %d)", b.MaxResultMB, datasets.DefaultMaxBytes>>20)
		}
		if m := b.MySQL; m != nil {
			if !datasets.NeedsServer(b.DatasetName()) {
				return s.errorf(p+".mysql", "only LogicCat (logiccat, logiccat-mini500, logiccat-full-gold) runs on MySQL, not %q", b.DatasetName())
			}
			if (m.DSN == "") == (m.DSNEnv == "") {
				return s.errorf(p+".mysql", "set exactly one of dsn and dsn_env")
			}
			if dsnHasPassword(m.DSN) {
				return s.errorf(p+".mysql.dsn", "holds a password; name its environment variable in password_env")
			}
		}
	}
	return nil
}

// modelNames returns the names of the spec's models, sorted.
func (s *Spec) modelNames() []string {
	return slices.Sorted(maps.Keys(s.Models))
}

// validateModel checks model m, at path p: that its keys fit its backend
// and the backend's own values.
func (s *Spec) validateModel(p string, m ModelSpec) error {
	if m.Backend != "openai" && (m.MaxTokens != 0 || m.MaxTokensParam != "" || m.Structured != "") {
		return s.errorf(p, "max_tokens, max_tokens_param and structured apply to the openai backend only")
	}
	if m.Backend != "sim" && (m.P != nil || len(m.RoleP) > 0 || m.Style != "" || m.CutRate != nil || m.ReasoningRate != nil || m.hasSimBehaviour()) {
		return s.errorf(p, "p, role_p, style, cut_rate, reasoning_rate, the *_penalty keys, rho and profile apply to the sim backend only")
	}
	switch m.Backend {
	case "sim":
		return s.validateSimModel(p, m)
	case "openai":
		return s.validateOpenAIModel(p, m)
	case "":
		return s.errorf(p+".backend", "missing backend (sim or openai)")
	default:
		return s.errorf(p+".backend", "unknown backend %q (want sim or openai)", m.Backend)
	}
}

// validateSimModel checks the values of sim model m at path p.
func (s *Spec) validateSimModel(p string, m ModelSpec) error {
	if len(m.Replicas) > 0 {
		return s.errorf(p+".replicas", "apply to the openai backend only")
	}
	if m.P != nil && (*m.P < 0 || *m.P > 1) {
		return s.errorf(p+".p", "%g out of range [0, 1]", *m.P)
	}
	for r, v := range m.RoleP {
		if v < 0 || v > 1 {
			return s.errorf(p+".role_p."+r, "%g out of range [0, 1]", v)
		}
	}
	if key, err := m.checkSimStyle(); err != nil {
		return s.errorf(p+"."+key, "%v", err)
	}
	return nil
}

// validateOpenAIModel checks the values of openai model m at path p.
func (s *Spec) validateOpenAIModel(p string, m ModelSpec) error {
	if m.BaseURL == "" {
		return s.errorf(p+".base_url", "required for the openai backend")
	}
	if m.Model == "" {
		return s.errorf(p+".model", "required for the openai backend")
	}
	if err := s.checkReplicas(p, m); err != nil {
		return err
	}
	if m.Concurrency < 0 || m.RPM < 0 || m.TPM < 0 || m.MaxRetries < 0 || m.MaxTokens < 0 {
		return s.errorf(p, "concurrency, rpm, tpm, max_retries and max_tokens must not be negative")
	}
	if m.MaxResponseBytes < 0 || m.MaxChoiceBytes < 0 {
		return s.errorf(p, "max_response_bytes and max_choice_bytes must not be negative")
	}
	switch m.MaxTokensParam {
	case "", "max_tokens", "max_completion_tokens":
	default:
		return s.errorf(p+".max_tokens_param", "%q must be max_tokens or max_completion_tokens", m.MaxTokensParam)
	}
	switch m.Structured {
	case "", "strict", "json_object", "none":
	default:
		return s.errorf(p+".structured", "%q must be strict, json_object or none", m.Structured)
	}
	return nil
}

// validateModelRefs checks the top-level keys that name models (roles,
// prices) and the worker and trial counts.
func (s *Spec) validateModelRefs(names []string) error {
	for role, m := range s.Roles {
		if _, ok := s.Models[m]; !ok {
			return s.errorf("roles."+role, "unknown model %q (models: %s)", m, strings.Join(names, ", "))
		}
	}
	for n := range s.Prices {
		if _, ok := s.Models[n]; !ok {
			return s.errorf("prices."+n, "unknown model %q", n)
		}
	}
	if s.Workers < 0 {
		return s.errorf("workers", "negative worker count %d", s.Workers)
	}
	if s.MaxTrials < 0 {
		return s.errorf("max_trials", "negative trial cap %d", s.MaxTrials)
	}
	return nil
}

// validateRunner checks runner r at path p: its name, the models its roles
// and backbones name (names: the spec's models, sorted), its sweep and grid.
func (s *Spec) validateRunner(p string, r RunnerSpec, names []string) error {
	if r.Name == "" {
		return s.errorf(p+".name", "missing runner name")
	}
	for role, m := range r.Roles {
		if _, ok := s.Models[m]; !ok {
			return s.errorf(p+".roles."+role, "unknown model %q (models: %s)", m, strings.Join(names, ", "))
		}
	}
	for role, ms := range r.Backbones {
		if len(ms) == 0 {
			return s.errorf(p+".backbones."+role, "empty model list")
		}
		for j, m := range ms {
			if _, ok := s.Models[m]; !ok {
				return s.errorf(fmt.Sprintf("%s.backbones.%s[%d]", p, role, j), "unknown model %q (models: %s)", m, strings.Join(names, ", "))
			}
		}
	}
	for k, vs := range r.Sweep {
		if len(vs) == 0 {
			return s.errorf(p+".sweep."+k, "empty value list")
		}
	}
	if g := r.Grid; g != nil {
		if len(g.Simplex) < 2 {
			return s.errorf(p+".grid.simplex", "want at least two parameters")
		}
		if g.Step <= 0 || g.Step > 0.5 {
			return s.errorf(p+".grid.step", "%g out of range (0, 0.5]", g.Step)
		}
		if k := 1 / g.Step; k-float64(int(k+0.5)) > 1e-9 || float64(int(k+0.5))-k > 1e-9 {
			return s.errorf(p+".grid.step", "%g does not divide 1", g.Step)
		}
	}
	if r.SkipFull && len(r.Ablations) == 0 {
		return s.errorf(p+".skip_full", "set without ablations")
	}
	return nil
}

// String formats the duration as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }
