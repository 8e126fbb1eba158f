package catalog

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Filter selects models for GET /models. Nil booleans do not filter.
type Filter struct {
	Provider         string
	SupportsToolUse  *bool
	SupportsThinking *bool
	// InputMedia / OutputMedia: a coarse kind (image, audio, video, pdf,
	// text) or a full MIME type such as image/png or application/pdf.
	InputMedia  string
	OutputMedia string
	// IncludeDisabled lists disabled models too (admin views).
	IncludeDisabled bool
	// Now, when set, counts a model past its sunset date as disabled:
	// retirement follows the date, not the catalog file.
	Now time.Time
	// IncludeEmbeddings lists embedding models; GET /models lists models
	// usable in prompts, so the API leaves it false.
	IncludeEmbeddings bool
}

// NormalizeMedia maps a coarse kind or a MIME type to the catalog's media
// kind. ok is false for values that name no known kind; the API layer
// answers those with 422 rather than an empty list.
func NormalizeMedia(s string) (kind string, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexByte(s, ';'); i >= 0 { // drop MIME parameters
		s = strings.TrimSpace(s[:i])
	}
	switch s {
	case MediaText, MediaImage, MediaAudio, MediaVideo, MediaPDF:
		return s, true
	case "document", "application/pdf", "application/x-pdf":
		return MediaPDF, true
	}
	top, sub, found := strings.Cut(s, "/")
	if !found || sub == "" || strings.ContainsAny(sub, " /") {
		return "", false
	}
	switch top {
	case "image", "audio", "video", "text":
		return top, true
	}
	return "", false
}

// Matches reports whether m passes f.
func (f Filter) Matches(m *Model) bool {
	if !f.IncludeDisabled && (!m.Enabled || !f.Now.IsZero() && m.IsSunset(f.Now)) {
		return false
	}
	if !f.IncludeEmbeddings && m.Kind == KindEmbedding {
		return false
	}
	if f.Provider != "" && !strings.EqualFold(f.Provider, m.Provider) {
		return false
	}
	if f.SupportsToolUse != nil && *f.SupportsToolUse != m.SupportsToolUse {
		return false
	}
	if f.SupportsThinking != nil && *f.SupportsThinking != m.SupportsThinking {
		return false
	}
	if f.InputMedia != "" {
		k, ok := NormalizeMedia(f.InputMedia)
		if !ok || !m.AcceptsInput(k) {
			return false
		}
	}
	if f.OutputMedia != "" {
		k, ok := NormalizeMedia(f.OutputMedia)
		if !ok || !m.Produces(k) {
			return false
		}
	}
	return true
}

// Validate reports filter values that can never match (unknown media).
func (f Filter) Validate() error {
	if f.InputMedia != "" {
		if _, ok := NormalizeMedia(f.InputMedia); !ok {
			return fmt.Errorf("supports_input_media: %q is not a media kind (image, audio, video, pdf) or MIME type", f.InputMedia)
		}
	}
	if f.OutputMedia != "" {
		if _, ok := NormalizeMedia(f.OutputMedia); !ok {
			return fmt.Errorf("supports_output_media: %q is not a media kind (image, audio, video) or MIME type", f.OutputMedia)
		}
	}
	return nil
}

// List returns the models passing f, ordered by provider, then family,
// then newest generation first, then id: a stable order for paging.
func (c *Catalog) List(f Filter) []Model {
	var out []Model
	for i := range c.models {
		if f.Matches(&c.models[i]) {
			out = append(out, c.models[i])
		}
	}
	for _, m := range c.allDiscovered() {
		if f.Matches(&m) {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Provider != b.Provider {
			return providerRank(a.Provider) < providerRank(b.Provider) ||
				providerRank(a.Provider) == providerRank(b.Provider) && a.Provider < b.Provider
		}
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		if a.FamilyGeneration != b.FamilyGeneration {
			return a.FamilyGeneration > b.FamilyGeneration
		}
		return a.ID < b.ID
	})
	return out
}

// ProviderGroup is the models of one provider, as GET /models returns them.
type ProviderGroup struct {
	Provider string  `json:"provider"`
	Models   []Model `json:"models"`
}

// Grouped returns List(f) grouped by provider, groups in List order.
func (c *Catalog) Grouped(f Filter) []ProviderGroup {
	var groups []ProviderGroup
	for _, m := range c.List(f) {
		if n := len(groups); n > 0 && groups[n-1].Provider == m.Provider {
			groups[n-1].Models = append(groups[n-1].Models, m)
			continue
		}
		groups = append(groups, ProviderGroup{Provider: m.Provider, Models: []Model{m}})
	}
	return groups
}

// Providers lists the distinct providers in the catalog, in List order.
func (c *Catalog) Providers() []string {
	var out []string
	for _, g := range c.Grouped(Filter{IncludeDisabled: true, IncludeEmbeddings: true}) {
		out = append(out, g.Provider)
	}
	return out
}

// providerRank puts the built-in offline provider first (it always works)
// and the rest alphabetically.
func providerRank(p string) int {
	if p == "agentry" {
		return 0
	}
	return 1
}
