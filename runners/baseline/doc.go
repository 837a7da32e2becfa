// Package baseline implements the three baseline runners that open every
// paper table (METHODS.md, "Baselines"):
//
//   - direct: zero-shot "schema + question (+ evidence) -> SQL", one call at
//     temperature 0.
//   - cot: the same prompt asking for step-by-step reasoning before a final
//     ```sql block; one call at temperature 0.
//   - sc: self-consistency: k samples at temperature T in one request
//     (n = k), each executed; the majority execution-result group wins, ties
//     go to the earliest sample, and samples that fail to execute are
//     excluded from the vote. Defaults k = 8, T = 0.8 (our choice, see
//     DefaultSCK and DefaultSCTemperature).
//
// All three use the model role "reason" and expect llm.AnswerSQL answers,
// read with sqltext.Extract from the answer text only; each sample's
// reasoning and finish reason are kept in its trace step (Info "reasoning",
// "finish_reason"). max_tokens (default 8192, sized for reasoning models)
// bounds each completion. A sample cut at max_tokens (finish_reason
// "length") is counted under the trace counter "cut.reason": direct and
// cot take its SQL only when the block was closed before the cut, and in
// sc a cut sample does not vote. An answer without SQL is counted under
// "no_sql" and gives the note "no SQL in response".
package baseline
