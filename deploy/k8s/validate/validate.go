// Package validate checks the Kubernetes manifests of deploy/k8s offline:
// every YAML document is decoded strictly (unknown and duplicate fields are
// errors) into its typed Kubernetes API object. It is a module of its own so
// that the Kubernetes API packages stay out of t2sbench's module.
package validate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Object is one decoded manifest document.
type Object struct {
	// File and Doc (1-based) locate the document.
	File string
	Doc  int
	Kind string
	Name string
	// Value is a pointer to the typed object (*batchv1.Job, ...).
	Value any
}

func (o Object) String() string { return fmt.Sprintf("%s#%d (%s %s)", o.File, o.Doc, o.Kind, o.Name) }

// newObject returns an empty typed object for apiVersion and kind, the
// kinds deploy/k8s uses.
func newObject(apiVersion, kind string) (any, error) {
	switch apiVersion + " " + kind {
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1 PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, nil
	case "v1 Pod":
		return &corev1.Pod{}, nil
	case "v1 Service":
		return &corev1.Service{}, nil
	case "v1 Secret":
		return &corev1.Secret{}, nil
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, nil
	case "batch/v1 Job":
		return &batchv1.Job{}, nil
	}
	return nil, fmt.Errorf("unknown apiVersion %q kind %q", apiVersion, kind)
}

// docSep splits a YAML stream into documents.
var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// Decode strictly decodes every document of data (named file in errors).
func Decode(file string, data []byte) ([]Object, error) {
	var out []Object
	for i, doc := range docSep.Split(string(data), -1) {
		if len(bytes.TrimSpace(stripComments([]byte(doc)))) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, err)
		}
		v, err := newObject(tm.APIVersion, tm.Kind)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, err)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), v); err != nil {
			return nil, fmt.Errorf("%s: document %d (%s): %w", file, i+1, tm.Kind, err)
		}
		name := ""
		if m, ok := v.(metav1.Object); ok {
			name = m.GetName()
		}
		if name == "" {
			return nil, fmt.Errorf("%s: document %d (%s): no metadata.name", file, i+1, tm.Kind)
		}
		out = append(out, Object{File: file, Doc: i + 1, Kind: tm.Kind, Name: name, Value: v})
	}
	return out, nil
}

func stripComments(b []byte) []byte {
	return regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAll(b, nil)
}

// LoadDir decodes every *.yaml file of dir, in name order; two objects of
// one kind with one name are an error.
func LoadDir(dir string) ([]Object, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Object
	seen := map[string]Object{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := Decode(filepath.Base(f), data)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			key := o.Kind + "/" + o.Name
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("%v: %s already defined in %v", o, key, prev)
			}
			seen[key] = o
		}
		out = append(out, objs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no manifests", dir)
	}
	return out, nil
}
