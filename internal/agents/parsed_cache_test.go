package agents

import (
	"fmt"
	"strings"
	"testing"

	def "github.com/agentry/agentry/internal/agents/definition"
)

func TestParsedCacheServesOnlyTheSameText(t *testing.T) {
	c := newParsedCache()
	d := &def.Definition{}
	c.put("a", []byte(`{"child_steps":[]}`), d)
	if got, ok := c.get("a", []byte(`{"child_steps":[]}`)); !ok || got != d {
		t.Fatal("same text: miss")
	}
	if _, ok := c.get("a", []byte(`{"child_steps": []}`)); ok {
		t.Fatal("edited text served the old parse")
	}
	if _, ok := c.get("b", []byte(`{"child_steps":[]}`)); ok {
		t.Fatal("another agent served this one's parse")
	}
	d2 := &def.Definition{}
	c.put("a", []byte(`{"x":1}`), d2)
	if got, ok := c.get("a", []byte(`{"x":1}`)); !ok || got != d2 || c.bytes != len(`{"x":1}`) {
		t.Fatalf("replaced entry: %v %v bytes=%d", got, ok, c.bytes)
	}
}

func TestParsedCacheIsBounded(t *testing.T) {
	c := newParsedCache()
	for i := range parsedCacheEntries + 50 {
		c.put(fmt.Sprint(i), []byte(fmt.Sprint(i)), &def.Definition{})
	}
	if len(c.entries) > parsedCacheEntries {
		t.Fatalf("%d entries", len(c.entries))
	}
	big := []byte(strings.Repeat("x", parsedCacheMaxText/2))
	for i := range 100 {
		c.put(fmt.Sprint("big", i), big, &def.Definition{})
	}
	if c.bytes > parsedCacheBytes {
		t.Fatalf("%d bytes held", c.bytes)
	}
	c.put("huge", make([]byte, parsedCacheMaxText+1), &def.Definition{})
	if _, ok := c.entries["huge"]; ok {
		t.Fatal("a definition over the size limit was cached")
	}
}
