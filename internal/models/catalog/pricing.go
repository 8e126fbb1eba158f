package catalog

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoPrice means the catalog has no price for what was asked; callers
// must refuse to run an unpriced call rather than give it away.
var ErrNoPrice = errors.New("model has no price in the catalog")

func (p Pricing) validate() error {
	check := func(name string, v *float64) error {
		if v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
			return fmt.Errorf("pricing.%s must be a non-negative number", name)
		}
		return nil
	}
	for _, f := range []struct {
		n string
		v *float64
	}{{"input", p.Input}, {"output", p.Output}, {"cached_input", p.CachedInput},
		{"cache_write_5m", p.CacheWrite5m}, {"cache_write_1h", p.CacheWrite1h}} {
		if err := check(f.n, f.v); err != nil {
			return err
		}
	}
	if lc := p.LongContext; lc != nil {
		if lc.Threshold <= 0 {
			return errors.New("pricing.long_context.threshold must be positive")
		}
		for _, v := range []*float64{lc.Input, lc.Output, lc.CachedInput} {
			if err := check("long_context", v); err != nil {
				return err
			}
		}
	}
	if b := p.Batch; b != nil {
		if err := check("batch.input", b.Input); err != nil {
			return err
		}
		if err := check("batch.output", b.Output); err != nil {
			return err
		}
	}
	for _, r := range p.Modalities {
		if err := check("modalities.input", r.Input); err != nil {
			return err
		}
		if err := check("modalities.output", r.Output); err != nil {
			return err
		}
	}
	return nil
}

// Priced reports whether every call to the model can be priced.
func (m *Model) Priced() bool {
	switch m.Kind {
	case KindChat:
		return m.Pricing.Input != nil && m.Pricing.Output != nil
	case KindEmbedding:
		return m.Pricing.Input != nil
	default:
		return m.Media != nil && m.Media.CreditsPerUnit != nil && *m.Media.CreditsPerUnit >= 0
	}
}

// TokenUsage is what a call consumed, as the pricing function sees it.
// Input counts every prompt token; CachedInput and CacheWrite are the parts
// of Input read from and written to the provider's prompt cache.
type TokenUsage struct {
	Input       int
	Output      int
	CachedInput int
	CacheWrite  int
	// CacheWrite1h selects the one-hour cache-write rate (Anthropic).
	CacheWrite1h bool
	// Batch prices the call at batch rates where the model has them.
	Batch bool
}

// Cost is the price of one call. Credits is what gets debited: Exact
// rounded UP to a whole credit (one millionth of a dollar), so that no call
// is ever free by rounding and the overcharge is below $0.000001 a call.
type Cost struct {
	Credits int64   `json:"credits"`
	Exact   float64 `json:"exact_credits"`
}

// CreditsFromExact applies the rounding rule to an exact credit amount.
// The small epsilon keeps float noise (3.0000000000004) from adding a credit.
func CreditsFromExact(exact float64) int64 {
	if exact <= 0 {
		return 0
	}
	return int64(math.Ceil(exact - 1e-9))
}

func rate(v *float64, fallback float64) float64 {
	if v != nil {
		return *v
	}
	return fallback
}

// Cost prices token usage on the model.
//
// Rules, in order: a request whose input exceeds the long-context threshold
// is charged wholly at long-context rates; a batch call uses batch input
// and output rates; cached input tokens use the cache-hit rate (else the
// input rate); cache writes use the 5-minute or 1-hour write rate (else the
// input rate); remaining input tokens use the input rate; output tokens the
// output rate. Rates are credits per 1,000 tokens.
func (m *Model) Cost(u TokenUsage) (Cost, error) {
	if !m.Priced() || (m.Kind != KindChat && m.Kind != KindEmbedding) {
		return Cost{}, fmt.Errorf("%s: %w", m.ID, ErrNoPrice)
	}
	if u.Input < 0 || u.Output < 0 || u.CachedInput < 0 || u.CacheWrite < 0 {
		return Cost{}, errors.New("token counts must not be negative")
	}
	p := m.Pricing
	in := *p.Input
	out := rate(p.Output, 0)
	cached := rate(p.CachedInput, in)
	if lc := p.LongContext; lc != nil && u.Input > lc.Threshold {
		in = rate(lc.Input, in)
		out = rate(lc.Output, out)
		cached = rate(lc.CachedInput, cached)
	}
	if b := p.Batch; u.Batch && b != nil {
		in = rate(b.Input, in)
		out = rate(b.Output, out)
	}
	write := rate(p.CacheWrite5m, in)
	if u.CacheWrite1h {
		write = rate(p.CacheWrite1h, write)
	}
	cachedTok := min(u.CachedInput, u.Input)
	writeTok := min(u.CacheWrite, u.Input-cachedTok)
	plain := u.Input - cachedTok - writeTok
	exact := (float64(plain)*in + float64(cachedTok)*cached + float64(writeTok)*write +
		float64(u.Output)*out) / 1000
	return Cost{Credits: CreditsFromExact(exact), Exact: exact}, nil
}

// UnitCost prices units of a media generator (images, seconds, characters
// or tokens, per Media.Unit).
func (m *Model) UnitCost(units float64) (Cost, error) {
	if m.Media == nil || m.Media.CreditsPerUnit == nil {
		return Cost{}, fmt.Errorf("%s: %w", m.ID, ErrNoPrice)
	}
	if units < 0 || math.IsNaN(units) || math.IsInf(units, 0) {
		return Cost{}, errors.New("units must be a non-negative number")
	}
	exact := units * *m.Media.CreditsPerUnit
	return Cost{Credits: CreditsFromExact(exact), Exact: exact}, nil
}

// Price looks the model up and prices token usage on it.
func (c *Catalog) Price(modelID string, u TokenUsage) (Cost, error) {
	m, ok := c.Get(modelID)
	if !ok {
		return Cost{}, fmt.Errorf("%w: %s", ErrUnknownModel, modelID)
	}
	return m.Cost(u)
}

// CreditsToUSD converts credits to dollars (for labels and reports only;
// money is always kept in credits).
func CreditsToUSD(credits float64) float64 { return credits / CreditsPerUSD }
