package bench

import "github.com/t2sbench/t2sbench/runners/llm"

// redact replaces in s (an error text, a log line, stored request
// metadata) each of secrets that could be a secret (llm.IsSecret: at
// least llm.MinSecretLen characters, not a placeholder such as EMPTY). It
// is never applied to a model's answer, which is scored and stored as the
// server sent it; commands hide a secret echoed in an answer when they
// display or export it (RunData.Redactor).
func redact(s string, secrets []string) string {
	return llm.NewRedactor(secrets...).Redact(s)
}
