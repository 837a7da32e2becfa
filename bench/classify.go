package bench

import (
	"database/sql/driver"
	"errors"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// dbOpenError is a failure to open an example's database other than a
// missing one: an infrastructure error.
type dbOpenError struct{ err error }

func (e *dbOpenError) Error() string { return "open database: " + e.err.Error() }
func (e *dbOpenError) Unwrap() error { return e.err }

// Failure is what a runner error means for its item: the outcome of its
// class (llm.HandlingOf(Classify(err)).Outcome).
type Failure int

const (
	// FailureInfra: an infrastructure failure, class of outcome
	// llm.OutcomeTransient (network, timeout with HTTP 408, rate_limited,
	// server_error after the client's retries, malformed, canceled,
	// deadline), or a database that does not open. The item is left
	// pending (StatusError) for resume; an item whose failure is not a
	// model call's (which the backend retried) is retried first.
	FailureInfra Failure = iota
	// FailurePermanent: the server refused the request, class of outcome
	// llm.OutcomeRefused (bad_request: HTTP 400 or 422, or any status
	// whose message refuses the request, such as a prompt over the context
	// length or a rejected schema; http_<code>: any other 4xx). The item
	// is recorded as failed at once and counts as wrong.
	FailurePermanent
	// FailureFatal: the endpoint rejects the credentials or does not know
	// the model, class of outcome llm.OutcomeFatal (auth: HTTP 401, 403;
	// not_found: HTTP 404): every item would fail the same way, so the
	// run stops and the item stays pending.
	FailureFatal
	// FailureUnknown: any other error of the runner (its own error, a
	// simulator error; class "runner"). The item is retried like an
	// infrastructure error (unless the error is a model call's), then
	// recorded as failed: it counts as wrong.
	FailureUnknown
)

// FailureOf is what a runner error means for its item: the llm.Outcome of
// its class (Classify), read from types only; a database that does not
// open (other than a missing one) is infrastructure whatever its class.
func FailureOf(err error) Failure {
	var dbe *dbOpenError
	if errors.As(err, &dbe) {
		return FailureInfra
	}
	switch llm.HandlingOf(Classify(err)).Outcome {
	case llm.OutcomeTransient:
		return FailureInfra
	case llm.OutcomeRefused:
		return FailurePermanent
	case llm.OutcomeFatal:
		return FailureFatal
	}
	return FailureUnknown
}

// Classify names the class of a runner error, by its type only (errors.As
// and errors.Is), never by its message: the class llm.ErrorClass gives it
// (an HTTP status by llm.Classify, whoever's client returned it; a
// timeout, a broken or refused connection, a cut stream, the context's
// errors; llm.ClassOther for a model call's failure of no other class),
// "network" for a bad database connection (driver.ErrBadConn), else
// runstore.ClassRunner.
func Classify(err error) string {
	c := llm.ErrorClass(err)
	switch {
	case c != llm.ClassOther && c != "":
		return c
	case llm.IsCallError(err):
		return llm.ClassOther
	case errors.Is(err, driver.ErrBadConn):
		return llm.ClassNetwork
	}
	return runstore.ClassRunner
}
