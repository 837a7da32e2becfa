package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/internal/testenv"
	"github.com/t2sbench/t2sbench/spec"
)

// TestKubernetesSpec loads the experiment spec the Kubernetes manifests
// carry (deploy/k8s/spec-configmap.yaml, key spec.yaml) as `run` does and
// plans it, so that a spec error shows here and not as a failed Job. The
// manifests themselves are checked by the module in deploy/k8s/validate
// (make k8s-validate).
func TestKubernetesSpec(t *testing.T) {
	t.Parallel()
	path := filepath.Join(testenv.RepoRoot(), "deploy", "k8s", "spec-configmap.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Kind string            `yaml:"kind"`
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatal(err)
	}
	raw, ok := cm.Data["spec.yaml"]
	if cm.Kind != "ConfigMap" || !ok {
		t.Fatalf("%s: kind %q, keys %v; want a ConfigMap with spec.yaml", path, cm.Kind, cm.Data)
	}
	sp, err := spec.ParseSpec([]byte(raw), path+": spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Trials) == 0 || p.Trials[0].Simulated() {
		t.Errorf("plan of %d trials, first simulated %v; want real-model trials", len(p.Trials), len(p.Trials) > 0 && p.Trials[0].Simulated())
	}
	for _, b := range sp.Benchmarks {
		if b.Data != "" && !strings.HasPrefix(b.Data, "/data/") {
			t.Errorf("benchmark %s data %q; want it under /data, the pods' data mount", b.Name, b.Data)
		}
	}
}
