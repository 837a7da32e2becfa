package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
)

// runnerNote is what `help runners` says of a runner beyond its parameters,
// which come from the runner's own parameter parsing (runners.Describe).
type runnerNote struct {
	paper string
	// roles lists the model roles the runner asks, with what each does.
	roles []string
	// ablations names the parameters that switch a part of the method off.
	ablations string
	// extra documents parameters the factory reads without a
	// runners.Reader (Describe cannot see them): key, kind, default, valid.
	extra []runners.ParamInfo
	note  string
}

var runnerNotes = map[string]runnerNote{
	"direct": {paper: "baseline: one answer at temperature 0",
		roles: []string{"reason: writes the SQL"}, ablations: "evidence: false"},
	"cot": {paper: "baseline: reasoning step by step, then the SQL, at temperature 0",
		roles: []string{"reason: reasons and writes the SQL"}, ablations: "evidence: false"},
	"sc": {paper: "baseline: self-consistency, k samples in one request, the largest execution-result group wins",
		roles: []string{"reason: samples k answers"}, ablations: "evidence: false; sweep k"},
	"alphasql": {paper: "Alpha-SQL (MCTS over seven reasoning actions, self-supervised reward)",
		roles:     []string{"reason: every action, the reward samples and revision"},
		ablations: "disable_actions: any of A1 A2 A3 A4 A6 (paper Table 3); value_retrieval: false; evidence: false"},
	"iesr": {paper: "IESR (understanding, schema linking, MCTS, a discriminator over masked trajectories)",
		roles: []string{"understand: question understanding and keyword extraction",
			"reason: the MCTS actions", "discriminator: completes masked trajectories (consistency check)"},
		ablations: "stage_understanding, stage_linking, schema_compression, stage_discriminator, stage_scoring: false (paper Table 2); disable_actions (Table 3); alpha/beta/gamma over a grid (Fig. 5); verify_keywords: false (Table 4 without Ve; understanding_rounds sets the rounds); expansion: paper (Algorithm 2, one untried action per rollout)",
		extra:     []runners.ParamInfo{{Key: "disc_cuts", Kind: "list of numbers", Default: "[0.2, 0.3, 0.4, 0.5]", Valid: "each in (0, 1)"}},
		note:      "alpha + beta + gamma must sum to 1; max_tokens, when set, is the default of the three max_tokens_<role>"},
	"steinersql": {paper: "SteinerSQL (decomposition, Steiner-tree schema navigation, multilevel validation)",
		roles:     []string{"decompose: Stage 1, the question's terminals", "reason: SQL generation and re-planning"},
		ablations: "decomposition, navigation, graph_module, structured_examples: false; path_algorithm; validation; alpha/beta/gamma 0 removes a cost part (paper Table 2); attribute_check, dependency_analysis: false (level-2 attribute check; Algorithm 1 dependency analysis)"},
	"react-dsl": {paper: "ReAct-SQL (a tool-using agent over a schema DSL)",
		roles:     []string{"reason: every turn"},
		ablations: "setting: baseline | iterate-sql | iterate-dsl (paper Tables 3-4)"},
}

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
		n := runnerNotes[name]
		fmt.Fprintf(w, "\n%s", name)
		if n.paper != "" {
			fmt.Fprintf(w, ": %s", n.paper)
		}
		fmt.Fprintln(w)
		if len(n.roles) > 0 {
			fmt.Fprintf(w, "  roles:\n")
			for _, r := range n.roles {
				fmt.Fprintf(w, "    %s\n", r)
			}
		}
		fmt.Fprintf(w, "  parameters (default; valid values):\n")
		embedding := false
		for _, p := range append(params, n.extra...) {
			valid := p.Valid
			if valid != "" {
				valid = "; " + valid
			}
			fmt.Fprintf(w, "    %-26s %s, default %s%s\n", p.Key, p.Kind, formatDefault(p.Default), valid)
			embedding = embedding || p.Key == "embedding_role"
		}
		if n.ablations != "" {
			fmt.Fprintf(w, "  ablation switches: %s\n", n.ablations)
		}
		if n.note != "" {
			fmt.Fprintf(w, "  note: %s\n", n.note)
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
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}
