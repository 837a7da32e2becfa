package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Classes of a failed model call (ErrorClass, Error.Class). They are stored
// in run directories (the items' and the call log's error class) and read
// back by reports and the first-errors summary, so they never change.
const (
	ClassCanceled    = "canceled"     // the caller canceled the call
	ClassDeadline    = "deadline"     // the caller's deadline passed
	ClassTimeout     = "timeout"      // an attempt ran past OpenAIConfig.Timeout
	ClassNetwork     = "network"      // the connection broke or the body was cut short
	ClassMalformed   = "malformed"    // the answer was not the expected JSON
	ClassRateLimited = "rate_limited" // HTTP 429
	ClassAuth        = "auth"         // HTTP 401, 403
	ClassBadRequest  = "bad_request"  // HTTP 400, 422
	ClassNotFound    = "not_found"    // HTTP 404
	ClassServerError = "server_error" // HTTP 5xx
	ClassOther       = "other"        // anything else
)

// Sentinels of the non-HTTP failure classes of the OpenAI backend; an
// *Error of class ClassTimeout, ClassNetwork or ClassMalformed wraps the
// matching one, so errors.Is finds it.
var (
	// ErrTimeout: an attempt ran past OpenAIConfig.Timeout.
	ErrTimeout = errors.New("request timed out")
	// ErrNetwork: the connection broke or the body was cut short.
	ErrNetwork = errors.New("network error")
	// ErrMalformed: the server's answer was not the expected JSON.
	ErrMalformed = errors.New("malformed response")
)

// Error is a failed model call as the OpenAI backend and Pool return it,
// after their retries: the failure classified once, where it was caught
// (an HTTP status, a net.Error, a cut body, an attempt's timeout, a JSON
// error), so that callers test fields, never message text.
//
// The backend is the one retry loop of a model call (see OpenAI.Complete):
// an *Error has used the call's retry budget (Attempts requests), and a
// caller that retries it again multiplies that budget.
type Error struct {
	// Class is one of the Class constants.
	Class string
	// StatusCode is the HTTP status of the last attempt (0: none).
	StatusCode int
	// RetryAfter is the server's Retry-After of the last attempt, if it
	// sent one.
	RetryAfter time.Duration
	// Retryable reports whether the last attempt failed in a way worth
	// retrying (timeout, network, 408, 429, 5xx). A retryable *Error
	// returned by a backend has run out of retries.
	Retryable bool
	// Attempts is the number of requests the call sent (1 + retries; a
	// Pool counts every endpoint tried).
	Attempts int
	// Err is the last attempt's error: a *StatusError, or an error
	// wrapping ErrTimeout, ErrNetwork or ErrMalformed, or the cause.
	Err error

	// refused marks a refused connection (a Pool ejects at once).
	refused bool
	// note is appended to Err's message ("gave up after ...").
	note string
}

func (e *Error) Error() string { return e.Err.Error() + e.note }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// health reports whether e is a failure of the endpoint itself (a timeout,
// a broken connection, 408 or 5xx), as opposed to one of the request (4xx,
// malformed JSON) or of the server's policy (429).
func (e *Error) health() bool {
	switch e.Class {
	case ClassTimeout, ClassNetwork, ClassServerError:
		return true
	}
	return e.StatusCode == http.StatusRequestTimeout
}

// StatusError is an HTTP error status from the server.
type StatusError struct {
	StatusCode int
	// Message is the server's error message (never holding the API key).
	Message string
	// Param is the request parameter the error names, when the server
	// names one (OpenAI's error.param).
	Param   string
	BaseURL string
	Model   string
	// RetryAfter is the server's Retry-After, if it sent one.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("llm: openai %s model %s: HTTP %d: %s", e.BaseURL, e.Model, e.StatusCode, msg)
}

// Retryable reports whether the status is worth retrying (408, 429, 5xx).
func (e *StatusError) Retryable() bool { return retryableStatus(e.StatusCode) }

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500
}

// StatusClass is the class of an HTTP error status: ClassRateLimited,
// ClassAuth, ClassBadRequest, ClassNotFound, ClassServerError or
// "http_<code>".
func StatusClass(code int) string {
	switch {
	case code == 429:
		return ClassRateLimited
	case code == 401 || code == 403:
		return ClassAuth
	case code == 400 || code == 422:
		return ClassBadRequest
	case code == 404:
		return ClassNotFound
	case code >= 500:
		return ClassServerError
	}
	return fmt.Sprintf("http_%d", code)
}

// ErrorClass names the class of a model-call error for logs and reports
// (the Class constants, or "http_<code>"), "" for nil. It reads types only
// (errors.As and errors.Is): an *Error's Class, a *StatusError's status,
// the context errors and the sentinels ErrTimeout, ErrNetwork and
// ErrMalformed; any other error is ClassOther.
func ErrorClass(err error) string {
	var e *Error
	var se *StatusError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e) && e.Class != "":
		return e.Class
	case errors.As(err, &se):
		return StatusClass(se.StatusCode)
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ClassDeadline
	case errors.Is(err, ErrTimeout):
		return ClassTimeout
	case errors.Is(err, ErrNetwork):
		return ClassNetwork
	case errors.Is(err, ErrMalformed):
		return ClassMalformed
	}
	return ClassOther
}

// asError returns the *Error that err is or wraps; for a bare *StatusError
// or an error wrapping one of the sentinels (ErrTimeout, ErrNetwork,
// ErrMalformed), an *Error of its class; nil for any other error.
func asError(err error) *Error {
	var e *Error
	var se *StatusError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &se):
		return &Error{Class: StatusClass(se.StatusCode), StatusCode: se.StatusCode, RetryAfter: se.RetryAfter, Retryable: se.Retryable(), Err: err}
	case errors.Is(err, ErrTimeout):
		return &Error{Class: ClassTimeout, Retryable: true, Err: err}
	case errors.Is(err, ErrNetwork):
		return &Error{Class: ClassNetwork, Retryable: true, Err: err}
	case errors.Is(err, ErrMalformed):
		return &Error{Class: ClassMalformed, Err: err}
	}
	return nil
}

// IsCallError reports whether err is a failed model call of this package's
// backends (an *Error, a *StatusError or one of the sentinels): a failure
// the backend has already retried as its configuration allows.
func IsCallError(err error) bool { return asError(err) != nil }
