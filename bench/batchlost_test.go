package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/runners/llm"
	"github.com/t2sbench/t2sbench/runstore"
)

// TestRunStopsOnLostBatch loses a batch of the store's writes in a run:
// the model call that learns it (as the flush before a request is sent
// does) fails, and the run stops with ErrBatchLost instead of counting
// the call as a failed model call, retrying and ending without an error.
func TestRunStopsOnLostBatch(t *testing.T) {
	t.Parallel()
	p := mustPlan(t, directFakeSpec)
	dir := t.TempDir()
	st, err := runstore.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	env, _ := testEnv(10, 1, func(c llm.Client) llm.Client {
		return &lossClient{Client: c, st: st, mark: "question number 5?"}
	})
	_, err = Run(context.Background(), p, st, env, Options{RetryWait: time.Millisecond})
	if !errors.Is(err, runstore.ErrBatchLost) {
		t.Errorf("run: %v; want ErrBatchLost", err)
	}
	t.Logf("run stopped: %v", err)
}

// lossClient makes the store lose its open batch at the request naming
// mark, as a commit by the writer's timer, whose error no caller sees,
// does; the request's flush before it is sent then returns what the
// store says.
type lossClient struct {
	llm.Client
	st   *runstore.Store
	mark string
	once sync.Once
}

func (c *lossClient) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	var err error
	if strings.Contains(req.Messages[len(req.Messages)-1].Content, c.mark) {
		c.once.Do(func() {
			hook := func() error { return errors.New("cache commit failed") }
			c.st.BeforeCommit(hook)
			c.st.Flush() // the timer's commit
			c.st.BeforeCommit(nil)
			err = c.st.Flush()
		})
	}
	if err != nil {
		return nil, fmt.Errorf("call log: %w", err)
	}
	return c.Client.Complete(ctx, req)
}
