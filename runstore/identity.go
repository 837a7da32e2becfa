package runstore

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
)

// DeriveIdentities sets the Identity of the trials of one run that have
// none: for stores written before commit 9c27c65 ("bench: trials carry
// their identity as fields"), whose trials have only a label. ReadRun
// calls it; code that builds a RunData by other means calls it before
// reading identities; it does nothing when every trial has one.
//
// What the structured data decides is taken from it: the label names the
// benchmark when the run has several, the seed when the trial's entry has
// several; a backbone is a role binding, a sweep value a parameter value,
// a simplex point numeric parameters that vary within the entry, each
// where the label ends with the word it prints as (Identity.Label). What
// is left of the label is the entry's name and ablation: the name is the
// longest run of whole words that all the entry's trials start with, the
// rest the ablation. An entry run with one ablation and no full
// configuration (skip_full) keeps the ablation in its name, as nothing
// tells them apart; trials of one entry with no word in common each keep
// the rest of their label as name. The derived identity always gives the
// trial's label back (Identity.Label); where it would not, it is the label
// as name.
func DeriveIdentities(trials []RunTrial) {
	benches := map[string]bool{}
	var keys []string
	entries := map[string][]*spec.Trial{}
	need := false
	for i := range trials {
		t := &trials[i].Trial
		benches[t.Benchmark.Key()] = true
		k := strconv.Itoa(t.Entry) + "\x00" + t.Runner
		if _, ok := entries[k]; !ok {
			keys = append(keys, k)
		}
		entries[k] = append(entries[k], t)
		need = need || t.Identity == nil
	}
	if !need {
		return
	}
	for _, k := range keys {
		group := entries[k]
		seeds := map[int64]bool{}
		for _, t := range group {
			seeds[t.Seed] = true
		}
		rest := make([]string, len(group))
		ids := make([]*spec.Identity, len(group))
		for i, t := range group {
			id := &spec.Identity{}
			l := t.Label
			if len(seeds) > 1 {
				l, id.Seed = strings.CutSuffix(l, " seed="+strconv.FormatInt(t.Seed, 10))
			}
			if len(benches) > 1 {
				l, id.Bench = strings.CutSuffix(l, " @"+t.Benchmark.Name)
			}
			for _, role := range reverseSorted(t.Roles) {
				s := spec.Setting{Key: role, Value: t.Roles[role]}
				if r, ok := strings.CutSuffix(l, " "+s.String()); ok {
					l, id.Backbone = r, append([]spec.Setting{s}, id.Backbone...)
				}
			}
			l, id.Point = cutPoint(l, t, group)
			for _, k := range reverseSorted(t.Params) {
				s := spec.Setting{Key: k, Value: fmt.Sprintf("%v", t.Params[k])}
				if r, ok := strings.CutSuffix(l, " "+s.String()); ok {
					l, id.Sweep = r, append([]spec.Setting{s}, id.Sweep...)
				}
			}
			rest[i], ids[i] = l, id
		}
		name := commonWords(rest)
		for i, t := range group {
			if t.Identity != nil {
				continue
			}
			id := ids[i]
			id.Name = name
			id.Ablation = strings.TrimPrefix(strings.TrimPrefix(rest[i], name), " ")
			if name == "" {
				// Trials of several entries (a store written before
				// trials recorded their entry): no common name.
				id.Name, id.Ablation = rest[i], ""
			}
			if id.Label(t.Benchmark.Name, t.Seed) != t.Label {
				id = &spec.Identity{Name: t.Label}
			}
			t.Identity = id
		}
	}
}

// cutPoint removes from the end of label l the simplex point of trial t,
// when it names one: two or more of the numeric parameters that vary
// within the entry's trials (group), in some order, printed as
// Identity.Variant prints a point.
func cutPoint(l string, t *spec.Trial, group []*spec.Trial) (string, []spec.Setting) {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(t.Params)) {
		x, ok := runners.Number(t.Params[k])
		if !ok {
			continue
		}
		for _, o := range group {
			if y, ok := runners.Number(o.Params[k]); ok && y != x {
				keys = append(keys, k)
				break
			}
		}
	}
	if len(keys) < 2 || len(keys) > 6 {
		return l, nil
	}
	var found []spec.Setting
	var try func(pt []spec.Setting, left []string) bool
	try = func(pt []spec.Setting, left []string) bool {
		if len(pt) >= 2 {
			words := make([]string, len(pt))
			for i, s := range pt {
				words[i] = s.String()
			}
			if strings.HasSuffix(l, " "+strings.Join(words, ",")) {
				found = append([]spec.Setting(nil), pt...)
				return true
			}
		}
		for i, k := range left {
			x, _ := runners.Number(t.Params[k])
			next := append(append([]string(nil), left[:i]...), left[i+1:]...)
			if try(append(pt, spec.Setting{Key: k, Value: strconv.FormatFloat(x, 'f', -1, 64)}), next) {
				return true
			}
		}
		return false
	}
	if !try(nil, keys) {
		return l, nil
	}
	words := make([]string, len(found))
	for i, s := range found {
		words[i] = s.String()
	}
	return strings.TrimSuffix(l, " "+strings.Join(words, ",")), found
}

// commonWords returns the longest run of whole words (separated by single
// spaces) that every string of ss starts with.
func commonWords(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		for p != s && !strings.HasPrefix(s, p+" ") {
			i := strings.LastIndex(p, " ")
			if i < 0 {
				return ""
			}
			p = p[:i]
		}
	}
	return p
}

func reverseSorted[V any](m map[string]V) []string {
	out := slices.Sorted(maps.Keys(m))
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}
