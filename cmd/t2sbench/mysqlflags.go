package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// The environment variables of LogicCat on MySQL/MariaDB, one set
// everywhere (README, specs, flags, `datasets load-mysql`'s export lines):
//
//	T2SBENCH_MYSQL_DSN     an admin account's DSN (scripts/mariadb.sh start
//	                       exports it; load-mysql and the tests use it)
//	T2SBENCH_RO_DSN        the SELECT-only account's DSN, which scoring uses
//	T2SBENCH_RO_PASSWORD   that account's password
//
// T2SBENCH_MYSQL_PASSWORD, the older name of the read-only password that
// specs without a mysql entry read, still works (bench.DefaultEnv).
const (
	mysqlAdminDSNEnv = "T2SBENCH_MYSQL_DSN"
	mysqlDSNEnv      = "T2SBENCH_RO_DSN"
	mysqlPasswordEnv = "T2SBENCH_RO_PASSWORD"
	defaultROUser    = "t2s_ro"
)

// mysqlFlags are the flags of a command that can load LogicCat's
// MySQL-dialect benchmarks from a MySQL/MariaDB server (eval, datasets
// check).
type mysqlFlags struct {
	dsn, passwordEnv *string
}

func addMySQLFlags(fs *flag.FlagSet) mysqlFlags {
	return mysqlFlags{
		dsn:         fs.String("mysql-dsn", os.Getenv(mysqlDSNEnv), "LogicCat: DSN of the SELECT-only account, without password (default $"+mysqlDSNEnv+", which datasets load-mysql prints)"),
		passwordEnv: fs.String("mysql-password-env", "", "LogicCat: environment variable holding that account's password (default "+mysqlPasswordEnv+" when it is set)"),
	}
}

// config returns the server configuration for benchmark name, nil when it
// does not run on MySQL, or a usage error naming cmd when it does and no
// DSN was given. maxBytes is the result byte budget (0: the default).
// A DSN only in the admin variable (the default before the read-only
// variables existed) is used with a note on stderr.
func (f mysqlFlags) config(stderr io.Writer, cmd, name string, timeout time.Duration, maxBytes int64) (*datasets.MySQLConfig, error) {
	if !datasets.NeedsServer(name) {
		return nil, nil
	}
	dsn, pwEnv := *f.dsn, *f.passwordEnv
	if dsn == "" && os.Getenv(mysqlAdminDSNEnv) != "" {
		dsn = os.Getenv(mysqlAdminDSNEnv)
		fmt.Fprintf(stderr, "note: %s: using $%s as the scoring account; set %s (datasets load-mysql prints it) or pass --mysql-dsn: reading the DSN from $%s is deprecated\n",
			cmd, mysqlAdminDSNEnv, mysqlDSNEnv, mysqlAdminDSNEnv)
	}
	if dsn == "" {
		return nil, fmt.Errorf("%w: %s: %s runs MySQL-dialect gold SQL on a MySQL/MariaDB server: pass --mysql-dsn and --mysql-password-env (or set %s and %s, which `t2sbench datasets load-mysql` prints; README, LogicCat on MariaDB/MySQL), or use logiccat-sqlite for the SQLite files, most of them empty",
			errUsage, cmd, name, mysqlDSNEnv, mysqlPasswordEnv)
	}
	if pwEnv == "" && os.Getenv(mysqlPasswordEnv) != "" {
		pwEnv = mysqlPasswordEnv
	}
	return &datasets.MySQLConfig{DSN: dsn, PasswordEnv: pwEnv, Timeout: timeout, MaxBytes: maxBytes}, nil
}
