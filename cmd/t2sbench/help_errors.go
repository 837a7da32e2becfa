package main

import (
	"fmt"
	"io"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// outcomeText says what a run does with an item whose failure has outcome
// o after the client's retries, and the exit status that leads to.
func outcomeText(o llm.Outcome) string {
	switch o {
	case llm.OutcomeTransient:
		return fmt.Sprintf("the item stays pending; the same command run again retries it (exit status %d)", exitIncomplete)
	case llm.OutcomeRefused:
		return fmt.Sprintf("the item fails at once: counted wrong, never retried (exit status %d)", exitIncomplete)
	case llm.OutcomeFatal:
		return fmt.Sprintf("the run stops at once, keeping the items finished (exit status %d)", exitUsage)
	}
	return fmt.Sprintf("the item fails and counts wrong (exit status %d); a runner's own error is first run again (the run's retries), a model call's is not", exitIncomplete)
}

// helpErrors prints the failure classes: the one table of runners/llm
// (llm.Classes) and the runner's own class, each with what causes it,
// whether the client retries it, what the run does and what to do next.
func helpErrors(w io.Writer) {
	fmt.Fprintln(w, `Failure classes: the class of a failed item or model call, as status, the run summary ("failed
items by class", "first error of each class"), the viewer and the call log show it. One table
decides each class, whether the client retries it and what the run does.`)
	entries := llm.Classes()
	entries = append(entries, llm.ClassInfo{Class: runstore.ClassRunner, Cause: "the runner's own error (not a model call's)", Handling: llm.HandlingOf(runstore.ClassRunner)})
	for _, c := range entries {
		fmt.Fprintf(w, "\n%s: %s\n", c.Class, c.Cause)
		retried := "not retried by the client"
		if c.Retried {
			retried = "retried by the client (backoff, honouring Retry-After; at most the model's max_retries times)"
		}
		fmt.Fprintf(w, "  %s\n  then: %s\n", retried, outcomeText(c.Outcome))
		if hint := runstore.ClassHint(c.Class); hint != "" {
			fmt.Fprintf(w, "  next: %s\n", hint)
		}
	}
}
