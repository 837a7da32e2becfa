package validate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// manifests is deploy/k8s, the parent of this module.
const manifests = ".."

func load(t *testing.T) []Object {
	t.Helper()
	objs, err := LoadDir(manifests)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func find[T any](t *testing.T, objs []Object, kind, name string) T {
	t.Helper()
	for _, o := range objs {
		if o.Kind == kind && o.Name == name {
			v, ok := o.Value.(T)
			if !ok {
				t.Fatalf("%v is a %T", o, o.Value)
			}
			return v
		}
	}
	t.Fatalf("no %s %q in %s", kind, name, manifests)
	var zero T
	return zero
}

// TestManifestsDecode decodes every document strictly and checks that the
// walkthrough's objects are all there.
func TestManifestsDecode(t *testing.T) {
	objs := load(t)
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind+"/"+o.Name)
	}
	slices.Sort(got)
	want := []string{"ConfigMap/t2sbench-spec", "Deployment/vllm", "Job/t2sbench-merge", "Job/t2sbench-shards",
		"PersistentVolumeClaim/t2sbench-work", "Pod/t2sbench-shell", "Service/vllm"}
	if !slices.Equal(got, want) {
		t.Errorf("objects %q; want %q", got, want)
	}
}

// TestStrictDecoding checks that the decoder rejects what kubectl apply
// would reject or silently drop.
func TestStrictDecoding(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n"
	tests := []struct{ name, doc, want string }{
		{"unknown field", job + "  completionMod: Indexed\n", `unknown field "completionMod"`},
		{"duplicate field", job + "  completions: 2\n  completions: 3\n", `"completions" already set`},
		{"wrong type", job + "  completions: four\n", "cannot unmarshal string"},
		{"unknown kind", "apiVersion: batch/v1\nkind: Jobb\nmetadata: {name: j}\n", `unknown apiVersion "batch/v1" kind "Jobb"`},
		{"no name", "apiVersion: v1\nkind: ConfigMap\n", "no metadata.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("x.yaml", []byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode error %v; want one containing %q", err, tt.want)
			}
		})
	}
	objs, err := Decode("x.yaml", []byte("# two documents\n"+job+"  completions: 2\n---\n"+strings.Replace(job, "name: j", "name: k", 1)+"  completions: 3\n"))
	if err != nil || len(objs) != 2 || *objs[1].Value.(*batchv1.Job).Spec.Completions != 3 {
		t.Errorf("two documents: %v, %v; want jobs j and k", objs, err)
	}
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		m[e.Name] = e
	}
	return m
}

func container(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return corev1.Container{}
}

// script returns a Job container's shell script (command /bin/sh -c).
func script(t *testing.T, c corev1.Container) string {
	t.Helper()
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("container %s: command %q args %d; want /bin/sh -c and one script", c.Name, c.Command, len(c.Args))
	}
	return c.Args[0]
}

// call is one invocation of the fake t2sbench.
type call []string

// runScript runs a Job's script under /bin/sh with a fake t2sbench first on
// PATH, the container's literal env plus extra, and /tmp/ moved into a
// temporary directory. The fake logs its arguments, prints $FAKE_OUT and
// exits $FAKE_RC. It returns the script's exit status and the calls.
func runScript(t *testing.T, sh string, c corev1.Container, extra ...string) (int, []call) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	fake := "#!/bin/sh\n" +
		`for a in "$@"; do printf '%s\037' "$a" >>"$FAKE_LOG"; done; printf '\n' >>"$FAKE_LOG"` + "\n" +
		`[ -n "${FAKE_OUT:-}" ] && printf '%s\n' "$FAKE_OUT"` + "\n" +
		`exit "${FAKE_RC:-0}"` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "t2sbench"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", strings.ReplaceAll(sh, "/tmp/", dir+"/"))
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "FAKE_LOG=" + log}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	out, err := cmd.CombinedOutput()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, _ := os.ReadFile(log)
	var calls []call
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l != "" {
			calls = append(calls, strings.Split(strings.TrimSuffix(l, "\037"), "\037"))
		}
	}
	return rc, calls
}

// mountOf returns the container's mount at path.
func mountOf(t *testing.T, c corev1.Container, path string) corev1.VolumeMount {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return m
		}
	}
	t.Fatalf("container %s mounts nothing at %s", c.Name, path)
	return corev1.VolumeMount{}
}

// under returns the mount of c that holds path (the longest mount path).
func under(c corev1.Container, path string) (corev1.VolumeMount, bool) {
	var best corev1.VolumeMount
	ok := false
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/") && len(m.MountPath) > len(best.MountPath) {
			best, ok = m, true
		}
	}
	return best, ok
}

func volume(t *testing.T, spec corev1.PodSpec, name string) corev1.Volume {
	t.Helper()
	for _, v := range spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %q", name)
	return corev1.Volume{}
}

// shardDirs runs the shard Job's script for every completion index and
// returns the run directories it wrote (relative to root), checking each
// call's flags.
func shardDirs(t *testing.T, job *batchv1.Job, root string) []string {
	t.Helper()
	c := container(t, job.Spec.Template.Spec, "t2sbench")
	env := envOf(c)
	n, err := strconv.Atoi(env["SHARDS"].Value)
	if err != nil {
		t.Fatalf("SHARDS %q: %v", env["SHARDS"].Value, err)
	}
	sh := script(t, c)
	var dirs []string
	for k := range n {
		rc, calls := runScript(t, sh, c, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k), "RUN_ROOT="+root+env["RUN_ROOT"].Value)
		if rc != 0 || len(calls) != 1 {
			t.Fatalf("index %d: exit %d, calls %q; want 0 and one t2sbench run", k, rc, calls)
		}
		got := calls[0]
		want := call{"run", "/etc/t2sbench/spec.yaml", "--shard", fmt.Sprintf("%d/%d", k+1, n), "--out", root + env["RUN_ROOT"].Value + fmt.Sprintf("/shard-%d", k+1), "--quiet", "--jsonl"}
		if !slices.Equal(got, want) {
			t.Errorf("index %d runs %q; want %q", k, got, want)
		}
		dirs = append(dirs, strings.TrimPrefix(got[5], root))
	}
	return dirs
}

// TestShardJob checks the Indexed Job: completions, parallelism and the
// SHARDS of its command agree; pod k runs shard k+1 of N into its own
// directory on the shared volume; the spec comes from the ConfigMap.
func TestShardJob(t *testing.T) {
	objs := load(t)
	job := find[*batchv1.Job](t, objs, "Job", "t2sbench-shards")
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v; want Indexed", s.CompletionMode)
	}
	pod := s.Template.Spec
	c := container(t, pod, "t2sbench")
	n, _ := strconv.Atoi(envOf(c)["SHARDS"].Value)
	deref := func(p *int32) int {
		if p == nil {
			return -1
		}
		return int(*p)
	}
	if deref(s.Completions) != n || deref(s.Parallelism) != n || n < 2 {
		t.Errorf("completions %d, parallelism %d, SHARDS %d; want all equal and >= 2 (-1: not set)", deref(s.Completions), deref(s.Parallelism), n)
	}
	if sh := script(t, c); !strings.Contains(sh, "JOB_COMPLETION_INDEX") {
		t.Errorf("the script does not read JOB_COMPLETION_INDEX:\n%s", sh)
	}
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q; want Never (podFailurePolicy needs it)", pod.RestartPolicy)
	}
	failJob := false
	if p := s.PodFailurePolicy; p != nil {
		for _, r := range p.Rules {
			if e := r.OnExitCodes; r.Action == batchv1.PodFailurePolicyActionFailJob && e != nil && slices.Contains(e.Values, 2) && *e.ContainerName == c.Name {
				failJob = true
			}
		}
	}
	if !failJob {
		t.Errorf("no podFailurePolicy rule failing the Job on exit status 2 (usage error: retrying cannot help)")
	}

	root := t.TempDir()
	dirs := shardDirs(t, job, root)
	if len(slices.Compact(slices.Sorted(slices.Values(dirs)))) != n {
		t.Errorf("shard directories %q; want %d distinct", dirs, n)
	}
	for _, d := range dirs {
		m, ok := under(c, d)
		if !ok || m.ReadOnly || volume(t, pod, m.Name).PersistentVolumeClaim == nil {
			t.Errorf("run directory %s is not on a writable PVC mount (mount %+v)", d, m)
		}
	}
	// The spec file is the ConfigMap's spec.yaml.
	m, ok := under(c, "/etc/t2sbench/spec.yaml")
	cmv := volume(t, pod, m.Name).ConfigMap
	if !ok || cmv == nil {
		t.Fatalf("/etc/t2sbench/spec.yaml is not on a ConfigMap mount")
	}
	cm := find[*corev1.ConfigMap](t, objs, "ConfigMap", cmv.Name)
	if _, ok := cm.Data[strings.TrimPrefix("/etc/t2sbench/spec.yaml", m.MountPath+"/")]; !ok {
		t.Errorf("ConfigMap %s has no key spec.yaml", cm.Name)
	}
	// The read-only root filesystem needs a writable /tmp.
	if sc := c.SecurityContext; sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem {
		if volume(t, pod, mountOf(t, c, "/tmp").Name).EmptyDir == nil {
			t.Errorf("/tmp is not an emptyDir")
		}
	}
}

// TestShardScriptExitStatus checks how the shard script maps t2sbench's
// exit status: 3 with nothing pending (items failed for good) is success;
// 3 with pending items, 3 without a summary (interrupted), 1 and 2 fail
// the pod.
func TestShardScriptExitStatus(t *testing.T) {
	job := find[*batchv1.Job](t, load(t), "Job", "t2sbench-shards")
	c := container(t, job.Spec.Template.Spec, "t2sbench")
	sh := script(t, c)
	root := "RUN_ROOT=" + t.TempDir()
	summary := func(pending int) string {
		return fmt.Sprintf(`{"event":"summary","trial":{"label":"direct","done":40,"failed":2,"pending":%d}}`, pending)
	}
	tests := []struct {
		name, out string
		rc, want  int
	}{
		{"complete", summary(0), 0, 0},
		{"failed items only", summary(0), 3, 0},
		{"pending items", summary(12), 3, 3},
		{"interrupted, no summary", "", 3, 3},
		{"runtime error", "", 1, 1},
		{"usage error", "", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, _ := runScript(t, sh, c, "JOB_COMPLETION_INDEX=0", root, "FAKE_OUT="+tt.out, fmt.Sprintf("FAKE_RC=%d", tt.rc))
			if rc != tt.want {
				t.Errorf("t2sbench exit %d with %q: script exits %d; want %d", tt.rc, tt.out, rc, tt.want)
			}
		})
	}
}

// TestMergeJob checks that the merge Job joins exactly the directories the
// shard pods write, on the same volume, and reports the merged run.
func TestMergeJob(t *testing.T) {
	objs := load(t)
	shards := find[*batchv1.Job](t, objs, "Job", "t2sbench-shards")
	merge := find[*batchv1.Job](t, objs, "Job", "t2sbench-merge")
	sc := container(t, shards.Spec.Template.Spec, "t2sbench")
	mc := container(t, merge.Spec.Template.Spec, "t2sbench")
	for _, k := range []string{"SHARDS", "RUN_ROOT", "XDG_CACHE_HOME"} {
		if a, b := envOf(sc)[k], envOf(mc)[k]; a.Value != b.Value || a.Value == "" {
			t.Errorf("%s: shards %q, merge %q; want the same", k, a.Value, b.Value)
		}
	}
	if sc.Image != mc.Image {
		t.Errorf("images %q and %q; want one", sc.Image, mc.Image)
	}
	// Every mount of the shard pods is in the merge pod, from the same
	// volume source.
	for _, m := range sc.VolumeMounts {
		got := mountOf(t, mc, m.MountPath)
		vs := volume(t, shards.Spec.Template.Spec, m.Name).VolumeSource
		vm := volume(t, merge.Spec.Template.Spec, got.Name).VolumeSource
		if got.SubPath != m.SubPath || got.ReadOnly != m.ReadOnly || fmt.Sprint(vs) != fmt.Sprint(vm) {
			t.Errorf("mount %s: shards %+v from %v, merge %+v from %v; want the same", m.MountPath, m, vs, got, vm)
		}
	}

	root := t.TempDir()
	dirs := shardDirs(t, shards, root)
	runRoot := envOf(mc)["RUN_ROOT"].Value
	rc, calls := runScript(t, script(t, mc), mc, "RUN_ROOT="+root+runRoot)
	if rc != 0 || len(calls) != 3 {
		t.Fatalf("merge script: exit %d, calls %q; want 0 and merge, status, report", rc, calls)
	}
	rel := func(c call) call {
		out := make(call, len(c))
		for i, a := range c {
			out[i] = strings.TrimPrefix(a, root)
		}
		return out
	}
	merged := runRoot + "/merged"
	wantMerge := append(call{"merge", merged}, dirs...)
	if got := rel(calls[0]); !slices.Equal(got, wantMerge) {
		t.Errorf("merge call %q; want %q", got, wantMerge)
	}
	if got := rel(calls[1]); !slices.Equal(got, call{"status", merged}) {
		t.Errorf("second call %q; want status of %s", got, merged)
	}
	if got := rel(calls[2]); len(got) < 4 || got[0] != "report" || got[1] != merged || !slices.Contains(got, "--out") {
		t.Errorf("third call %q; want report of %s with --out", got, merged)
	}
	if m, ok := under(mc, merged); !ok || m.ReadOnly {
		t.Errorf("merged directory %s is not on a writable mount", merged)
	}
}

// TestModelWiring checks that the spec's model is the vLLM Service: URL
// host and port, the served model name, the API key's Secret, the GPU and
// the /health probes; and that benchmark data lies on the read-only data
// mount.
func TestModelWiring(t *testing.T) {
	objs := load(t)
	dep := find[*appsv1.Deployment](t, objs, "Deployment", "vllm")
	svc := find[*corev1.Service](t, objs, "Service", "vllm")
	cm := find[*corev1.ConfigMap](t, objs, "ConfigMap", "t2sbench-spec")
	job := find[*batchv1.Job](t, objs, "Job", "t2sbench-shards")
	vc := container(t, dep.Spec.Template.Spec, "vllm")

	served := ""
	for i, a := range vc.Args {
		if a == "--served-model-name" && i+1 < len(vc.Args) {
			served = vc.Args[i+1]
		}
	}
	if served == "" {
		t.Fatalf("vllm args %q have no --served-model-name", vc.Args)
	}
	if !slices.Equal(vc.Command, []string{"vllm", "serve"}) || len(vc.Args) == 0 || strings.HasPrefix(vc.Args[0], "-") {
		t.Errorf("vllm command %q args %q; want vllm serve MODEL ...", vc.Command, vc.Args)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("Service selects %s=%s; the Deployment's pods have %q", k, v, dep.Spec.Template.Labels[k])
		}
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("Service ports %v; want one", svc.Spec.Ports)
	}
	port := svc.Spec.Ports[0]
	if len(vc.Ports) != 1 || port.TargetPort.String() != vc.Ports[0].Name {
		t.Errorf("Service targets %v; the container's ports are %v", port.TargetPort, vc.Ports)
	}
	if g := vc.Resources.Limits["nvidia.com/gpu"]; g.Value() < 1 {
		t.Errorf("vllm GPU limit %v; want at least 1", g.String())
	}
	for name, p := range map[string]*corev1.Probe{"startup": vc.StartupProbe, "readiness": vc.ReadinessProbe, "liveness": vc.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/health" || p.HTTPGet.Port.String() != vc.Ports[0].Name {
			t.Errorf("%s probe %+v; want GET /health on port %s", name, p, vc.Ports[0].Name)
		}
	}

	var spec struct {
		Benchmarks []struct{ Name, Data string }
		Models     map[string]struct {
			Backend   string
			BaseURL   string `json:"base_url"`
			Model     string
			APIKeyEnv string `json:"api_key_env"`
		}
	}
	if err := yaml.Unmarshal([]byte(cm.Data["spec.yaml"]), &spec); err != nil {
		t.Fatal(err)
	}
	sc := container(t, job.Spec.Template.Spec, "t2sbench")
	vEnv, sEnv := envOf(vc), envOf(sc)
	served0 := 0
	for name, m := range spec.Models {
		if m.Backend != "openai" {
			continue
		}
		served0++
		if want := fmt.Sprintf("http://%s:%d/v1", svc.Name, port.Port); m.BaseURL != want {
			t.Errorf("model %s: base_url %q; want %q (the Service)", name, m.BaseURL, want)
		}
		if m.Model != served {
			t.Errorf("model %s: model %q; want the served name %q", name, m.Model, served)
		}
		e, ok := sEnv[m.APIKeyEnv]
		if m.APIKeyEnv == "" || !ok || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("model %s: api_key_env %q is not set from a Secret in the shard pods", name, m.APIKeyEnv)
			continue
		}
		if v := vEnv["VLLM_API_KEY"]; v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil ||
			v.ValueFrom.SecretKeyRef.Name != e.ValueFrom.SecretKeyRef.Name || v.ValueFrom.SecretKeyRef.Key != e.ValueFrom.SecretKeyRef.Key {
			t.Errorf("model %s: the client's key %+v and the server's VLLM_API_KEY %+v come from different Secret keys", name, e.ValueFrom, v.ValueFrom)
		}
	}
	if served0 == 0 {
		t.Errorf("the spec has no openai model")
	}
	for _, b := range spec.Benchmarks {
		if b.Data == "" {
			continue
		}
		if m, ok := under(sc, b.Data); !ok || !m.ReadOnly {
			t.Errorf("benchmark %s data %s is not on a read-only mount of the shard pods", b.Name, b.Data)
		}
	}
}

// TestDockerfile checks that the image builds with the Go of go.mod, with
// cgo (go-sqlite3), and runs as the user the pods require.
func TestDockerfile(t *testing.T) {
	df, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	gov := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	from := regexp.MustCompile(`(?m)^FROM golang:(\d+\.\d+)\S* AS build`).FindSubmatch(df)
	if gov == nil || from == nil || string(gov[1]) != string(from[1]) {
		t.Errorf("Dockerfile builds with golang:%s; go.mod wants go %s", from, gov)
	}
	for _, want := range []string{"CGO_ENABLED=1", "./cmd/t2sbench", "USER 65532:65532"} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	for _, o := range load(t) {
		var ps *corev1.PodSpec
		switch v := o.Value.(type) {
		case *batchv1.Job:
			ps = &v.Spec.Template.Spec
		case *corev1.Pod:
			ps = &v.Spec
		default:
			continue
		}
		if sc := ps.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 65532 {
			t.Errorf("%v: runAsUser is not the image's 65532", o)
		}
	}
}
