// Package revcache keeps what an overseer loaded for an agent's runs while
// the agent's oversight revision stays the same (agents.oversight_rev,
// bumped in the transaction of every change to the agent, its criteria or
// the policies over it). A run that reads a newer revision loads afresh
// and replaces the entry, so no change is ever missed, on one server or
// many: the revision comes from the database with the agent row the run
// reads anyway.
package revcache

import "sync"

// maxEntries bounds the cache: beyond it an arbitrary entry is dropped,
// which costs its agent's next run one load.
const maxEntries = 4096

type key struct{ account, agent string }

type entry[T any] struct {
	rev string
	v   T
}

// Cache maps an (account, agent) pair to a value loaded at a revision.
// Values are shared by concurrent runs and must not be changed once put.
type Cache[T any] struct {
	mu sync.Mutex
	m  map[key]entry[T]
}

// Get returns the value loaded for the agent at rev. An empty rev (a run
// that did not read one) never hits.
func (c *Cache[T]) Get(account, agent, rev string) (T, bool) {
	var zero T
	if rev == "" {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key{account, agent}]
	if !ok || e.rev != rev {
		return zero, false
	}
	return e.v, true
}

// Put stores v, loaded for the agent at rev (after the run read rev, so v
// is at least that new).
func (c *Cache[T]) Put(account, agent, rev string, v T) {
	if rev == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[key]entry[T]{}
	}
	k := key{account, agent}
	if _, ok := c.m[k]; !ok && len(c.m) >= maxEntries {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = entry[T]{rev: rev, v: v}
}
