package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/t2sbench/t2sbench/datasets"
)

// dbCache opens each database once and shares the handle.
type dbCache struct {
	engine datasets.Engine
	mu     sync.Mutex
	dbs    map[string]dbEntry
}

type dbEntry struct {
	db  datasets.Database
	err error
}

func (c *dbCache) open(ctx context.Context, id string) (datasets.Database, error) {
	if c.engine == nil {
		return nil, fmt.Errorf("database %s: no engine: %w", id, datasets.ErrMissingDB)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.dbs[id]; ok {
		return e.db, e.err
	}
	db, err := c.engine.Open(ctx, id)
	if err != nil && !errors.Is(err, datasets.ErrMissingDB) {
		return nil, err // transient: do not cache
	}
	c.dbs[id] = dbEntry{db: db, err: err}
	return db, err
}

func (c *dbCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.dbs {
		if e.db != nil {
			e.db.Close()
		}
	}
	c.dbs = map[string]dbEntry{}
}
