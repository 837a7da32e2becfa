// Package retrieval finds database values that a question's keywords refer
// to, as Alpha-SQL's value retrieval does (HKUSTDial/Alpha-SQL,
// alphasql/database/lsh_index.py), and offers lexical similarity helpers
// other methods reuse (IESR's schema linking, SteinerSQL's name
// similarity).
//
// The value index: every DISTINCT, non-null, non-blank value of every
// text-affinity column that is not a primary key is shingled into its
// character 3-grams and summarised by a 128-permutation MinHash signature.
// Signatures are banded for locality-sensitive hashing at a Jaccard
// threshold of 0.5; OptimalBands picks the banding as datasketch's
// MinHashLSH does (25 bands of 5 rows for 0.5 and 128 permutations). A
// keyword's candidates are the values sharing at least one band; they are
// ranked by estimated Jaccard and the top 20 kept (DefaultTopK), then kept
// only when their edit similarity to the keyword is at least 0.3 and, when
// an embedding backend is configured, their embedding cosine at least 0.6.
// Without an embedder the filter is lexical only, and Retrieval.Mode says
// so.
//
// Alpha-SQL indexes only columns typed exactly "text"; t2sbench takes every
// text-affinity type (TEXT, VARCHAR(n), CHAR, CLOB), since Spider declares
// many text columns as varchar.
//
// Index building reads each column's distinct values in pages, so the
// database's row cap does not truncate them. Open caches an index on disk
// as gob under <cache>/<fingerprint>.gob, keyed by Database.Fingerprint, so
// it is built once per database.
package retrieval
