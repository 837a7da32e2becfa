package llm

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestHealthOf: which attempt errors count against an endpoint's health,
// which mean it is not there, and which are worth another attempt.
func TestHealthOf(t *testing.T) {
	o := &OpenAI{cfg: OpenAIConfig{BaseURL: "http://a/v1", Model: "m"}, redact: func(s string) string { return s }}
	netErr := func(err error) error {
		return o.classify(err, &probe{}, false)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	tests := []struct {
		name                       string
		err                        error
		health, refused, retryable bool
	}{
		{"refused", netErr(refused), true, true, true},
		{"reset", netErr(reset), true, false, true},
		{"server closed idle connection", netErr(errors.New("http: server closed idle connection")), true, false, true},
		{"timeout", fmt.Errorf("x: %w after 2m", ErrTimeout), true, false, true},
		{"500", &StatusError{StatusCode: 500}, true, false, true},
		{"503 after retries", fmt.Errorf("%w (gave up after 3 attempts)", &StatusError{StatusCode: 503}), true, false, true},
		{"408", &StatusError{StatusCode: 408}, true, false, true},
		{"429", &StatusError{StatusCode: 429}, false, false, true},
		{"400", &StatusError{StatusCode: 400}, false, false, false},
		{"401", &StatusError{StatusCode: 401}, false, false, false},
		{"403", &StatusError{StatusCode: 403}, false, false, false},
		{"404", &StatusError{StatusCode: 404}, false, false, false},
		{"malformed", fmt.Errorf("x: %w: bad json", ErrMalformed), false, false, false},
		{"other", errors.New("something else"), false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, r, re := healthOf(tc.err)
			if h != tc.health || r != tc.refused || re != tc.retryable {
				t.Errorf("healthOf(%v) = health %v, refused %v, retryable %v; want %v, %v, %v", tc.err, h, r, re, tc.health, tc.refused, tc.retryable)
			}
		})
	}
}
