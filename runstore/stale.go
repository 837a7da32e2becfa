package runstore

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/t2sbench/t2sbench/spec"
)

// ReadOptions choose the trials a reader of a run directory returns.
type ReadOptions struct {
	// AllTrials returns every trial the store holds, those no longer in
	// the run's spec (RunData.Stale) too, after the spec's.
	AllTrials bool
}

// StaleNote is the line readers print when the run directory holds trials
// that are not in its spec (RunData.Stale), or "" when it holds none; shown
// says whether the reader shows them (ReadOptions.AllTrials) or left them
// out. Only a store written before run directories held one spec has such
// trials.
func (r *RunData) StaleNote(shown bool) string {
	if len(r.Stale) == 0 {
		return ""
	}
	names := make([]string, len(r.Stale))
	for i, t := range r.Stale {
		names[i] = fmt.Sprintf("%q (id %s)", t.Label, t.ID)
	}
	how := "not in the spec the run recorded"
	if r.Meta[MetaPlan] == "" {
		how = "of earlier specs (the store predates one spec per run directory: the run's trials are taken to be those of the spec it recorded last and, of trials sharing a label, the one recorded last)"
	}
	what := "left out (--all-trials includes them; run --replace-trials removes them)"
	if shown {
		what = "shown because of --all-trials"
	}
	return fmt.Sprintf("%s holds %s %s: %s; %s", r.Dir, plural(len(r.Stale), "trial"), how, strings.Join(names, ", "), what)
}

// splitStale returns the positions in trials of the trials of the run's
// spec and of the others. With MetaPlan recorded, the spec's are those it
// lists. A store written before has no record, so the spec's are guessed:
// of trials sharing a label, the one whose id the recorded spec (MetaSpec,
// planned again) gives, else the one recorded last; and when every label
// of that plan is among the stored ones (the store recorded its trials),
// no trial of a label it lacks.
func splitStale(meta map[string]string, trials []storedTrial) (cur, stale []int, err error) {
	if raw := meta[MetaPlan]; raw != "" {
		var ids []string
		if err := json.Unmarshal([]byte(raw), &ids); err != nil {
			return nil, nil, fmt.Errorf("meta %q: %w", MetaPlan, err)
		}
		in := map[string]bool{}
		for _, id := range ids {
			in[id] = true
		}
		for i := range trials {
			if in[trials[i].ID] {
				cur = append(cur, i)
			} else {
				stale = append(stale, i)
			}
		}
		return cur, stale, nil
	}
	want := recordedLabels(meta[MetaSpec])
	have := map[string]bool{}
	for i := range trials {
		have[trials[i].Label] = true
	}
	for l := range want {
		if !have[l] {
			want = nil // the recorded spec's trials were never recorded (a failed start)
			break
		}
	}
	pick := map[string]int{}
	for i := range trials {
		t := &trials[i]
		if _, ok := want[t.Label]; want != nil && !ok {
			continue
		}
		id := want[t.Label]
		j, seen := pick[t.Label]
		switch {
		case !seen:
			pick[t.Label] = i
		case (t.ID == id) != (trials[j].ID == id):
			if t.ID == id {
				pick[t.Label] = i
			}
		case t.seq > trials[j].seq:
			pick[t.Label] = i
		}
	}
	for i := range trials {
		if j, ok := pick[trials[i].Label]; ok && j == i {
			cur = append(cur, i)
		} else {
			stale = append(stale, i)
		}
	}
	return cur, stale, nil
}

// recordedLabels plans the spec text a store recorded (MetaSpec, with the
// --set flags `run` appended as comments) and returns its trials' labels
// and ids, or nil when it does not load or plan (a --models file it needs,
// an unset variable): the labels of a spec depend on neither.
func recordedLabels(text string) map[string]string {
	if text == "" {
		return nil
	}
	var sets []string
	backbone := ""
	for _, l := range spec.ChangeLines(text) {
		if v, ok := strings.CutPrefix(l, "#   --set "); ok {
			sets = append(sets, v)
		}
		if v, ok := strings.CutPrefix(l, "#   --backbone "); ok {
			backbone = v
		}
	}
	s, err := spec.ParseSpecWith([]byte(text), "recorded spec", spec.LoadOptions{Set: sets, Backbone: backbone})
	if err != nil {
		return nil
	}
	p, err := spec.NewPlan(s)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, t := range p.Trials {
		out[t.Label] = t.ID
	}
	return out
}
