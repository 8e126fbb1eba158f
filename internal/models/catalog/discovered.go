package catalog

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// discovered holds models found at run time on a local server (Ollama's
// installed models), per catalog provider. They are looked up after the
// built-in and file models, so a discovered name never shadows one.
type discovered struct {
	mu         sync.RWMutex
	byProvider map[string][]Model
	byID       map[string]Model
}

// SetDiscovered replaces the discovered models of provider with ms. Each
// must be a complete, priced model whose provider is provider and whose id
// the catalog does not already hold; SetDiscovered refuses the whole set
// otherwise. An empty ms forgets the provider's models.
func (c *Catalog) SetDiscovered(provider string, ms []Model) error {
	byID := map[string]Model{}
	for _, m := range ms {
		if m.Provider != provider {
			return fmt.Errorf("discovered model %s: provider %q is not %q", m.ID, m.Provider, provider)
		}
		if _, ok := c.byID[m.ID]; ok {
			return fmt.Errorf("discovered model %s: the catalog already has this id", m.ID)
		}
		if m.Enabled && m.Pricing.Input == nil {
			return fmt.Errorf("discovered model %s: no input price", m.ID)
		}
		byID[m.ID] = m
	}
	d := &c.dyn
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byProvider == nil {
		d.byProvider, d.byID = map[string][]Model{}, map[string]Model{}
	}
	for _, old := range d.byProvider[provider] {
		delete(d.byID, old.ID)
	}
	sorted := append([]Model(nil), ms...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	if len(sorted) == 0 {
		delete(d.byProvider, provider)
	} else {
		d.byProvider[provider] = sorted
	}
	for id, m := range byID {
		d.byID[id] = m
	}
	return nil
}

// Discovered returns the discovered models of provider, by id.
func (c *Catalog) Discovered(provider string) []Model {
	c.dyn.mu.RLock()
	defer c.dyn.mu.RUnlock()
	return append([]Model(nil), c.dyn.byProvider[provider]...)
}

func (c *Catalog) getDiscovered(id string) (Model, bool) {
	c.dyn.mu.RLock()
	defer c.dyn.mu.RUnlock()
	if m, ok := c.dyn.byID[id]; ok {
		return m, true
	}
	m, ok := c.dyn.byID[strings.ToLower(id)]
	return m, ok
}

func (c *Catalog) allDiscovered() []Model {
	c.dyn.mu.RLock()
	defer c.dyn.mu.RUnlock()
	var out []Model
	for _, ms := range c.dyn.byProvider {
		out = append(out, ms...)
	}
	return out
}

// ProviderDefault is the model Agentry asks when provider (a catalog
// provider: openai, anthropic, …) is the one configured and a prompt step
// names no model: the newest released chat model of that provider that is
// enabled, not deprecated at now, writes text, and supports tool use and
// structured output (so every template's steps can run on it). Ties go to
// the lower price, then the id. False when the provider has none.
func (c *Catalog) ProviderDefault(provider string, now time.Time) (Model, bool) {
	var best *Model
	for i := range c.models {
		m := &c.models[i]
		if m.Provider != provider || m.Kind != KindChat || !m.Enabled || m.IsDeprecated(now) ||
			m.ReleasedAt == nil || m.ReleasedAt.After(now) || !m.Produces(MediaText) ||
			!m.SupportsToolUse || !m.SupportsStructuredOutput {
			continue
		}
		if best == nil || m.ReleasedAt.After(best.ReleasedAt.Time) ||
			m.ReleasedAt.Equal(best.ReleasedAt.Time) && (blendedPrice(m) < blendedPrice(best) ||
				blendedPrice(m) == blendedPrice(best) && m.ID < best.ID) {
			best = m
		}
	}
	if best == nil {
		return Model{}, false
	}
	return *best, true
}
