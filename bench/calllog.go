package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// callLog records every request of one item. With a store, a call that
// sends a request to a server is written to the store's call log
// (CallStarted) and committed before the request leaves (the model
// cache's llm.WithBeforeSend hook), and completed when it returns
// (CallFinished), so that the log counts every call a server saw even
// when the item is never committed (a kill, a cancellation, a retried
// attempt). A call that cannot be logged is not sent. A call that sends
// nothing (a cache hit, a model in the process) is written once, complete,
// when it returns (CallDone). The writes join the open batch: a kill may
// leave the calls of its last BatchWait marked sent although they were
// answered.
type callLog struct {
	llm.Client
	store               *runstore.Store
	trialID, questionID string
	secrets             []string

	mu  sync.Mutex
	log []runstore.Call
	// env is the first environment failure (a full disk, a read-only
	// filesystem, an I/O error) or lost batch (ErrBatchLost) of a call:
	// of the client (its cache's write) or of the call log's own writes.
	// runItem stops the run with it whatever the runner made of the
	// call's error.
	env error
}

// noteEnv records err when it is an environment failure or a lost batch
// of the store's writes (ErrBatchLost), and returns it.
func (l *callLog) noteEnv(err error) error {
	if err != nil && (isEnvironment(err) || errors.Is(err, runstore.ErrBatchLost)) {
		l.mu.Lock()
		if l.env == nil {
			l.env = err
		}
		l.mu.Unlock()
	}
	return err
}

// environment returns the first environment failure of the item's calls.
func (l *callLog) environment() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.env
}

func (l *callLog) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // never sent: not a call
	}
	c := runstore.Call{Role: req.Role, N: req.Samples()}
	var (
		id       int64
		started  bool  // the call's row is written, marked sent
		startErr error // the row could not be written: nothing was sent
	)
	if l.store != nil {
		// A request the model cache cannot answer goes to a server only
		// once its call row is on disk (Store.CallStarted).
		ctx = llm.WithBeforeSend(ctx, func() error {
			if !started {
				var err error
				if id, err = l.store.CallStarted(l.trialID, l.questionID, c); err != nil {
					startErr = l.noteEnv(fmt.Errorf("call log: %w", err))
					return startErr
				}
				started = true
			}
			if err := l.store.Flush(); err != nil {
				return fmt.Errorf("call log: %w", err)
			}
			return nil
		})
	}
	resp, err := l.Client.Complete(ctx, req)
	if startErr != nil {
		return nil, startErr
	}
	if err != nil {
		l.noteEnv(err)
		c.Error = redact(err.Error(), l.secrets)
	} else {
		c.Cached = resp.Cached
		c.PromptTokens = resp.Usage.PromptTokens
		c.CompletionTokens = resp.Usage.CompletionTokens
		c.LatencyMS = float64(resp.Latency.Microseconds()) / 1000
		c.CacheKey = resp.CacheKey
	}
	if l.store != nil {
		var ferr error
		if started {
			ferr = l.store.CallFinished(id, c)
		} else {
			ferr = l.store.CallDone(l.trialID, l.questionID, c)
		}
		if ferr != nil {
			return nil, l.noteEnv(fmt.Errorf("call log: %w", ferr))
		}
		c.MarkLogged()
	}
	l.mu.Lock()
	l.log = append(l.log, c)
	l.mu.Unlock()
	return resp, err
}

// Embed forwards to the underlying client when it computes embeddings.
func (l *callLog) Embed(ctx context.Context, role string, texts []string) ([][]float32, llm.Usage, error) {
	e, ok := l.Client.(llm.Embedder)
	if !ok {
		return nil, llm.Usage{}, fmt.Errorf("the model bound to role %q does not compute embeddings", role)
	}
	return e.Embed(ctx, role, texts)
}

func (l *callLog) calls() []runstore.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]runstore.Call(nil), l.log...)
}
