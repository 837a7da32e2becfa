// Package viewer turns run directories into a browsable HTML viewer: an
// overview of the trials (EX with its Wilson interval, failures, model
// calls, tokens, cost, the stored configuration), a filterable table of the
// questions, the questions two trials disagree on (McNemar's discordant
// pairs), each question's gold and per-trial SQL, verdict, result preview
// and trace (MCTS trees of Alpha-SQL and IESR, IESR's discriminator and
// score parts, SteinerSQL's schema graph and Steiner tree, ReAct turns) and
// its model calls.
//
// The page is HTML, CSS and vanilla JavaScript embedded in the binary;
// every value of the data is inserted as text (textContent,
// createTextNode), never as markup, so a model answer holding <script>
// shows as text. The data reaches it in one of two forms, one per way of
// opening the viewer:
//
//   - Viewer.Handler (t2sbench view) serves it as JSON (data/index.json,
//     data/q/N.json; Content-Type application/json, X-Content-Type-Options
//     nosniff, no CORS header, Cross-Origin-Resource-Policy same-origin),
//     which the page fetches. JSON is not a script: a page of another
//     origin can neither include it with <script src> (nosniff; it would
//     run nothing) nor read it with fetch (no CORS). The server also
//     refuses data to requests a browser marks as another origin's
//     (Sec-Fetch-Site), answers only requests whose Host is the address
//     they arrived on (DNS rebinding, where an attacker's name resolves
//     to 127.0.0.1, gets 421), and sends a Content-Security-Policy
//     (ContentSecurityPolicy) that allows scripts, styles and connections
//     to the viewer itself only and no inline script or style attribute.
//     A data script (data/*.js) is never served: a script that hands the
//     data to a global function runs on any page that includes it.
//   - WriteStatic (view --static, report) writes the same data as small
//     scripts that call a registration function (data/index.js,
//     data/q/N.js), and marks its index.html (data-static) so that the page
//     loads them. A page opened from file:// cannot fetch local files, but
//     it can load local scripts; and no web page can load a file:// URL,
//     so those scripts are exposed to no other origin. A static copy put
//     on a web server publishes its data to anyone, by design. The page
//     carries the policy in a <meta> too, which holds for file:// pages.
//     Embedding the data in the page instead (a non-executable
//     <script type="application/json">) would make one file of every
//     question, too large to open for a search method's run.
//
// Every text of the store the viewer shows is capped at MaxText bytes
// with a "truncated, N bytes" marker naming the export command that
// prints the item whole (ExportCommand): SQL, notes, errors, candidates,
// trace steps and data, call errors. A SQL text over the cap is not
// executed for its preview; a preview's column names keep 300 bytes.
// Building a question file thus costs what its capped texts weigh, beside
// reading each item once.
//
// Traces are read one item at a time (runstore.ItemReader): the index reads
// verdicts and the call log's totals only, one trial at a time
// (runstore.RunData.EachVerdict), keeping one outcome code and status per
// question and trial, and a question's file reads that question's items.
// Viewer.Handler serves the viewer and builds each question's file when
// it is asked for; WriteStatic writes every file, taking the call log a
// batch of questions at a time, so that memory does not grow with the
// run's items beyond the index and one batch.
//
// A question's calls come from the call log, each joined with what the
// run's model cache holds under the call's key (runstore.Call.CacheKey,
// llm.CacheReader, opened read-only): the request's messages and every
// sample's answer, reasoning and finish reason; texts are capped
// (MaxCallText, MaxSampleText) and each distinct paragraph of the
// messages is stored once per question file (Question.Texts). A call no cache answered has
// no prompt to show. SteinerSQL's trace keeps the Steiner tree
// (scaffold) and the size of its schema graph, not the graph's
// similarity edges, so the graph is drawn from the database schema's
// tables and foreign keys.
package viewer
