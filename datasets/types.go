package datasets

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Example is one benchmark question. Fields the official file carries beyond
// the common ones are kept in Extra, unmodified.
type Example struct {
	// ID is the stable question id used to pair systems: the official
	// question_id where the benchmark has one, else "<db_id>/<index>" style
	// ids documented by each loader.
	ID string `json:"id"`
	// Index is the 0-based position in the benchmark file (the order the
	// official prediction formats use).
	Index          int            `json:"index"`
	DBID           string         `json:"db_id"`
	Question       string         `json:"question"`
	Evidence       string         `json:"evidence,omitempty"`
	GoldSQL        string         `json:"gold_sql,omitempty"`
	Difficulty     string         `json:"difficulty,omitempty"`
	ReasoningTypes []string       `json:"reasoning_types,omitempty"`
	Extra          map[string]any `json:"extra,omitempty"`
}

// WithoutGold returns a copy of e with the gold SQL removed, the form a
// runner sees.
func (e Example) WithoutGold() Example {
	e.GoldSQL = ""
	return e
}

// Benchmark is a loaded benchmark split.
type Benchmark struct {
	// Name is the benchmark kind: spider, bird, bird-minidev, archer,
	// logiccat or mini.
	Name string
	// Split names the file the examples came from (dev, train, ...).
	Split string
	// Dir is the data directory the benchmark was loaded from.
	Dir string
	// Mode is the default EX comparator mode for this benchmark (see
	// metrics.Mode).
	Mode     string
	Examples []Example
	// Engine opens the example databases; nil when the databases are not
	// reachable (every example then scores missing_db).
	Engine Engine
}

// ByID returns the example with the given id.
func (b *Benchmark) ByID(id string) (Example, bool) {
	for _, e := range b.Examples {
		if e.ID == id {
			return e, true
		}
	}
	return Example{}, false
}

// Engine opens databases by id. Implementations: SQLite (files on disk) and
// MySQL/MariaDB (a server).
type Engine interface {
	// Open returns a read-only handle on database dbID. It returns an error
	// wrapping ErrMissingDB when the database does not exist.
	Open(ctx context.Context, dbID string) (Database, error)
	// Dialect is "sqlite" or "mysql".
	Dialect() string
	Close() error
}

// Database is a read-only, sandboxed handle on one database. It is safe for
// concurrent use.
type Database interface {
	ID() string
	Dialect() string
	// Execute runs one read-only statement. SQL failures are returned as
	// *ExecError (never a panic); ctx cancellation and the configured
	// timeout interrupt the running statement.
	Execute(ctx context.Context, sql string) (*ResultSet, error)
	// Schema introspects tables, columns, keys and sample values.
	Schema(ctx context.Context) (*Schema, error)
	// Fingerprint identifies the database content (SHA-256 of the file for
	// SQLite), used to key the gold-result cache.
	Fingerprint() string
	Close() error
}

// Pinner is a Database that can run a sequence of statements on one
// connection: Pin returns a Database whose Execute uses one connection
// until its Close, which releases that connection and leaves the
// original open. The SQLite engine's databases are Pinners.
type Pinner interface {
	Pin(ctx context.Context) (Database, error)
}

// ErrMissingDB is wrapped by Engine.Open when a database does not exist.
var ErrMissingDB = errors.New("database not found")

// ExecKind classifies an execution failure.
type ExecKind string

const (
	// ExecErrorKind: the statement failed (syntax, unknown column, ...).
	ExecErrorKind ExecKind = "error"
	// ExecTimeout: the statement was interrupted by the timeout.
	ExecTimeout ExecKind = "timeout"
	// ExecDenied: the sandbox refused the statement (a write, ATTACH, ...).
	ExecDenied ExecKind = "denied"
	// ExecTooLarge: the result exceeded the byte budget (MaxBytes of
	// SQLiteOptions or MySQLConfig); the statement was interrupted.
	ExecTooLarge ExecKind = "too_large"
	// ExecCanceled: the caller's context was canceled.
	ExecCanceled ExecKind = "canceled"
)

// ExecError is the error Execute returns for any failure of the statement.
type ExecError struct {
	Kind    ExecKind
	Msg     string
	Elapsed time.Duration
}

func (e *ExecError) Error() string { return fmt.Sprintf("%s: %s", e.Kind, e.Msg) }

// ResultSet is the result of one query. Values are normalised so that every
// engine produces the same Go types: nil (NULL), int64, float64, string
// (text, possibly holding invalid UTF-8 bytes exactly as stored) and []byte
// (BLOB).
type ResultSet struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// Truncated is true when the row cap cut the result.
	Truncated bool          `json:"truncated,omitempty"`
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// Schema describes a database.
type Schema struct {
	DBID        string       `json:"db_id"`
	Tables      []Table      `json:"tables"`
	ForeignKeys []ForeignKey `json:"foreign_keys"`
}

// Table is one table with its columns.
type Table struct {
	Name       string   `json:"name"`
	Columns    []Column `json:"columns"`
	PrimaryKey []string `json:"primary_key,omitempty"`
	RowCount   int64    `json:"row_count"`
}

// Column is one column. Examples holds distinct non-null sample values as
// text; Comment a description where the benchmark ships one.
type Column struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Comment  string   `json:"comment,omitempty"`
	Primary  bool     `json:"primary,omitempty"`
	NotNull  bool     `json:"not_null,omitempty"`
	Examples []string `json:"examples,omitempty"`
}

// ForeignKey is FromTable.FromColumn = ToTable.ToColumn.
type ForeignKey struct {
	FromTable  string `json:"from_table"`
	FromColumn string `json:"from_column"`
	ToTable    string `json:"to_table"`
	ToColumn   string `json:"to_column"`
}

// Table returns the table with the given name (case-insensitive).
func (s *Schema) Table(name string) (*Table, bool) {
	for i := range s.Tables {
		if equalFold(s.Tables[i].Name, name) {
			return &s.Tables[i], true
		}
	}
	return nil, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}
