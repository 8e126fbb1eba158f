package agents

import (
	"bytes"
	"sync"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// parsedCache keeps the parsed workflow of recently run agents, so that a
// run does not parse its agent's definition again on start and again in
// the worker. An entry is used only when the stored text is byte-for-byte
// the text it was parsed from, so an edited definition is never served
// stale, and no invalidation is needed. Parsed definitions are read-only
// once built, so runs share them.
//
// It is bounded both in entries and in the bytes of definition text it
// holds; when full, an arbitrary entry makes room (map order), which is
// enough for a cache whose miss costs one parse.
type parsedCache struct {
	mu      sync.Mutex
	entries map[string]parsedEntry // by agent id
	bytes   int
}

type parsedEntry struct {
	text []byte
	d    *def.Definition
}

const (
	parsedCacheEntries = 1024
	parsedCacheBytes   = 32 << 20
	// parsedCacheMaxText: a definition larger than this is parsed each
	// time rather than crowding out the rest.
	parsedCacheMaxText = 1 << 20
)

func newParsedCache() *parsedCache { return &parsedCache{entries: map[string]parsedEntry{}} }

func (c *parsedCache) get(agentID string, text []byte) (*def.Definition, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[agentID]
	if !ok || !bytes.Equal(e.text, text) {
		return nil, false
	}
	return e.d, true
}

func (c *parsedCache) put(agentID string, text []byte, d *def.Definition) {
	if len(text) > parsedCacheMaxText {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[agentID]; ok {
		c.bytes -= len(old.text)
		delete(c.entries, agentID)
	}
	for id, e := range c.entries {
		if len(c.entries) < parsedCacheEntries && c.bytes+len(text) <= parsedCacheBytes {
			break
		}
		c.bytes -= len(e.text)
		delete(c.entries, id)
	}
	c.entries[agentID] = parsedEntry{text: bytes.Clone(text), d: d}
	c.bytes += len(text)
}
