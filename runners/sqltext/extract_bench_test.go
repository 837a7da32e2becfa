package sqltext

import (
	"strings"
	"testing"
	"time"
)

// benchCorpus is a mixed corpus of responses: every extractor case (all
// styles, short) plus longer answers in the shapes instruction-tuned and
// reasoning models write, where most of the bytes are prose and reasoning.
func benchCorpus() []string {
	var out []string
	for _, tc := range extractCases {
		out = append(out, tc.in)
	}
	explanation := strings.Repeat("The join keeps only the singers who performed in at least one concert, and the filter on the year restricts it to 2014. ", 8)
	reasoning := strings.Repeat("Let me look at the schema again: singer(singer_id, name, country, age), concert(concert_id, year, stadium_id). ", 20)
	out = append(out,
		"To answer this question we need two tables.\n\n**Step 1: find the concerts**\n\n```sql\nSELECT concert_id FROM concert WHERE year = 2014;\n```\n\n**Step 2: join**\n\n```sql\nSELECT DISTINCT T1.name\nFROM singer AS T1\nJOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id\nJOIN concert AS T3 ON T2.concert_id = T3.concert_id\nWHERE T3.year = 2014;\n```\n\n**Explanation:**\n"+explanation,
		"<think>\n"+reasoning+"\nA first try: SELECT name FROM singer\n</think>\n\nThe final SQL query is:\n\n```sql\nSELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)\n```",
		"Here is the SQL query:\n\nSELECT count(*)\nFROM concert\nWHERE year = 2014\n\n"+explanation,
		`{"reasoning": "`+strings.ReplaceAll(explanation, `"`, `'`)+`", "sql": "SELECT name FROM singer ORDER BY age DESC LIMIT 1"}`,
	)
	return out
}

// BenchmarkExtract measures Extract over benchCorpus, reporting the time per
// response (ns/response), for the current extractor and for the one sqltext
// had before ExtractSQL (old), so that their ratio can be read off.
func BenchmarkExtract(b *testing.B) {
	corpus := benchCorpus()
	var bytes int64
	for _, s := range corpus {
		bytes += int64(len(s))
	}
	for _, bc := range []struct {
		name string
		fn   func(string) (string, bool)
	}{{"new", Extract}, {"old", oldExtract}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(bytes)
			start := time.Now()
			for i := 0; i < b.N; i++ {
				for _, s := range corpus {
					bc.fn(s)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*len(corpus)), "ns/response")
		})
	}
}
