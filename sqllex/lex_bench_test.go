package sqllex

import "testing"

// benchSQL is SQL as model answers hold it: several lines, joins, a
// subquery, string literals and a comment.
const benchSQL = "SELECT DISTINCT T1.name, count(*) AS n -- singers\nFROM singer AS T1\nJOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id\n" +
	"JOIN concert AS T3 ON T2.concert_id = T3.concert_id\nWHERE T3.year = 2014 AND T1.country <> 'it''s' AND T1.age >= (SELECT avg(age) FROM singer)\n" +
	"GROUP BY T1.name ORDER BY n DESC LIMIT 3;"

// BenchmarkLex measures Lex on benchSQL with the zero Options and with
// comments kept.
func BenchmarkLex(b *testing.B) {
	for _, bc := range []struct {
		name string
		o    Options
	}{{"default", Options{}}, {"comments", Options{NoBrackets: true, Comments: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(benchSQL)))
			for b.Loop() {
				Lex(benchSQL, bc.o)
			}
		})
	}
}

// BenchmarkScan measures Scan on benchSQL with the zero Options: the
// lexing alone, without a slice of tokens.
func BenchmarkScan(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSQL)))
	for b.Loop() {
		Scan(benchSQL, Options{}, func(Token) bool { return true })
	}
}
