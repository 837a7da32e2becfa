package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
)

// embeddingNote is what embedding_role needs, for the runners that read it.
const embeddingNote = `embedding_role names a role (e.g. embed) whose model computes embeddings: bind it to an
  openai-backend model serving /v1/embeddings, e.g.
    models: {emb: {backend: openai, base_url: http://127.0.0.1:8001/v1, model: bge-m3}}
    roles:  {reason: local, embed: emb}
    runners: [{name: alphasql, params: {embedding_role: embed}}]
  The sim backend computes no embeddings. "" (the default) uses lexical similarity only.`

func helpRunners(w io.Writer) error {
	fmt.Fprintln(w, `Runners (runners[].name in a spec). Parameters go under runners[].params; an unknown key or an
out-of-range value is an error naming it. Roles bind to models under roles: (spec-wide) or
runners[].roles; a role a trial leaves unbound uses its reason model. Each runner package's doc.go
says where each default comes from.`)
	for _, name := range runners.Names() {
		params, err := runners.Describe(name)
		if err != nil {
			return fmt.Errorf("help runners: %s with its defaults: %w", name, err)
		}
		n, _ := runners.Lookup(name)
		fmt.Fprintf(w, "\n%s", name)
		if n.Paper != "" {
			fmt.Fprintf(w, ": %s", n.Paper)
		}
		fmt.Fprintln(w)
		if len(n.Roles) > 0 {
			fmt.Fprintf(w, "  roles:\n")
			for _, r := range n.Roles {
				fmt.Fprintf(w, "    %s: %s\n", r.Role, r.Does)
			}
		}
		fmt.Fprintf(w, "  parameters (default; valid values):\n")
		embedding := false
		for _, p := range append(params, n.Extra...) {
			valid := p.Valid
			if valid != "" {
				valid = "; " + valid
			}
			fmt.Fprintf(w, "    %-26s %s, default %s%s\n", p.Key, p.Kind, formatDefault(p.Default), valid)
			embedding = embedding || p.Key == "embedding_role"
		}
		if n.Ablations != "" {
			fmt.Fprintf(w, "  ablation switches: %s\n", n.Ablations)
		}
		if n.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", n.Note)
		}
		if embedding {
			fmt.Fprintf(w, "  %s\n", embeddingNote)
		}
	}
	return nil
}

func formatDefault(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	case []float64:
		s := make([]string, len(x))
		for i, f := range x {
			s[i] = strconv.FormatFloat(f, 'g', -1, 64)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}
