package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Classes of a failed model call (Classify, ErrorClass, Error.Class). They
// are stored in run directories (the items' and the call log's error
// class) and read back by reports and the first-errors summary, so their
// names never change. What each class means for the request and for a run
// is its Handling (HandlingOf, Classes):
//
//	class          cause                                     retried  outcome
//	canceled       the caller canceled the call              no       transient
//	deadline       the caller's deadline passed              no       transient
//	timeout        an attempt ran past OpenAIConfig.Timeout, yes      transient
//	               a connection timed out, HTTP 408
//	network        refused, reset or dropped connection,     yes      transient
//	               a body cut short
//	malformed      an answer that is not the expected JSON,  no       transient
//	               or over a size cap (ErrTooLarge)
//	rate_limited   HTTP 429                                  yes      transient
//	server_error   HTTP 5xx                                  yes      transient
//	auth           HTTP 401, 403                             no       fatal
//	not_found      HTTP 404                                  no       fatal
//	bad_request    HTTP 400, 422; any status whose message   no       refused
//	               refuses the request (a prompt over the
//	               context length, a parameter, response
//	               format or schema the server does not take)
//	http_<code>    any other HTTP 4xx (405, 409, 413, ...)   no       refused
//	other          any other failure of a request            no       unknown
//	               (an error of the client library itself)
//
// A retried class is sent again by the backend (OpenAI.Complete) after a
// capped, jittered backoff or the server's Retry-After, up to
// OpenAIConfig.MaxRetries times; the Outcome constants say what a run does
// with a call that still fails.
const (
	ClassCanceled    = "canceled"     // the caller canceled the call
	ClassDeadline    = "deadline"     // the caller's deadline passed
	ClassTimeout     = "timeout"      // an attempt or a connection timed out; HTTP 408
	ClassNetwork     = "network"      // the connection was refused or broke, or the body was cut short
	ClassMalformed   = "malformed"    // the answer was not the expected JSON, or was over a size cap
	ClassRateLimited = "rate_limited" // HTTP 429
	ClassAuth        = "auth"         // HTTP 401, 403
	ClassBadRequest  = "bad_request"  // HTTP 400, 422, or a message refusing the request
	ClassNotFound    = "not_found"    // HTTP 404
	ClassServerError = "server_error" // HTTP 5xx
	ClassOther       = "other"        // anything else
)

// ClassHTTPPrefix begins the class of an HTTP error status no other class
// names: "http_" and the status code (http_409, http_413).
const ClassHTTPPrefix = "http_"

// Outcome is what a failure class says beyond the request that failed: how
// a run treats a call that still fails after the backend's retries.
type Outcome int

const (
	// OutcomeUnknown: the cause is not known (ClassOther, or a class this
	// package does not define, such as a runner's own error). A run
	// records the item as failed (counted wrong); an error that is not a
	// model call's is first run again.
	OutcomeUnknown Outcome = iota
	// OutcomeTransient: the endpoint, the network or the caller failed,
	// not the request: the same request may succeed later. A run leaves
	// the item pending, and the next run of the same command retries it.
	OutcomeTransient
	// OutcomeRefused: the server refused this request (too long for the
	// model's context, a parameter, response format or schema it does not
	// accept): no retry can fix it, but another request may succeed. A
	// run records the item as failed (counted wrong, never retried); a
	// search method prunes the branch whose request was refused.
	OutcomeRefused
	// OutcomeFatal: every request to the endpoint would fail the same way
	// (an API key it refuses, a model name or URL it does not serve): a
	// run stops at the first, with a message naming the model and the
	// endpoint, and exits with status 2.
	OutcomeFatal
)

// String returns the outcome's name: "unknown", "transient", "refused" or
// "fatal".
func (o Outcome) String() string {
	switch o {
	case OutcomeTransient:
		return "transient"
	case OutcomeRefused:
		return "refused"
	case OutcomeFatal:
		return "fatal"
	}
	return "unknown"
}

// Handling is how a failure class is treated.
type Handling struct {
	// Retried reports whether the backend sends a request that failed
	// with the class again (see the Class constants).
	Retried bool
	// Outcome is what the failure says beyond the request.
	Outcome Outcome
}

// ClassInfo documents one failure class: its name (Class, or
// ClassHTTPPrefix+"<code>"), what causes it and how it is handled.
type ClassInfo struct {
	Class string
	Cause string
	Handling
}

// classes is the one table of the failure classes and their handling, in
// the order of the Class constants' documentation.
var classes = []ClassInfo{
	{ClassCanceled, "the caller canceled the call (an interrupt)", Handling{false, OutcomeTransient}},
	{ClassDeadline, "the caller's deadline passed", Handling{false, OutcomeTransient}},
	{ClassTimeout, "an attempt ran past the model's timeout, a connection timed out, or HTTP 408", Handling{true, OutcomeTransient}},
	{ClassNetwork, "the connection was refused, reset or dropped, or the answer was cut short", Handling{true, OutcomeTransient}},
	{ClassMalformed, "the answer was not the expected JSON, or was over a size cap (max_response_bytes after decompression, max_choice_bytes of one choice's text, or more choices than requested plus 8)", Handling{false, OutcomeTransient}},
	{ClassRateLimited, "HTTP 429 (the server's rate limit)", Handling{true, OutcomeTransient}},
	{ClassServerError, "HTTP 5xx (the server failed)", Handling{true, OutcomeTransient}},
	{ClassAuth, "HTTP 401, 403 (the API key)", Handling{false, OutcomeFatal}},
	{ClassNotFound, "HTTP 404 (the model name or URL)", Handling{false, OutcomeFatal}},
	{ClassBadRequest, "HTTP 400, 422, or any status whose message refuses the request (a prompt over the context length, a parameter, response format or schema the server does not take)", Handling{false, OutcomeRefused}},
	{ClassHTTPPrefix + "<code>", "any other HTTP 4xx (405, 409, 413, ...)", Handling{false, OutcomeRefused}},
	{ClassOther, "any other failure of a model request (an error of the client library itself)", Handling{false, OutcomeUnknown}},
}

// Classes returns the documentation of every failure class, in a fixed
// order; the http_<code> entry stands for every class ClassHTTPPrefix
// begins.
func Classes() []ClassInfo { return slices.Clone(classes) }

// HandlingOf returns the handling of class: that of the Class constants,
// that of a refused request for http_<code> with a 4xx code, and
// OutcomeUnknown, not retried, for any other class (ClassOther, a
// runner's own class).
func HandlingOf(class string) Handling {
	for _, c := range classes {
		if c.Class == class {
			return c.Handling
		}
	}
	if code, ok := strings.CutPrefix(class, ClassHTTPPrefix); ok {
		if n, err := strconv.Atoi(code); err == nil && n >= 400 && n < 500 {
			return Handling{Outcome: OutcomeRefused}
		}
	}
	return Handling{Outcome: OutcomeUnknown}
}

// Classify is the one mapping from a failed model request to its class.
// status is the HTTP status of the answer (0 when none came); message is
// the server's error message (as the backend reads it from OpenAI's,
// vLLM's, SGLang's, Ollama's, llama.cpp server's and FastAPI's error
// bodies); err is the transport or decoding error when no error status
// came.
//
// An error status decides by its code: 401 and 403 are ClassAuth, 404
// ClassNotFound, 408 ClassTimeout, 429 ClassRateLimited. Any other status
// whose message refuses the request (refusal) is ClassBadRequest,
// whatever the code: llama.cpp server and Ollama answer an unsupported
// response_format or schema with 500, and no retry fixes a prompt over the
// context length. Then 400 and 422 are ClassBadRequest, 5xx
// ClassServerError, any other code http_<code>.
//
// Without an error status, err decides by type (errors.Is, errors.As),
// not by its text (net/http's unexported error for a kept-alive connection
// the server closed aside): the context's errors, the sentinels
// ErrTimeout, ErrNetwork and ErrMalformed, a net.Error that timed out
// (ClassTimeout), a broken, refused or reset connection or a cut stream
// (ClassNetwork), a JSON syntax or type error of the answer
// (ClassMalformed); anything else is ClassOther.
func Classify(status int, message string, err error) string {
	if status >= 400 {
		switch {
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			return ClassAuth
		case status == http.StatusNotFound:
			return ClassNotFound
		case status == http.StatusRequestTimeout:
			return ClassTimeout
		case status == http.StatusTooManyRequests:
			return ClassRateLimited
		case refusal(message):
			return ClassBadRequest
		case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
			return ClassBadRequest
		case status >= 500:
			return ClassServerError
		}
		return ClassHTTPPrefix + strconv.Itoa(status)
	}
	if c := transportClass(err); c != ClassOther {
		return c
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return ClassMalformed
	}
	return ClassOther
}

// transportClass is Classify's class of an error without an HTTP status,
// JSON errors aside: ErrorClass applies it to any error, where a JSON
// error may be a runner's own and not the server's answer.
func transportClass(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return ClassOther
	case errors.Is(err, ErrTimeout):
		return ClassTimeout
	case errors.Is(err, ErrNetwork):
		return ClassNetwork
	case errors.Is(err, ErrMalformed):
		return ClassMalformed
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ClassDeadline
	case errors.As(err, &ne) && ne.Timeout():
		return ClassTimeout
	case isNetworkError(err):
		return ClassNetwork
	}
	return ClassOther
}

// isNetworkError reports a refused, broken or reset connection (a
// connection errno, a *net.OpError) and a cut stream. Other net.Errors
// (a URL error wrapping a TLS certificate error, an unsupported scheme)
// are no network failure: a retry does not fix them.
func isNetworkError(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	// net/http's unexported errServerClosedIdle: the server closed a
	// kept-alive connection as the request went out on it (a server
	// restarting); the transport retries it only for idempotent requests.
	return strings.Contains(err.Error(), "http: server closed idle connection")
}

// refusal reports whether a server's error message refuses the request
// itself: a prompt over the model's context length, or a parameter,
// response format or schema the server does not accept (rejectionIn). The
// context-length patterns are the messages real servers send:
//
//	OpenAI, vLLM: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens ..."
//	vLLM: "The decoder prompt (length 9000) is longer than the maximum model length of 8192."
//	SGLang: "The input (9000 tokens) is longer than the model's context length (8192 tokens)."
//	llama.cpp server: "the request exceeds the available context size, try increasing it"
//	Ollama: "the input length exceeds the context length"
func refusal(message string) bool {
	msg := strings.ToLower(message)
	return rejectionIn(msg, "") != rejectNothing ||
		containsAny(msg, "context length", "context_length_exceeded", "maximum model length", "context size", "context window")
}

// Sentinels of the non-HTTP failure classes of the OpenAI backend; an
// *Error of class ClassTimeout, ClassNetwork or ClassMalformed wraps the
// matching one, so errors.Is finds it.
var (
	// ErrTimeout: an attempt ran past OpenAIConfig.Timeout.
	ErrTimeout = errors.New("request timed out")
	// ErrNetwork: the connection was refused or broke, or the body was
	// cut short.
	ErrNetwork = errors.New("network error")
	// ErrMalformed: the server's answer was not the expected JSON.
	ErrMalformed = errors.New("malformed response")
)

// sentinels maps each non-HTTP failure class of the OpenAI backend to the
// sentinel its *Error wraps.
var sentinels = map[string]error{ClassTimeout: ErrTimeout, ClassNetwork: ErrNetwork, ClassMalformed: ErrMalformed}

// Error is a failed model call as the OpenAI backend and Pool return it,
// after their retries: the failure classified once, where it was caught
// (an HTTP status, a net.Error, a cut body, an attempt's timeout, a JSON
// error), so that callers test fields, never message text.
//
// The backend is the one retry loop of a model call (see OpenAI.Complete):
// an *Error has used the call's retry budget (Attempts requests), and a
// caller that retries it again multiplies that budget.
type Error struct {
	// Class is the failure's class (Classify): a Class constant or
	// http_<code>.
	Class string
	// StatusCode is the HTTP status of the last attempt (0: none).
	StatusCode int
	// RetryAfter is the server's Retry-After of the last attempt, if it
	// sent one.
	RetryAfter time.Duration
	// Retryable reports whether the last attempt failed in a way the
	// backend retries (HandlingOf(Class).Retried). A retryable *Error
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
// 408 included, a broken connection or 5xx), as opposed to one of the
// request (a refused request, malformed JSON) or of the server's policy
// (429).
func (e *Error) health() bool {
	switch e.Class {
	case ClassTimeout, ClassNetwork, ClassServerError:
		return true
	}
	return false
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

// Class returns the class of the status and its message (Classify).
func (e *StatusError) Class() string { return Classify(e.StatusCode, e.Message, nil) }

// Retryable reports whether the backend retries the status (408, 429 and
// 5xx, unless the message refuses the request: see Classify).
func (e *StatusError) Retryable() bool { return HandlingOf(e.Class()).Retried }

// ErrorClass names the class of any error for logs, reports and a run's
// decisions (a Class constant, or http_<code>), "" for nil. It reads types
// only (errors.As and errors.Is), never message text: an *Error's Class; a
// *StatusError's status and message, or the status of any other error
// with a StatusCode() int method (another client's HTTP error) and its
// text, both classed by Classify; else the class Classify gives an error
// without a status (the context's errors, the sentinels, net.Error,
// connection errnos, a cut stream), except that a JSON error is left to
// the caller (ClassOther): outside the backend it need not be a server's
// answer.
func ErrorClass(err error) string {
	var e *Error
	var se *StatusError
	var sc interface{ StatusCode() int }
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e) && e.Class != "":
		return e.Class
	case errors.As(err, &se):
		return se.Class()
	case errors.As(err, &sc) && sc.StatusCode() >= 400:
		return Classify(sc.StatusCode(), err.Error(), nil)
	}
	return transportClass(err)
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
		c := se.Class()
		return &Error{Class: c, StatusCode: se.StatusCode, RetryAfter: se.RetryAfter, Retryable: HandlingOf(c).Retried, Err: err}
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrNetwork), errors.Is(err, ErrMalformed):
		c := transportClass(err)
		return &Error{Class: c, Retryable: HandlingOf(c).Retried, Err: err}
	}
	return nil
}

// IsCallError reports whether err is a failed model call of this package's
// backends (an *Error, a *StatusError or one of the sentinels): a failure
// the backend has already retried as its configuration allows.
func IsCallError(err error) bool { return asError(err) != nil }
