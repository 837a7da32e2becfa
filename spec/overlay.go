package spec

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/t2sbench/t2sbench/internal/suggest"
	"github.com/t2sbench/t2sbench/runners"
)

// LoadOptions are the command line's changes to a spec file, applied to
// its YAML tree before it is decoded, so that the decoder's and the
// validation's errors name the file, line and path they came from (the
// spec's, a --models file's, or the --set expression).
type LoadOptions struct {
	// Models are files of model definitions (the schema of a spec's
	// models: section, bare or under a models: key) that replace the
	// spec's models of the same names, in order.
	Models []string
	// Set are key.path=value overrides (models.gpt.base_url=http://x/v1,
	// runners.0.params.n_rollout=8, runners[0].params.k=3, workers=4),
	// applied in order after the model files. The value is read as YAML
	// (4 is a number, [1, 2] a list).
	Set []string
	// Lookup reads the environment for ${VAR} interpolation; nil is the
	// process environment.
	Lookup Lookup
	// Profile names a profile (Profiles) whose overrides are applied
	// after the model files and before Set; the spec's ProfileUse says
	// what it changed.
	Profile string
	// Backbone, when set, names a model of the spec (after Models and Set)
	// bound to every role of every runner: the spec's roles, each runner
	// entry's roles, and each entry's backbones list, which becomes this
	// one model.
	Backbone string
}

// LoadSpecWith reads the spec at path, interpolates the environment,
// applies opt's model files and overrides, then decodes and validates it.
func LoadSpecWith(path string, opt LoadOptions) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return ParseSpecWith(data, path, opt)
}

// origin is where a node of the spec's tree came from.
type origin struct {
	loc     string // file:line, or the --set expression
	foreign bool   // from a --models file or --set, not the spec file
}

// ParseSpecWith is ParseSpec with the command line's changes (see
// LoadOptions); file names the spec in errors.
func ParseSpecWith(data []byte, file string, opt LoadOptions) (*Spec, error) {
	if file == "" {
		file = "spec"
	}
	look := opt.Lookup
	if look == nil {
		look = osLookup
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty spec", file)
	}
	origins := map[*yaml.Node]origin{}
	markOrigin(&root, file, false, origins)
	at := func(n *yaml.Node) string { return origins[n].loc }
	if err := interpolate(&root, "", at, look); err != nil {
		return nil, err
	}
	for _, f := range opt.Models {
		if err := overlayModels(&root, f, look, origins); err != nil {
			return nil, err
		}
	}
	var use *ProfileUse
	if opt.Profile != "" {
		prof, err := LookupProfile(opt.Profile)
		if err != nil {
			return nil, err
		}
		use = profileSets(&root, prof)
		for _, e := range use.Sets {
			if err := applySetFrom(&root, e, "--profile "+prof.Name+" ("+e+")", origins); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range opt.Set {
		if err := applySet(&root, e, origins); err != nil {
			return nil, err
		}
	}
	rebound := reboundModels(&root, origins)

	// Write the tree out and read it back: the decoder reads text (only
	// a yaml.Decoder rejects unknown keys), and the two trees walked side
	// by side map each line of the text to where its nodes came from.
	text, err := yaml.Marshal(&root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var re yaml.Node
	if err := yaml.Unmarshal(text, &re); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	lineAt := map[int]origin{}
	mapLines(&root, &re, origins, lineAt)
	locOf := func(line int) string {
		if o, ok := lineAt[line]; ok {
			return o.loc
		}
		return fmt.Sprintf("%s:%d", file, line)
	}
	paths := map[int]string{}
	lines := map[string]int{}
	indexPaths(&re, "", paths, lines)

	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, errEOF) || err.Error() == "EOF" {
			return nil, fmt.Errorf("%s: empty spec", file)
		}
		msg := annotate(err.Error(), paths, lines, locOf)
		if strings.HasPrefix(msg, "\x00") {
			return nil, errors.New(msg[1:]) // loc: path: problem
		}
		return nil, fmt.Errorf("%s: %s", file, msg)
	}
	if err := checkFloats(&re, "", locOf); err != nil {
		return nil, err
	}
	s.file = file
	s.ProfileUse = use
	s.rebound = rebound
	s.locs = map[string]string{}
	for p, l := range lines {
		s.locs[p] = locOf(l)
	}
	for i, order := range ablationOrders(&re) {
		if i < len(s.Runners) {
			s.Runners[i].ablationOrder = order
		}
	}
	if opt.Backbone != "" {
		if err := s.bindBackbone(opt.Backbone); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// reboundModels returns the names of the spec's models whose definitions
// a --models file or --set replaced or changed.
func reboundModels(root *yaml.Node, origins map[*yaml.Node]origin) map[string]bool {
	var foreign func(n *yaml.Node) bool
	foreign = func(n *yaml.Node) bool {
		if origins[n].foreign {
			return true
		}
		return slices.ContainsFunc(n.Content, foreign)
	}
	out := map[string]bool{}
	models := mappingValue(docMapping(root), "models")
	for i := 0; models != nil && models.Kind == yaml.MappingNode && i+1 < len(models.Content); i += 2 {
		if foreign(models.Content[i]) || foreign(models.Content[i+1]) {
			out[models.Content[i].Value] = true
		}
	}
	return out
}

// bindBackbone binds model name to every role the spec binds, spec-wide
// and per runner entry, and makes each entry's backbones lists that one
// model (LoadOptions.Backbone). The reason role, which every runner asks,
// is bound spec-wide even when the spec leaves it to the entries.
func (s *Spec) bindBackbone(name string) error {
	if _, ok := s.Models[name]; !ok {
		names := slices.Sorted(maps.Keys(s.Models))
		return fmt.Errorf("--backbone %s: not a model of the spec, whose models are: %s (a --models file replaces models of these names)", name, strings.Join(names, ", "))
	}
	if s.Roles == nil {
		s.Roles = map[string]string{}
	}
	for r := range s.Roles {
		s.Roles[r] = name
	}
	s.Roles[runners.RoleReason] = name
	for i := range s.Runners {
		rs := &s.Runners[i]
		for r := range rs.Roles {
			rs.Roles[r] = name
		}
		for r := range rs.Backbones {
			rs.Backbones[r] = []string{name}
		}
	}
	return nil
}

// markOrigin records file:line as the origin of n and every node under it.
func markOrigin(n *yaml.Node, file string, foreign bool, origins map[*yaml.Node]origin) {
	origins[n] = origin{loc: fmt.Sprintf("%s:%d", file, n.Line), foreign: foreign}
	for _, c := range n.Content {
		markOrigin(c, file, foreign, origins)
	}
}

// markSet records from (a --set expression, or the profile that derived
// it) as the origin of n and its subtree.
func markSet(n *yaml.Node, from string, origins map[*yaml.Node]origin) {
	origins[n] = origin{loc: from, foreign: true}
	for _, c := range n.Content {
		markSet(c, from, origins)
	}
}

// mapLines walks a (the edited tree) and b (the same tree read back from
// its text) together and gives each line of the text the origin of its
// first node, a node from a --models file or --set taking the line over
// from one of the spec's (a --set value on the line of the spec's key).
func mapLines(a, b *yaml.Node, origins map[*yaml.Node]origin, lineAt map[int]origin) {
	if o, ok := origins[a]; ok {
		prev, seen := lineAt[b.Line]
		if !seen || (o.foreign && !prev.foreign) {
			lineAt[b.Line] = o
		}
	}
	if a.Kind == yaml.AliasNode || len(a.Content) != len(b.Content) {
		return
	}
	for i := range a.Content {
		mapLines(a.Content[i], b.Content[i], origins, lineAt)
	}
}

// docMapping returns the top mapping of a document node.
func docMapping(root *yaml.Node) *yaml.Node {
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		return root.Content[0]
	}
	return root
}

// overlayModels replaces the spec's model definitions by those of file,
// by name.
func overlayModels(root *yaml.Node, file string, look Lookup, origins map[*yaml.Node]origin) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("--models: %w", err)
	}
	var ov yaml.Node
	if err := yaml.Unmarshal(data, &ov); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(ov.Content) == 0 {
		return fmt.Errorf("%s: no model definitions", file)
	}
	markOrigin(&ov, file, true, origins)
	at := func(n *yaml.Node) string { return origins[n].loc }
	defs := docMapping(&ov)
	if defs.Kind == yaml.MappingNode && len(defs.Content) == 2 && defs.Content[0].Value == "models" {
		defs = defs.Content[1]
	}
	if defs.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of model names to model definitions (the schema of a spec's models: section)", file, defs.Line)
	}
	if err := interpolate(defs, "models", at, look); err != nil {
		return err
	}
	top := docMapping(root)
	models := mappingValue(top, "models")
	var names []string
	if models != nil && models.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(models.Content); i += 2 {
			names = append(names, models.Content[i].Value)
		}
	}
	sort.Strings(names)
	for i := 0; i+1 < len(defs.Content); i += 2 {
		k, v := defs.Content[i], defs.Content[i+1]
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%s:%d: model %q: want a mapping (backend, base_url, model, ...)", file, v.Line, k.Value)
		}
		found := false
		for j := 0; models != nil && j+1 < len(models.Content); j += 2 {
			if models.Content[j].Value == k.Value {
				models.Content[j], models.Content[j+1] = k, v
				found = true
				break
			}
		}
		if !found {
			list := strings.Join(names, ", ")
			if list == "" {
				list = "none"
			}
			return fmt.Errorf("%s:%d: model %q is not in the spec, whose models are: %s", file, k.Line, k.Value, list)
		}
	}
	return nil
}

// applySet applies one key.path=value override to the tree. The path is
// checked against the Spec's fields (and the spec's model names) so that a
// typo is an error naming it rather than a new key.
func applySet(root *yaml.Node, expr string, origins map[*yaml.Node]origin) error {
	return applySetFrom(root, expr, "--set "+expr, origins)
}

// applySetFrom is applySet with from as the origin its nodes record.
func applySetFrom(root *yaml.Node, expr, from string, origins map[*yaml.Node]origin) error {
	key, val, ok := strings.Cut(expr, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return fmt.Errorf("--set %s: want key.path=value", expr)
	}
	segs, err := splitSetPath(key)
	if err != nil {
		return fmt.Errorf("--set %s: %w", expr, err)
	}
	value := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
	if val != "" {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(val), &doc); err != nil {
			return fmt.Errorf("--set %s: value: %w", expr, err)
		}
		if len(doc.Content) > 0 {
			value = doc.Content[0]
		}
	}
	markSet(value, from, origins)
	bad := func(i int, format string, args ...any) error {
		return fmt.Errorf("--set %s: %s: %s", expr, strings.Join(segs[:i+1], "."), fmt.Sprintf(format, args...))
	}
	node := docMapping(root)
	typ := reflect.TypeOf(Spec{})
	for i, seg := range segs {
		last := i == len(segs)-1
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Struct:
			f, known := yamlField(typ, seg)
			if !known {
				return bad(i, "unknown key%s (known here: %s)", suggest.Hint(seg, yamlFields(typ)), strings.Join(yamlFields(typ), ", "))
			}
			typ = f
		case reflect.Map:
			if i == 1 && segs[0] == "models" {
				if mappingValue(node, seg) == nil {
					return bad(i, "no model %q in the spec (models: %s); --models FILE replaces models, it does not add them", seg, strings.Join(mappingKeys(node), ", "))
				}
			}
			typ = typ.Elem()
		case reflect.Slice:
			if node.Kind != yaml.SequenceNode {
				return bad(i, "the spec has no list here")
			}
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(node.Content) {
				return bad(i, "index %q out of range (the list has %d entries, 0 to %d)", seg, len(node.Content), len(node.Content)-1)
			}
			if last {
				node.Content[n] = value
				return nil
			}
			node = node.Content[n]
			typ = typ.Elem()
			continue
		case reflect.Interface:
			// Free-form (runner parameters): lists by index, else keys.
			if node.Kind == yaml.SequenceNode {
				n, err := strconv.Atoi(seg)
				if err != nil || n < 0 || n >= len(node.Content) {
					return bad(i, "index %q out of range (the list has %d entries)", seg, len(node.Content))
				}
				if last {
					node.Content[n] = value
					return nil
				}
				node = node.Content[n]
				continue
			}
		default:
			return bad(i-1, "is a %s value, it has no key %q", typ.Kind(), seg)
		}
		// A mapping key.
		if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
			node.Kind, node.Tag, node.Value = yaml.MappingNode, "!!map", ""
		}
		if node.Kind != yaml.MappingNode {
			return bad(i, "the spec has no mapping here")
		}
		next := mappingValue(node, seg)
		if last {
			if next != nil {
				for j := 0; j+1 < len(node.Content); j += 2 {
					if node.Content[j].Value == seg {
						node.Content[j+1] = value
					}
				}
				return nil
			}
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
			markSet(k, from, origins)
			node.Content = append(node.Content, k, value)
			return nil
		}
		if next == nil {
			t := typ
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Kind() == reflect.Slice {
				return bad(i, "the spec has no list here")
			}
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			markSet(k, from, origins)
			markSet(next, from, origins)
			node.Content = append(node.Content, k, next)
		}
		node = next
	}
	return nil
}

// splitSetPath splits "runners[0].params.k" or "runners.0.params.k" into
// its segments.
func splitSetPath(p string) ([]string, error) {
	p = strings.ReplaceAll(strings.ReplaceAll(p, "[", "."), "]", "")
	segs := strings.Split(p, ".")
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("empty segment in key path %q", p)
		}
	}
	return segs, nil
}

// yamlField returns the type of the field of struct type t whose yaml
// name is name.
func yamlField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); f.IsExported() && tag == name && tag != "-" {
			return f.Type, true
		}
	}
	return nil, false
}

// yamlFields lists struct type t's yaml names, sorted.
func yamlFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); f.IsExported() && tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

// mappingKeys lists a mapping node's keys, sorted.
func mappingKeys(n *yaml.Node) []string {
	var out []string
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, n.Content[i].Value)
		}
	}
	sort.Strings(out)
	return out
}
