package bench

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/internal/testkit"
	"github.com/t2sbench/t2sbench/runstore"
)

const integrityTestSpec = `name: i
benchmarks: [{name: fake}]
models: {m: {backend: openai, base_url: "http://127.0.0.1:1/v1", model: x}}
roles: {reason: m}
runners: [{name: direct}]
`

// damageResult flips one bit of the stored result of question q in the
// store of dir, leaving its checksum as it was.
func damageResult(t *testing.T, dir, q string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, runstore.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v []byte
	if err := db.QueryRow(`SELECT result FROM results WHERE question_id = ?`, q).Scan(&v); err != nil {
		t.Fatal(err)
	}
	v[len(v)/2] ^= 0x01
	if _, err := db.Exec(`UPDATE results SET result = ? WHERE question_id = ?`, v, q); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedResultReaders: the viewer's reader shows a damaged item
// without its verdict or result (class checksum), VerifyRun names it, and
// Merge leaves it out of the merged store (pending there) and counts it.
func TestDamagedResultReaders(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(4, 1, nil)
	p := mustPlan(t, integrityTestSpec)
	shard := t.TempDir()
	if _, err := runOnce(t, shard, p, env, Options{}); err != nil {
		t.Fatal(err)
	}
	damageResult(t, shard, "q002")
	ir, err := runstore.OpenItemReader(shard)
	if err != nil {
		t.Fatal(err)
	}
	defer ir.Close()
	it, ok, err := ir.Item(context.Background(), p.Trials[0].ID, "q002")
	if err != nil || !ok || it.ErrorClass != runstore.ClassChecksum || it.Result != nil || it.Verdict != nil {
		t.Errorf("damaged item: %+v, %v, %v; want class %s, no verdict, no result", it, ok, err, runstore.ClassChecksum)
	}
	if it, _, err := ir.Item(context.Background(), p.Trials[0].ID, "q001"); err != nil || it.Result == nil || it.ErrorClass != "" {
		t.Errorf("sound item: %+v, %v; want its result", it, err)
	}
	checks, err := runstore.VerifyRun(context.Background(), shard)
	if err != nil {
		t.Fatal(err)
	}
	rs := checks[2]
	if rs.Store != "run store" || rs.OK != 3 || rs.Mismatch != 1 || len(rs.First) != 1 || !strings.Contains(rs.First[0].Key, "question q002") {
		t.Errorf("VerifyRun run store: %+v; want 3 ok and q002 named", rs)
	}
	out := t.TempDir()
	st, err := runstore.Merge(out, shard)
	if err != nil {
		t.Fatal(err)
	}
	if st.Items != 3 || st.Damaged != 1 {
		t.Errorf("merge: %+v; want 3 items copied, 1 damaged left out", st)
	}
	r, err := runstore.ReadRun(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Integrity.ResultsRedone != 1 || len(r.Trials[0].Items) != 3 {
		t.Errorf("merged run: integrity %+v, %d items; want 1 damaged counted, 3 items", r.Integrity, len(r.Trials[0].Items))
	}
}

// TestStoreBeforeChecksums: a store written before results carried a
// checksum (no column sum) opens (the column is added), its items stay
// done and are counted unchecked, and new items carry checksums.
func TestStoreBeforeChecksums(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(4, 1, nil)
	p := mustPlan(t, integrityTestSpec)
	dir := t.TempDir()
	if _, err := runOnce(t, dir, p, env, Options{Limit: 2}); err != nil {
		t.Fatal(err)
	}
	testkit.SQLiteAt(t, filepath.Join(dir, runstore.StoreFile),
		`CREATE TABLE old_results (trial_id TEXT NOT NULL, question_id TEXT NOT NULL, result BLOB NOT NULL, PRIMARY KEY (trial_id, question_id))`,
		`INSERT INTO old_results SELECT trial_id, question_id, result FROM results`,
		`DROP TABLE results`,
		`ALTER TABLE old_results RENAME TO results`)
	checks, err := runstore.VerifyRun(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if rs := checks[2]; rs.Unchecked != 2 || rs.OK != 0 || rs.Mismatch != 0 {
		t.Errorf("old store: %+v; want 2 unchecked", rs)
	}
	sum, err := runOnce(t, dir, p, env, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 2 || sum.Done != 2 {
		t.Errorf("resume of the old store: %d skipped, %d done; want its 2 items kept and 2 run", sum.Skipped, sum.Done)
	}
	checks, err = runstore.VerifyRun(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if rs := checks[2]; rs.Unchecked != 2 || rs.OK != 2 {
		t.Errorf("after the resume: %+v; want 2 unchecked, 2 ok", rs)
	}

	// An older layout still: table results without checksums and items
	// without digests (stores written before items.digest, not opened for
	// writing since). Verification reads it, every item unchecked.
	testkit.SQLiteAt(t, filepath.Join(dir, runstore.StoreFile), `ALTER TABLE results DROP COLUMN sum`, `ALTER TABLE items DROP COLUMN digest`)
	checks, err = runstore.VerifyRun(context.Background(), dir)
	if err != nil {
		t.Fatalf("store without digests: %v", err)
	}
	if rs := checks[2]; rs.Unchecked != 4 || rs.OK != 0 || rs.Mismatch != 0 {
		t.Errorf("store without digests: %+v; want 4 unchecked", rs)
	}
}
