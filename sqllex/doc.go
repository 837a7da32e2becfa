// Package sqllex splits SQL text into tokens: words, quoted identifiers,
// string literals, numbers and punctuation, each with its parenthesis
// depth and its byte offsets in the text.
//
// It is a lexer, not a parser: Tokens accepts any text. Scan hands the
// same tokens to a callback, for a caller that reads each once or stops
// early and needs no slice of them. Every package that
// reads quotes or comments of SQL uses it: in datasets the statement
// splitter, the Spider hardness counter, the MySQL read-only check and the
// dump loader; in metrics the sqlparse-style rewrite and the
// nondeterminism scan; in runners SteinerSQL's clause scanner, IESR's
// analysis, the ReAct DSL's lexer and sqltext's reading of SQL cut from
// model output; in sim the tokenizer of gold SQL and the prompt's DDL
// reader. Where their dialects differ (MySQL comments and escapes, ASCII
// words, the operators a grammar knows, an unterminated quote being an
// error) they say so with Options.
//
// sqllex imports only the standard library, so that every package of the
// module may use it.
package sqllex
