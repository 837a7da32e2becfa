package runners

import (
	"maps"
	"slices"
	"sync"
)

// Info is everything a runner package registers about its runner (see
// docs/adding-a-runner.md): the factory, and what `help runners`, the
// reports and the dry run say of it. Only Name and New are required.
type Info struct {
	// Name is the runner's name in a spec (runners[].name).
	Name string
	// New builds the runner from its spec parameters.
	New Factory
	// Paper says in one line what the method is and where it comes from.
	Paper string
	// Roles are the model roles the runner asks, in the order `help
	// runners` lists them.
	Roles []RoleInfo
	// Ablations names the parameters that switch a part of the method off
	// (and the paper tables they reproduce).
	Ablations string
	// Extra documents parameters the factory reads without a Reader, which
	// Describe cannot see.
	Extra []ParamInfo
	// Note is anything else `help runners` must say (constraints between
	// parameters).
	Note string
	// Varied names the parameters that sweeps and grids vary. Their
	// defaults are those the factory reads them with (Describe), written
	// once, as the package's Default constants (each documenting its
	// source: paper section, released code, or t2sbench's choice where the
	// paper gives none); PaperDefaults gives them to the reports, which
	// mark them on sweeps and grids and test grid points against them.
	Varied []string
}

// RoleInfo is one model role a runner asks and what the role does.
type RoleInfo struct {
	Role, Does string
}

// RegisterInfo makes the runner info.Name available. It panics on a
// missing name or factory and on a duplicate name (programming errors at
// init time).
func RegisterInfo(info Info) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[info.Name]; dup {
		panic("runners: duplicate runner " + info.Name)
	}
	if info.Name == "" || info.New == nil {
		panic("runners: RegisterInfo needs Name and New")
	}
	info.Varied = slices.Clone(info.Varied)
	registry[info.Name] = info
}

// Lookup returns what the runner registered under name says of itself.
func Lookup(name string) (Info, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	info, ok := registry[name]
	return info, ok
}

// Defaults returns the defaults of the parameters the runner registered
// under name varies (Info.Varied), as its factory reads them (Describe): a
// fresh map the caller may keep, nil for an unknown runner or one that
// varies nothing. A varied parameter read without a numeric default is
// left out.
func Defaults(name string) map[string]float64 {
	info, ok := Lookup(name)
	if !ok || len(info.Varied) == 0 {
		return nil
	}
	defaultsMu.Lock()
	d, ok := defaultsOf[name]
	defaultsMu.Unlock()
	if !ok {
		d = map[string]float64{}
		params, _ := Describe(name)
		for _, p := range params {
			if !slices.Contains(info.Varied, p.Key) {
				continue
			}
			if v, isNum := Number(p.Default); isNum {
				d[p.Key] = v
			}
		}
		defaultsMu.Lock()
		defaultsOf[name] = d
		defaultsMu.Unlock()
	}
	return maps.Clone(d)
}

// defaultsOf memoises Defaults by runner name: a registration never
// changes, and building a runner to describe it costs more than a look-up.
var (
	defaultsMu sync.Mutex
	defaultsOf = map[string]map[string]float64{}
)

// PaperDefaults returns every registered runner's Defaults by runner name
// (runners without any are left out), a fresh map the caller may keep.
func PaperDefaults() map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, name := range Names() {
		if d := Defaults(name); len(d) > 0 {
			out[name] = d
		}
	}
	return out
}
