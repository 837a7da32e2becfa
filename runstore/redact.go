package runstore

import "github.com/t2sbench/t2sbench/runners/llm"

// Redactor returns the display redactor of the run (llm.NewDisplayRedactor):
// it hides the credentials its trials' models and MySQL servers are given
// in this environment (the values of their api_key_env and password_env
// variables, when set and llm.IsSecret) and anything that looks like an
// API key. The store keeps model answers as the server sent them, a key a
// model echoed included; every command that prints, serves or exports
// stored answers or error texts (status and the run summary, export, the
// viewer) passes them through this redactor first.
func (r *RunData) Redactor() *llm.Redactor { return llm.NewDisplayRedactor(r.Secrets()...) }

// Secrets returns the credentials the run's trials' models and MySQL
// servers are given in this environment (see Spec.Secrets); Redactor
// hides them.
func (r *RunData) Secrets() []string {
	var out []string
	for i := range r.Trials {
		out = append(out, r.Trials[i].Secrets()...)
	}
	return out
}
