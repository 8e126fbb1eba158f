package catalog

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Requirements restrict recommendations (the require_* and min_* query
// parameters of GET /models/{id}/recommendations). Zero values do not
// restrict.
type Requirements struct {
	ToolUse          bool
	StructuredOutput bool
	Thinking         bool
	MinContextTokens int
	MinOutputTokens  int
}

// Satisfied reports whether m meets r.
func (r Requirements) Satisfied(m *Model) bool {
	return (!r.ToolUse || m.SupportsToolUse) &&
		(!r.StructuredOutput || m.SupportsStructuredOutput) &&
		(!r.Thinking || m.SupportsThinking) &&
		m.MaxContextTokens >= r.MinContextTokens &&
		m.MaxOutputTokens >= r.MinOutputTokens
}

// Recommendation types.
const (
	RecSuccessor    = "successor"
	RecUpgrade      = "upgrade"
	RecSameProvider = "same_provider"
	RecAlternative  = "alternative"
)

// Recommendation is one suggested replacement.
type Recommendation struct {
	Model  Model  `json:"model"`
	Type   string `json:"recommendation_type"`
	Reason string `json:"reason"`
}

// Recommendations answers GET /models/{id}/recommendations.
type Recommendations struct {
	Current      Model            `json:"current"`
	Successor    *Recommendation  `json:"successor"`
	Upgrades     []Recommendation `json:"upgrades"`
	SameProvider []Recommendation `json:"same_provider"`
	Alternatives []Recommendation `json:"alternatives"`
}

// MaxRecommendations bounds the same_provider and alternatives lists.
const MaxRecommendations = 5

// Recommend suggests replacements for model id at now:
//
//   - successor: the designated successor, following the chain past
//     models that are disabled or already sunset, if it meets req;
//   - upgrades: same provider and family, a later generation (or the same
//     generation released later), not deprecated, newest first;
//   - same_provider: other families of the provider, not deprecated,
//     closest in price first;
//   - alternatives: other providers' models, not deprecated, closest in
//     price first.
//
// Every list holds only enabled models of the same kind that meet req and
// are not already listed. The built-in offline model is only recommended
// for itself, because it is a stand-in, not a replacement.
func (c *Catalog) Recommend(id string, req Requirements, now time.Time) (Recommendations, error) {
	cur, ok := c.Get(id)
	if !ok {
		return Recommendations{}, fmt.Errorf("%w: %s", ErrUnknownModel, id)
	}
	out := Recommendations{Current: cur, Upgrades: []Recommendation{}, SameProvider: []Recommendation{}, Alternatives: []Recommendation{}}
	used := map[string]bool{cur.ID: true}

	if s, ok := c.ResolveSuccessor(cur.ID, now); ok && req.Satisfied(&s) {
		reason := fmt.Sprintf("Designated successor of %s", cur.Name)
		if s.ID != cur.SuccessorID {
			reason = fmt.Sprintf("Designated successor of %s (via %s, which is no longer available)", cur.Name, c.nameOf(cur.SuccessorID))
		}
		out.Successor = &Recommendation{Model: s, Type: RecSuccessor, Reason: reason}
		used[s.ID] = true
	}

	eligible := func(m *Model) bool {
		if used[m.ID] || !m.Enabled || m.Kind != cur.Kind || m.IsDeprecated(now) || !req.Satisfied(m) {
			return false
		}
		return m.Provider != "agentry" || cur.Provider == "agentry"
	}

	for _, m := range c.Upgrades(cur.ID, now) {
		if !eligible(&m) {
			continue
		}
		used[m.ID] = true
		out.Upgrades = append(out.Upgrades, Recommendation{Model: m, Type: RecUpgrade,
			Reason: upgradeReason(&cur, &m)})
	}

	var same, alt []Model
	for i := range c.models {
		m := &c.models[i]
		if !eligible(m) {
			continue
		}
		if m.Provider == cur.Provider {
			same = append(same, *m)
		} else {
			alt = append(alt, *m)
		}
	}
	byPrice := func(list []Model) {
		sort.SliceStable(list, func(i, j int) bool {
			di, dj := priceDistance(&cur, &list[i]), priceDistance(&cur, &list[j])
			if di != dj {
				return di < dj
			}
			return newer(&list[i], &list[j])
		})
	}
	byPrice(same)
	byPrice(alt)
	for _, m := range same[:min(len(same), MaxRecommendations)] {
		out.SameProvider = append(out.SameProvider, Recommendation{Model: m, Type: RecSameProvider,
			Reason: fmt.Sprintf("Same provider (%s), %s", m.Provider, priceReason(&cur, &m))})
	}
	for _, m := range alt[:min(len(alt), MaxRecommendations)] {
		out.Alternatives = append(out.Alternatives, Recommendation{Model: m, Type: RecAlternative,
			Reason: fmt.Sprintf("Alternative from %s, %s", m.Provider, priceReason(&cur, &m))})
	}
	return out, nil
}

// ResolveSuccessor follows the successor chain of id to the first model
// that is enabled and not sunset at now.
func (c *Catalog) ResolveSuccessor(id string, now time.Time) (Model, bool) {
	m, ok := c.Get(id)
	if !ok {
		return Model{}, false
	}
	for hops := 0; m.SuccessorID != "" && hops < len(c.models); hops++ {
		m = c.models[c.byID[m.SuccessorID]]
		if m.Enabled && !m.IsSunset(now) {
			return m, true
		}
	}
	return Model{}, false
}

// Upgrades lists the enabled, not-sunset models of the same provider,
// family and kind that are newer than id, newest first.
func (c *Catalog) Upgrades(id string, now time.Time) []Model {
	cur, ok := c.Get(id)
	if !ok || cur.Family == "" {
		return nil
	}
	var out []Model
	for i := range c.models {
		m := &c.models[i]
		if m.ID == cur.ID || m.Provider != cur.Provider || m.Family != cur.Family || m.Kind != cur.Kind ||
			!m.Enabled || m.IsSunset(now) || !newer(m, &cur) {
			continue
		}
		out = append(out, *m)
	}
	sort.SliceStable(out, func(i, j int) bool { return newer(&out[i], &out[j]) })
	return out
}

// newer orders by family generation, then release date.
func newer(a, b *Model) bool {
	if a.FamilyGeneration != b.FamilyGeneration {
		return a.FamilyGeneration > b.FamilyGeneration
	}
	if a.ReleasedAt != nil && b.ReleasedAt != nil {
		return a.ReleasedAt.After(b.ReleasedAt.Time)
	}
	return a.ReleasedAt != nil && b.ReleasedAt == nil
}

// blendedPrice weighs input 3:1 against output, a typical prompt-heavy mix.
func blendedPrice(m *Model) float64 {
	if m.Media != nil && m.Media.CreditsPerUnit != nil {
		return *m.Media.CreditsPerUnit
	}
	return (3*rate(m.Pricing.Input, 0) + rate(m.Pricing.Output, 0)) / 4
}

// priceDistance is the distance in log space, so 2x dearer and 2x cheaper
// are equally far.
func priceDistance(a, b *Model) float64 {
	pa, pb := blendedPrice(a), blendedPrice(b)
	return math.Abs(math.Log1p(pa) - math.Log1p(pb))
}

func upgradeReason(cur, m *Model) string {
	if m.FamilyGeneration != cur.FamilyGeneration {
		return fmt.Sprintf("Newer generation of the %s family (%g, current %g)", m.Family, m.FamilyGeneration, cur.FamilyGeneration)
	}
	return fmt.Sprintf("Newer release in the %s family", m.Family)
}

func priceReason(cur, m *Model) string {
	pc, pm := blendedPrice(cur), blendedPrice(m)
	switch {
	case pc == 0 && pm == 0:
		return "no per-token charge"
	case pc == 0:
		return "comparable capabilities"
	}
	r := pm / pc
	switch {
	case r < 0.9:
		return fmt.Sprintf("about %.0f%% cheaper", (1-r)*100)
	case r > 1.1:
		return fmt.Sprintf("about %.1fx the price", r)
	}
	return "similar price"
}

func (c *Catalog) nameOf(id string) string {
	if m, ok := c.Get(id); ok {
		return m.Name
	}
	return id
}
