package catalog

import (
	"fmt"
	"math"
	"strconv"
)

// Generation tiers an author chooses instead of a model.
const (
	TierFast     = "fast"
	TierBalanced = "balanced"
	TierThorough = "thorough"
)

var tierOrder = []string{TierFast, TierBalanced, TierThorough}

func tierRank(t string) int {
	for i, v := range tierOrder {
		if v == t {
			return i
		}
	}
	return len(tierOrder)
}

// GenerationTier is one row of GET /models/generation-tiers.
type GenerationTier struct {
	Modality  string `json:"modality"`
	Tier      string `json:"tier"`
	ModelID   string `json:"model_id"`
	ModelName string `json:"model_name"`
	// CreditsPerUnit is the raw per-unit price (per image, second,
	// character or token), rounded up to a whole credit; nil if unpriced.
	CreditsPerUnit *int64  `json:"credits_per_unit"`
	UnitLabel      *string `json:"unit_label"`
	PriceLabel     *string `json:"price_label"`
}

// GenerationTiers lists every (modality, tier) and what it resolves to,
// ordered by modality then fast, balanced, thorough.
func (c *Catalog) GenerationTiers() []GenerationTier {
	out := make([]GenerationTier, 0, len(c.tiers))
	for _, t := range c.tiers {
		m := c.models[c.byID[t.ModelID]]
		row := GenerationTier{Modality: t.Modality, Tier: t.Tier, ModelID: m.ID, ModelName: m.Name}
		if m.Media != nil {
			label := UnitLabel(m.Media.Unit)
			row.UnitLabel = &label
			if m.Media.CreditsPerUnit != nil {
				per := CreditsFromExact(*m.Media.CreditsPerUnit)
				row.CreditsPerUnit = &per
				pl := PriceLabel(*m.Media.CreditsPerUnit, m.Media.Unit)
				row.PriceLabel = &pl
			}
		}
		out = append(out, row)
	}
	return out
}

// ResolveTier returns the generator model for a modality and tier.
func (c *Catalog) ResolveTier(modality, tier string) (Model, error) {
	for _, t := range c.tiers {
		if t.Modality == modality && t.Tier == tier {
			return c.models[c.byID[t.ModelID]], nil
		}
	}
	return Model{}, fmt.Errorf("no %s generator for tier %q", modality, tier)
}

// UnitLabel is the human suffix of a per-unit price. Character and token
// rates are shown per 1,000 because a single one costs a few credits.
func UnitLabel(unit string) string {
	switch unit {
	case UnitImage:
		return "/image"
	case UnitSecond:
		return "/second"
	case UnitCharacter:
		return "/1k chars"
	case UnitToken:
		return "/1k tokens"
	}
	return "/" + unit
}

// PriceLabel renders a per-unit price for people, scaled like UnitLabel,
// with the dollar equivalent: "40,000 credits/image ($0.04)".
func PriceLabel(creditsPerUnit float64, unit string) string {
	v := creditsPerUnit
	if unit == UnitCharacter || unit == UnitToken {
		v *= 1000
	}
	return fmt.Sprintf("%s credits%s ($%s)", groupThousands(v), UnitLabel(unit), trimFloat(CreditsToUSD(v)))
}

func groupThousands(v float64) string {
	if v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatInt(int64(v), 10)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
