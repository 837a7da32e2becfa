package datasets

import "testing"

// predictions are predicted SQL as the scorer receives it from the
// extractor: one statement without its trailing ';' (most), laid out on
// one line or several, and a few with a ';', a comment or a second
// statement.
var predictions = []string{
	"SELECT count(*) FROM singer",
	"SELECT name ,  country ,  age FROM singer ORDER BY age DESC",
	"SELECT avg(age) ,  min(age) ,  max(age) FROM singer WHERE country  =  'France'",
	"SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id",
	"SELECT DISTINCT T1.name\nFROM singer AS T1\nJOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id\nJOIN concert AS T3 ON T2.concert_id = T3.concert_id\nWHERE T3.year = 2014",
	"SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)",
	"WITH s AS (SELECT stadium_id, count(*) AS n FROM concert WHERE year >= 2014 GROUP BY stadium_id)\nSELECT T1.name, T1.capacity FROM stadium AS T1 JOIN s ON s.stadium_id = T1.stadium_id ORDER BY s.n DESC LIMIT 1",
	"SELECT song_name FROM singer WHERE song_name LIKE '%Hey%' AND \"Is_male\" = 'F'",
	"SELECT country FROM singer WHERE age > 40 INTERSECT SELECT country FROM singer WHERE age < 30;",
	"SELECT name FROM singer -- the names\nWHERE country = 'US'",
	"SELECT 'a; b' AS x FROM t; SELECT 2",
}

// BenchmarkStatement measures SingleStatement and CheckPrediction (both
// dialects) over predictions, per prediction.
func BenchmarkStatement(b *testing.B) {
	b.Run("SingleStatement", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, q := range predictions {
				SingleStatement(q)
			}
		}
	})
	for _, d := range []string{"sqlite", "mysql"} {
		b.Run("CheckPrediction/"+d, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, q := range predictions {
					CheckPrediction(d, q)
				}
			}
		})
	}
}
