package sqltext

import "github.com/t2sbench/t2sbench/sqllex"

// Token is one token of a SQL statement (see package sqllex).
type Token = sqllex.Token

// TokenKind is the kind of a SQL token.
type TokenKind = sqllex.Kind

// Token kinds.
const (
	Word   = sqllex.Word
	Ident  = sqllex.Ident
	String = sqllex.String
	Number = sqllex.Number
	Punct  = sqllex.Punct
)

// Tokens splits sql into tokens: sqllex.Tokens.
func Tokens(sql string) []Token { return sqllex.Tokens(sql) }
