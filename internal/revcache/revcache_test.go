package revcache

import (
	"fmt"
	"testing"
)

func TestCacheHitsOnlyTheSameRevision(t *testing.T) {
	var c Cache[string]
	if _, ok := c.Get("acct", "agent", "1"); ok {
		t.Fatal("an empty cache hit")
	}
	c.Put("acct", "agent", "1", "loaded at 1")
	if v, ok := c.Get("acct", "agent", "1"); !ok || v != "loaded at 1" {
		t.Fatalf("same revision: %q %v", v, ok)
	}
	if _, ok := c.Get("acct", "agent", "2"); ok {
		t.Fatal("a newer revision hit what was loaded at an older one")
	}
	if _, ok := c.Get("other", "agent", "1"); ok {
		t.Fatal("another account's entry hit")
	}
	c.Put("acct", "agent", "2", "loaded at 2")
	if _, ok := c.Get("acct", "agent", "1"); ok {
		t.Fatal("the replaced revision still hits")
	}
	// No revision: never cached, never hit.
	c.Put("acct", "x", "", "v")
	if _, ok := c.Get("acct", "x", ""); ok {
		t.Fatal("an empty revision hit")
	}
}

func TestCacheIsBounded(t *testing.T) {
	var c Cache[int]
	for i := range maxEntries + 100 {
		c.Put("acct", fmt.Sprint(i), "1", i)
	}
	if n := len(c.m); n > maxEntries {
		t.Fatalf("%d entries, bound %d", n, maxEntries)
	}
	if v, ok := c.Get("acct", fmt.Sprint(maxEntries+99), "1"); !ok || v != maxEntries+99 {
		t.Fatal("the newest entry was dropped")
	}
}
