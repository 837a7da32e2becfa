package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/datasets"
	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/spec"
)

// TestRejected checks the error of a run stopped by an endpoint's 401,
// 403 or 404: it is ErrRejected, names the class and the spec's model
// (also when the endpoint is one of its replicas), keeps the server's
// message without the key, and says what to change.
func TestRejected(t *testing.T) {
	tr := &spec.Trial{Label: "direct", Models: map[string]spec.ModelSpec{
		"sim":  {Backend: "sim"},
		"qwen": {Backend: "openai", BaseURL: "http://a:8000/v1", Model: "Qwen/Qwen2.5-7B", Replicas: []spec.ReplicaSpec{{BaseURL: "http://b:8000/v1"}}},
	}}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"404 wrong name", &llm.StatusError{StatusCode: 404, Message: "model 'Qwen/Qwen2.5-7B' not found", BaseURL: "http://a:8000/v1", Model: "Qwen/Qwen2.5-7B"},
			[]string{"model qwen (http://a:8000/v1, model \"Qwen/Qwen2.5-7B\") answered HTTP 404 (not_found) on trial direct question q7: model 'Qwen/Qwen2.5-7B' not found",
				"set models.qwen.model to a name the server serves (GET http://a:8000/v1/models lists them)", "rerun the same command to resume"}},
		{"401 on a replica", &llm.StatusError{StatusCode: 401, Message: "Incorrect API key provided: sk-secret-key-123", BaseURL: "http://b:8000/v1", Model: "Qwen/Qwen2.5-7B"},
			[]string{"model qwen (http://b:8000/v1", "HTTP 401 (auth)", "Incorrect API key provided: [REDACTED]", "check that models.qwen.api_key_env names the environment variable"}},
		{"403 of an unknown endpoint", &llm.StatusError{StatusCode: 403, Message: "forbidden", BaseURL: "http://c/v1", Model: "x"},
			[]string{"the model (http://c/v1, model \"x\") answered HTTP 403 (auth)", "check that the api_key_env of the model served at http://c/v1 names"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rejected(tr, "q7", tt.err, []string{"sk-secret-key-123"})
			if !errors.Is(err, ErrRejected) {
				t.Errorf("errors.Is(%v, ErrRejected) = false; want true", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error shows the key:\n%s", err)
			}
		})
	}
}

// birdTree writes a BIRD mini-dev layout under a new folder: the question
// file in mini_dev/ over databases db0..db3 (question i on db i%4, n
// questions) and the databases named in present under dev_databases/.
func birdTree(t *testing.T, n int, present ...string) string {
	t.Helper()
	root := t.TempDir()
	var qs []string
	for i := range n {
		qs = append(qs, fmt.Sprintf(`{"question_id": %d, "db_id": "db%d", "question": "q%d?", "SQL": "SELECT 1", "difficulty": "simple"}`, i, i%4, i))
	}
	if err := os.MkdirAll(filepath.Join(root, "mini_dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mini_dev", "mini_dev_sqlite.json"), []byte("["+strings.Join(qs, ",\n")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range present {
		d := filepath.Join(root, "dev_databases", db)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		// An empty file is an empty SQLite database.
		if err := os.WriteFile(filepath.Join(d, db+".sqlite"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCheckDatabases: a data folder where the databases of more than half
// of the questions are missing is refused, naming the folder, the counts
// and, when a folder above holds the databases, that folder.
func TestCheckDatabases(t *testing.T) {
	all := birdTree(t, 8, "db0", "db1", "db2", "db3")
	half := birdTree(t, 8, "db0", "db1")
	one := birdTree(t, 8, "db0")
	open := func(dir string) (*datasets.Benchmark, error) {
		return datasets.Open("bird-minidev", dir, datasets.LoadOptions{})
	}
	tests := []struct {
		name string
		data string
		// missing is -1 when the check passes.
		missing    int
		fix        string
		fixMissing int
		text       []string
	}{
		{"every database there", all, -1, "", 0, nil},
		{"half missing: scored", half, -1, "", 0, nil},
		{"the mini_dev folder instead of the root", filepath.Join(all, "mini_dev"), 8, all, 0, []string{
			"benchmark bird-minidev: the databases of 8 of 8 questions are missing in the data folder " + filepath.Join(all, "mini_dev") + " (4 of 4 databases missing: db0, db1, db2, db3); they would score missing_db and EX would cover no question, so the benchmark is not scored",
			"likely fix: pass --data " + all + " (that folder holds the databases of all 8 questions)",
			"pass --allow-missing-db"}},
		{"the mini_dev folder, root partial", filepath.Join(half, "mini_dev"), 8, half, 4, []string{
			"likely fix: pass --data " + half + " (that folder holds the databases of 4 of the 8 questions)"}},
		{"most missing, no better folder", one, 6, "", 0, []string{
			"the databases of 6 of 8 questions are missing in the data folder " + one + " (3 of 4 databases missing: db1, db2, db3); they would score missing_db and EX would cover only the other 2 questions",
			"next: pass --data DIR, with DIR the benchmark's root folder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := open(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Engine.Close()
			err = CheckDatabases(b, "bird-minidev", open, "pass --data DIR")
			if tt.missing < 0 {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			var me *MissingDataError
			if !errors.As(err, &me) || !errors.Is(err, ErrMissingData) {
				t.Fatalf("got %v; want a *MissingDataError", err)
			}
			if me.Missing != tt.missing || me.Questions != 8 || me.Fix != tt.fix || me.FixMissing != tt.fixMissing {
				t.Errorf("got missing %d of %d, fix %q (%d still missing); want %d of 8, fix %q (%d)", me.Missing, me.Questions, me.Fix, me.FixMissing, tt.missing, tt.fix, tt.fixMissing)
			}
			for _, w := range tt.text {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%s", w, err)
				}
			}
		})
	}
}
