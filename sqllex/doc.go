// Package sqllex splits SQL text into tokens: words, quoted identifiers,
// string literals, numbers and punctuation, each with its parenthesis
// depth and its byte offsets in the text.
//
// It is a lexer, not a parser: Tokens accepts any text. The packages that
// need tokens (the Spider hardness counter and the MySQL read-only check in
// datasets, SteinerSQL's clause scanner and IESR's analysis in runners) all
// use it; where their dialects differ (MySQL comments and escapes, an
// unterminated quote being an error) they say so with Options.
//
// sqllex imports only the standard library, so that every package of the
// module may use it.
package sqllex
