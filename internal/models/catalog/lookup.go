package catalog

import (
	"errors"
	"strings"
)

// ErrUnknownModel is returned for ids the catalog does not hold.
var ErrUnknownModel = errors.New("unknown model")

// Get finds a model by catalog id, or by the provider's API name
// ("gpt-4o", or "openai/gpt-4o" when the bare name is ambiguous). The
// returned Model is a copy; changing it does not change the catalog.
func (c *Catalog) Get(id string) (Model, bool) {
	if i, ok := c.byID[id]; ok {
		return c.models[i], true
	}
	if i, ok := c.byAPI[strings.ToLower(id)]; ok {
		return c.models[i], true
	}
	return c.getDiscovered(id)
}

// All returns every model, enabled or not, in catalog order, then the
// discovered ones.
func (c *Catalog) All() []Model {
	out := make([]Model, len(c.models))
	copy(out, c.models)
	return append(out, c.allDiscovered()...)
}

// Default returns the default model of kind k, if any enabled one is marked.
func (c *Catalog) Default(k Kind) (Model, bool) {
	for _, m := range c.models {
		if m.Kind == k && m.Default && m.Enabled {
			return m, true
		}
	}
	return Model{}, false
}
