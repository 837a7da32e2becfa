package llm

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sqlClient answers sample i with a SQL query of 100 to 400 bytes, as a
// text-to-SQL model does.
type sqlClient struct{}

func (sqlClient) Complete(ctx context.Context, req Request) (*Response, error) {
	r := &Response{Model: "qwen2.5-coder-7b", Usage: Usage{PromptTokens: 900, CompletionTokens: 60 * req.Samples()}, Latency: 800 * time.Millisecond}
	for i := range req.Samples() {
		cols := strings.Repeat(", T1.column_name_"+fmt.Sprint(i), 2+i)
		r.Choices = append(r.Choices, "```sql\nSELECT T1.name"+cols+" FROM schools AS T1 INNER JOIN frpm AS T2 ON T1.CDSCode = T2.CDSCode WHERE T2.`Free Meal Count (K-12)` > 100 ORDER BY T1.name DESC LIMIT 5\n```")
	}
	return r, nil
}

// hitPrompt is a prompt of a few KB: a schema, evidence and a question.
func hitPrompt() []Message {
	var b strings.Builder
	b.WriteString("You are an expert in SQL. Given the database schema and the question, write a SQLite query that answers it.\n\nDatabase schema:\n")
	for t := range 12 {
		fmt.Fprintf(&b, "CREATE TABLE table_%d (\n  id INTEGER PRIMARY KEY,\n  name TEXT NOT NULL, -- Examples: [\"Alameda\", \"Fresno\"]\n  value_%d REAL,\n  FOREIGN KEY (id) REFERENCES table_0 (id)\n);\n\n", t, t)
	}
	b.WriteString("Evidence: Free rate = `Free Meal Count (K-12)` / `Enrollment (K-12)`\n\nQuestion: What is the highest eligible free rate for K-12 students in the schools in Alameda County? \"quoted\" <tag> & more")
	return []Message{{Role: "system", Content: "Only output the SQL query."}, {Role: "user", Content: b.String()}}
}

// BenchmarkCachedHit answers one request per op from the cache through
// CachedClient.Complete (a hit): n=1 as a direct or cot trial asks, n=8 as
// self-consistency does, with a prompt of a few KB and SQL answers of 100
// to 400 bytes.
func BenchmarkCachedHit(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			cache, err := OpenCache(filepath.Join(b.TempDir(), "cache.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer cache.Close()
			c := Cached(sqlClient{}, cache, Ident{Backend: "openai", BaseURL: "http://localhost:8000/v1", Model: "qwen2.5-coder-7b"})
			req := Request{Role: "generate", Messages: hitPrompt(), Temperature: 0.7, MaxTokens: 1024, N: n, Answer: AnswerSQL}
			ctx := context.Background()
			if _, err := c.Complete(ctx, req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				resp, err := c.Complete(ctx, req)
				if err != nil || !resp.Cached || len(resp.Choices) != n {
					b.Fatalf("got %+v, %v; want a hit of %d samples", resp, err, n)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkRequestKey computes the request key of a request with a prompt
// of a few KB per op.
func BenchmarkRequestKey(b *testing.B) {
	req := Request{Role: "generate", Messages: hitPrompt(), Temperature: 0.7, MaxTokens: 1024, N: 8, Answer: AnswerSQL}
	id := Ident{Backend: "openai", BaseURL: "http://localhost:8000/v1", Model: "qwen2.5-coder-7b"}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, _, err := requestKey(id, req); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkOpenCache opens an existing cache file of the current format
// per op, as each run does.
func BenchmarkOpenCache(b *testing.B) {
	path := filepath.Join(b.TempDir(), "cache.db")
	c, err := OpenCache(path)
	if err != nil {
		b.Fatal(err)
	}
	c.Close()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		c, err := OpenCache(path)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	reportCPU(b, start)
}
