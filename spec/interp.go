package spec

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Environment interpolation in spec files and --models files.
//
// Every scalar value of the YAML tree (mapping values and sequence items,
// not keys) may hold ${VAR} or ${VAR:-default}: the first is the value of
// the environment variable VAR and an error naming VAR and the file:line
// when VAR is unset; the second falls back to default when VAR is unset or
// empty (the shell's ":-"). "$${" writes a literal "${". A plain
// (unquoted) scalar is typed after substitution, so `workers: ${W}` with
// W=4 is the number 4; a quoted one stays a string.
//
// Secrets never enter a spec this way: a variable whose name reads like a
// credential (a KEY, TOKEN, SECRET, PASSWORD, ... part) and a value that
// is a URL carrying a password are refused, because the spec's values are
// stored in the run directory (each trial's configuration). API keys are
// named by api_key_env and MySQL passwords by password_env, read at run
// time and redacted from stored error texts and the stored spec (see the
// package doc, Secrets).

// Lookup reads an environment variable: its value and whether it is set.
type Lookup func(name string) (string, bool)

// secretParts are the name parts (split at '_') that mark a variable as
// holding a credential.
var secretParts = map[string]bool{
	"KEY": true, "APIKEY": true, "TOKEN": true, "SECRET": true, "PASSWORD": true, "PASSWD": true,
	"PASS": true, "PWD": true, "CREDENTIAL": true, "CREDENTIALS": true, "AUTH": true,
}

// secretName reports whether an environment variable's name reads like a
// credential's (OPENAI_API_KEY, HF_TOKEN, DB_PASSWORD).
func secretName(name string) bool {
	for _, p := range strings.Split(strings.ToUpper(name), "_") {
		if secretParts[p] {
			return true
		}
	}
	return false
}

// interpolate expands ${...} in every scalar value under n. at gives a
// node's location (file:line) for errors.
func interpolate(n *yaml.Node, path string, at func(*yaml.Node) string, look Lookup) error {
	return walkScalars(n, path, func(n *yaml.Node, path string) error {
		if !strings.Contains(n.Value, "${") {
			return nil
		}
		v, fromEnv, err := expandEnv(n.Value, look)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", at(n), path, err)
		}
		if fromEnv {
			if u, perr := url.Parse(strings.TrimSpace(v)); perr == nil && u.User != nil {
				if _, has := u.User.Password(); has {
					return fmt.Errorf("%s: %s: the value from the environment is a URL with a password; a spec's values are stored with the run, so give the password through the model's api_key_env or the server's password_env instead", at(n), path)
				}
			}
		}
		n.Value = v
		if n.Style == 0 && n.ShortTag() == "!!str" {
			// Re-typed when the tree is written out and read back.
			n.Tag = ""
		}
		return nil
	})
}

// walkScalars calls fn on every scalar under n in document order with its
// path (models.a.p, runners[2].params.k), path naming n itself; it stops
// at the first error.
func walkScalars(n *yaml.Node, path string, fn func(n *yaml.Node, path string) error) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := walkScalars(c, path, fn); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			if err := walkScalars(n.Content[i+1], p, fn); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := walkScalars(c, fmt.Sprintf("%s[%d]", path, i), fn); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return fn(n, path)
	}
	return nil
}

// expandEnv expands ${VAR}, ${VAR:-default} and $${ in s. fromEnv reports
// whether any value came from the environment.
func expandEnv(s string, look Lookup) (out string, fromEnv bool, err error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), fromEnv, nil
		}
		if i > 0 && s[i-1] == '$' {
			// $${ is a literal ${.
			b.WriteString(s[:i-1] + "${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", false, fmt.Errorf("unclosed %q (write $${ for a literal ${)", s[i:])
		}
		expr := s[i+2 : i+end]
		s = s[i+end+1:]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validEnvName(name) {
			return "", false, fmt.Errorf("bad variable name %q in ${%s} (want letters, digits and _)", name, expr)
		}
		if secretName(name) {
			return "", false, fmt.Errorf("${%s}: %s names a credential, which a spec must not hold (its values are stored with the run): name the variable in api_key_env (models) or password_env (MySQL) instead", expr, name)
		}
		v, ok := look(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
			fromEnv = true
		case hasDef:
			b.WriteString(def)
		default:
			return "", false, fmt.Errorf("environment variable %s is not set (write ${%s:-default} to give a default)", name, name)
		}
	}
}

// validEnvName reports whether s is a shell variable name.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// osLookup is the process environment.
func osLookup(name string) (string, bool) { return os.LookupEnv(name) }
