package spec

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/runners"
)

// Profile is a named overlay that lowers what a spec costs for a quick
// run of it (`run --profile NAME`; `make reproduce-sim` runs every spec
// in experiments/ through "quick"). It is applied as --set overrides,
// derived from the spec, before any of the command line's own --set.
type Profile struct {
	Name string
	// Rollouts caps n_rollout: a runner entry whose parameters set a
	// larger one, or whose runner's registered default is larger where
	// they set none, runs Rollouts. An ablation or sweep that sets
	// n_rollout is kept: what it varies is what its spec studies (and
	// lowered, it could equal the entry's other trials).
	Rollouts int
	// Limit is the questions per benchmark, applied as `run --limit`
	// when the command line gives none.
	Limit int
}

// Profiles are the named profiles `run --profile` knows. quick keeps
// `make reproduce-sim` (every spec in experiments/ on mini) in the time
// it took when the specs' searches ran 4 rollouts on 12 questions.
var Profiles = map[string]Profile{
	"quick": {Name: "quick", Rollouts: 4, Limit: 12},
}

// ProfileNames lists the profiles, sorted.
func ProfileNames() []string { return slices.Sorted(maps.Keys(Profiles)) }

// LookupProfile returns the profile name names, or an error listing the
// known ones.
func LookupProfile(name string) (Profile, error) {
	p, ok := Profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("--profile %s: unknown profile (known: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	return p, nil
}

// ProfileUse is what a profile changed in one spec.
type ProfileUse struct {
	Profile Profile
	// Sets are the --set overrides it applied, in order.
	Sets []string
	// Was are the distinct n_rollout values it lowered, sorted.
	Was []int
}

// Summary describes the overlay for a report title, with limit the
// questions per benchmark the run kept (0: all): "quick profile:
// n_rollout 4 (was 24, 32), limit 12".
func (u *ProfileUse) Summary(limit int) string {
	parts := []string{}
	if len(u.Was) > 0 {
		was := make([]string, len(u.Was))
		for i, v := range u.Was {
			was[i] = strconv.Itoa(v)
		}
		parts = append(parts, fmt.Sprintf("n_rollout %d (was %s)", u.Profile.Rollouts, strings.Join(was, ", ")))
	}
	if limit > 0 {
		parts = append(parts, fmt.Sprintf("limit %d", limit))
	}
	if len(parts) == 0 {
		parts = append(parts, "no change")
	}
	return u.Profile.Name + " profile: " + strings.Join(parts, ", ")
}

// ProfileMarker starts the line of the spec text `run` records that
// states the profile it ran with: "#   --profile quick profile: ...".
const ProfileMarker = "#   --profile "

// SpecProfile returns the profile summary a recorded spec text (MetaSpec)
// states, or "".
func SpecProfile(text string) string {
	for _, l := range ChangeLines(text) {
		if v, ok := strings.CutPrefix(l, ProfileMarker); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// profileSets derives p's --set overrides from the spec tree root.
func profileSets(root *yaml.Node, p Profile) *ProfileUse {
	u := &ProfileUse{Profile: p}
	if p.Rollouts <= 0 {
		return u
	}
	list := mappingValue(docMapping(root), "runners")
	if list == nil || list.Kind != yaml.SequenceNode {
		return u
	}
	was := map[int]bool{}
	lower := func(expr string, v int) {
		u.Sets = append(u.Sets, fmt.Sprintf("%s=%d", expr, p.Rollouts))
		was[v] = true
	}
	const key = "n_rollout"
	for i, entry := range list.Content {
		if entry.Kind != yaml.MappingNode {
			continue
		}
		name := mappingValue(entry, "name")
		if name == nil {
			continue
		}
		if sw := mappingValue(entry, "sweep"); sw != nil && mappingValue(sw, key) != nil {
			continue
		}
		def, hasDef := runners.Defaults(name.Value)[key]
		path := fmt.Sprintf("runners.%d", i)
		params := mappingValue(entry, "params")
		var set *yaml.Node
		if params != nil && params.Kind == yaml.MappingNode {
			set = mappingValue(params, key)
		}
		switch {
		case set != nil:
			if v, err := strconv.Atoi(set.Value); err == nil && v > p.Rollouts {
				lower(path+".params."+key, v)
			}
		case hasDef && int(def) > p.Rollouts:
			lower(path+".params."+key, int(def))
		}
	}
	for v := range was {
		u.Was = append(u.Was, v)
	}
	sort.Ints(u.Was)
	return u
}

// ChangeMarker starts the comment lines that `run` appends to the
// spec text it records (MetaSpec) for the --models, --set and --backbone
// flags that changed the spec; each follows as "#   --models FILE",
// "#   --set EXPR" or "#   --backbone NAME".
const ChangeMarker = "# changed by the command line of run:"

// ChangeLines returns the lines a recorded spec text (MetaSpec) has
// after ChangeMarker, those `run` appended for its command line, or
// nil when it has none.
func ChangeLines(text string) []string {
	_, extra, ok := strings.Cut(text, "\n"+ChangeMarker+"\n")
	if !ok {
		return nil
	}
	return strings.Split(extra, "\n")
}
