package runners

import "maps"

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
	// Defaults are the defaults of the parameters that sweeps and grids
	// vary, from the package's Default constants (each documenting its
	// source: paper section, released code, or t2sbench's choice where the
	// paper gives none). Reports mark them on sweeps and grids and test
	// grid points against them.
	Defaults map[string]float64
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
	info.Defaults = maps.Clone(info.Defaults)
	registry[info.Name] = info
}

// Lookup returns what the runner registered under name says of itself.
func Lookup(name string) (Info, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	info, ok := registry[name]
	return info, ok
}

// PaperDefaults returns every registered runner's Defaults by runner name
// (runners without any are left out), a fresh map the caller may keep.
func PaperDefaults() map[string]map[string]float64 {
	regMu.RLock()
	defer regMu.RUnlock()
	out := map[string]map[string]float64{}
	for name, info := range registry {
		if len(info.Defaults) > 0 {
			out[name] = maps.Clone(info.Defaults)
		}
	}
	return out
}
