// Package t2sbench holds the files the harness ships inside its binary: the
// bundled mini benchmark (testdata/mini), so that `t2sbench run` and
// `t2sbench report` find it from any working directory.
//
// The harness itself lives in the packages below this one; see README.md.
package t2sbench

import (
	"embed"
	"io/fs"
)

//go:embed testdata/mini/questions.json testdata/mini/databases/*.sql
var bundled embed.FS

// MiniFS returns the bundled mini benchmark: questions.json and
// databases/<db_id>.sql.
func MiniFS() fs.FS {
	sub, err := fs.Sub(bundled, "testdata/mini")
	if err != nil {
		panic("t2sbench: bundled mini benchmark: " + err.Error()) // fixed at build time
	}
	return sub
}
