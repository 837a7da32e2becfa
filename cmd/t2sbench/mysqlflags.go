package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/t2sbench/t2sbench/datasets"
)

// mysqlFlags are the flags of a command that can load LogicCat's
// MySQL-dialect benchmarks from a MySQL/MariaDB server (eval, datasets
// check).
type mysqlFlags struct {
	dsn, passwordEnv *string
}

func addMySQLFlags(fs *flag.FlagSet) mysqlFlags {
	return mysqlFlags{
		dsn:         fs.String("mysql-dsn", os.Getenv("T2SBENCH_MYSQL_DSN"), "LogicCat: DSN of the SELECT-only account, without password (default $T2SBENCH_MYSQL_DSN)"),
		passwordEnv: fs.String("mysql-password-env", "", "LogicCat: environment variable holding that account's password"),
	}
}

// config returns the server configuration for benchmark name, nil when it
// does not run on MySQL, or a usage error naming cmd when it does and no
// DSN was given. maxBytes is the result byte budget (0: the default).
func (f mysqlFlags) config(cmd, name string, timeout time.Duration, maxBytes int64) (*datasets.MySQLConfig, error) {
	if !needsMySQL(name) {
		return nil, nil
	}
	if *f.dsn == "" {
		return nil, fmt.Errorf("%w: %s: %s runs MySQL-dialect gold SQL on a MySQL/MariaDB server: pass --mysql-dsn (or set T2SBENCH_MYSQL_DSN; see README, LogicCat on MariaDB/MySQL), or use logiccat-sqlite for the SQLite files, most of them empty", errUsage, cmd, name)
	}
	return &datasets.MySQLConfig{DSN: *f.dsn, PasswordEnv: *f.passwordEnv, Timeout: timeout, MaxBytes: maxBytes}, nil
}
