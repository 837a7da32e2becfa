// Package viewer turns run directories into a browsable HTML viewer: an
// overview of the trials (EX with its Wilson interval, failures, model
// calls, tokens, cost, the stored configuration), a filterable table of the
// questions, the questions two trials disagree on (McNemar's discordant
// pairs), each question's gold and per-trial SQL, verdict, result preview
// and trace (MCTS trees of Alpha-SQL and IESR, IESR's discriminator and
// score parts, SteinerSQL's schema graph and Steiner tree, ReAct turns) and
// its model calls.
//
// The data is plain JSON wrapped in small JavaScript files that call a
// registration function (data/index.js, data/q/N.js), so that the static
// copy works from file:// with no server and no network: browsers refuse
// fetch() of local JSON files but load local scripts. The page itself is
// HTML, CSS and vanilla JavaScript embedded in the binary; every value of
// the data is inserted as text (textContent, createTextNode), never as
// markup, so a model answer holding <script> shows as text.
//
// Traces are read one item at a time (bench.ItemReader): the index reads
// verdicts and the call log's totals only, and a question's file reads that
// question's items. Viewer.Handler serves the viewer and builds each
// question's file when it is asked for; WriteStatic writes every file.
//
// A question's calls come from the call log, each joined with what the
// run's model cache holds under the call's key (bench.Call.CacheKey,
// llm.CacheReader, opened read-only): the request's messages and every
// sample's answer, reasoning and finish reason; texts are capped
// (MaxCallText, MaxSampleText) and each distinct paragraph of the
// messages is stored once per question file (Question.Texts). A call no cache answered has
// no prompt to show. SteinerSQL's trace keeps the Steiner tree
// (scaffold) and the size of its schema graph, not the graph's
// similarity edges, so the graph is drawn from the database schema's
// tables and foreign keys.
package viewer
