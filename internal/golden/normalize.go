package golden

import (
	"path/filepath"
	"regexp"
	"strings"
)

// A Rule rewrites the volatile parts of an output (those that differ from
// one run to the next on the same input) into fixed placeholders, so that
// the rest can be compared byte for byte. A test applies only the rules its
// output needs, and says which: a rule blanks real information, and one
// applied too widely hides a regression (Durations would blank a timeout
// default printed by a help text).
type Rule func(string) string

// Normalize applies rules to s in order.
func Normalize(s string, rules ...Rule) string {
	for _, r := range rules {
		s = r(s)
	}
	return s
}

// Replace is the rule that replaces every match of re with repl (as
// regexp.ReplaceAllString, so repl may use $1).
func Replace(re *regexp.Regexp, repl string) Rule {
	return func(s string) string { return re.ReplaceAllString(s, repl) }
}

// Path is the rule that replaces every occurrence of the directory dir (a
// t.TempDir(), a cache folder) with name, e.g. Path(dir, "$TMP"); its
// symlink-resolved form (macOS's /var is /private/var) and its
// forward-slash form are replaced too. Longer forms are replaced first, so
// a path that contains another is never half-replaced.
func Path(dir, name string) Rule {
	forms := []string{dir, filepath.ToSlash(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		forms = append(forms, real, filepath.ToSlash(real))
	}
	return func(s string) string {
		// Longest first: /private/var/x before /var/x.
		for done := map[string]bool{}; ; {
			best := ""
			for _, f := range forms {
				if f != "" && !done[f] && len(f) > len(best) {
					best = f
				}
			}
			if best == "" {
				return s
			}
			done[best] = true
			s = strings.ReplaceAll(s, best, name)
		}
	}
}

// durationRE matches a time.Duration as its String method writes it
// (12.982s, 1m3.5s, 2h0m0s, 350ms, 1.5µs, 800ns), not inside a word.
var durationRE = regexp.MustCompile(`\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:h|m|s|ms|µs|us|ns)\b`)

// Durations replaces every Go duration (12.982s, 1m3.5s, 350ms, 1.5µs)
// with "<duration>". Apply it only to output whose durations are measured
// (elapsed time), never to one that prints configured ones (a 60s timeout).
func Durations(s string) string {
	return durationRE.ReplaceAllString(s, "<duration>")
}

var (
	// dateTimeRE matches an RFC 3339 time (2026-12-01T19:49:45Z,
	// 2026-12-01T19:49:45.123+01:00) or a date and time with a space
	// (2026-12-01 19:49:45).
	dateTimeRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?`)
	dateRE     = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
)

// Dates replaces every date and time (RFC 3339, or date and time joined
// by a space) with "<time>", then every date left (2026-12-01) with
// "<date>".
func Dates(s string) string {
	s = dateTimeRE.ReplaceAllString(s, "<time>")
	return dateRE.ReplaceAllString(s, "<date>")
}

var (
	goVersionRE     = regexp.MustCompile(`\bgo1(?:\.\d+){0,2}(?:(?:rc|beta)\d+)?\b`)
	sqliteVersionRE = regexp.MustCompile(`\bSQLite \d+\.\d+\.\d+\b`)
	semverRE        = regexp.MustCompile(`\bv\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`)
	commitRE        = regexp.MustCompile(`\bcommit [0-9a-f]{7,40}\b|\b[0-9a-f]{40}\b`)
)

// Versions replaces the versions of the toolchain and the build: Go
// versions (go1.26.8 becomes go<version>), the SQLite library's (SQLite
// 3.54.1 becomes SQLite <version>), module versions (v1.2.3-0.2026...
// becomes v<version>) and commit hashes (a 40-digit hex word, or hex after
// "commit ", become <commit>).
func Versions(s string) string {
	s = goVersionRE.ReplaceAllString(s, "go<version>")
	s = sqliteVersionRE.ReplaceAllString(s, "SQLite <version>")
	s = semverRE.ReplaceAllString(s, "v<version>")
	return commitRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "commit ") {
			return "commit <commit>"
		}
		return "<commit>"
	})
}
