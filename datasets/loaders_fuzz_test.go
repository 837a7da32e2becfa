package datasets

import "testing"

func FuzzParseSpider(f *testing.F) {
	f.Add([]byte(spiderFixture))
	f.Add([]byte(`[{"db_id": "a", "query": "SELECT a FROM t WHERE b BETWEEN 1 AND 2", "question": "q", "sql": {"from": {"table_units": [], "conds": []}}}]`))
	f.Add([]byte("[\n{\"db_id\": 1}\n]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := ParseSpider("f.json", data)
		checkParseError(t, err)
		for i, e := range ex {
			if e.Index != i || e.DBID == "" || e.GoldSQL == "" || e.Difficulty == "" {
				t.Fatalf("example %d incomplete: %+v", i, e)
			}
		}
	})
}

func FuzzParseBIRD(f *testing.F) {
	f.Add([]byte(`[{"question_id": 7, "db_id": "club", "question": "Q?", "evidence": "E", "SQL": "SELECT 1", "difficulty": "moderate", "reasoning_type": ["a"]}]`))
	f.Add([]byte(`[{"question_id": "7"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := ParseBIRD("f.json", data)
		checkParseError(t, err)
		ids := map[string]bool{}
		for _, e := range ex {
			if ids[e.ID] {
				t.Fatalf("duplicate id %s accepted", e.ID)
			}
			ids[e.ID] = true
		}
	})
}

func FuzzParseArcher(f *testing.F) {
	f.Add([]byte(`[{"db_id": "concert_singer", "query": "SELECT 1", "question": "q", "reasoning_type": "- + C", "commonsense_knowledge": "k"}]`))
	f.Add([]byte(`[{"db_id": "x", "query": "q", "question": "q", "reasoning_type": "Z"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseArcher("f.json", data)
		checkParseError(t, err)
	})
}

func FuzzCountHardness(f *testing.F) {
	for _, s := range []string{
		"SELECT count(*) FROM singer",
		"SELECT a FROM t WHERE b > (SELECT avg(b) FROM t) UNION SELECT a FROM u",
		"SELECT a , count(*) FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) < 3",
		"SELECT T1.a FROM x AS T1 JOIN y AS T2 ON T1.id = T2.id OR T1.k = T2.k ORDER BY sum(b) - sum(c) LIMIT 1",
		`SELECT "a""b" FROM [t] WHERE c NOT LIKE '%x%'`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		h, err := CountHardness(sql)
		if err != nil {
			return
		}
		if h.Component1 < 0 || h.Component2 < 0 || h.Others < 0 || h.Others > 4 {
			t.Fatalf("counts out of range: %+v", h)
		}
		switch h.Level() {
		case HardnessEasy, HardnessMedium, HardnessHard, HardnessExtra:
		default:
			t.Fatalf("level %q", h.Level())
		}
	})
}
