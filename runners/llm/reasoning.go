package llm

import "github.com/t2sbench/t2sbench/runners/think"

// SplitReasoning separates the reasoning a model wrote inline, in
// <think>...</think> blocks or their <thinking> and <reasoning> variants,
// from its answer. It is think.Split, which documents the shapes handled
// (several blocks, an unclosed block, a closing tag whose opening tag was in
// the prompt); the answer is trimmed, the reasoning is the blocks' contents
// joined by a blank line.
func SplitReasoning(text string) (answer, reasoning string) {
	return think.Split(text)
}
