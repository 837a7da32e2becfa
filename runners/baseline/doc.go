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
// All three use the model role "reason" and expect llm.AnswerSQL answers.
package baseline
