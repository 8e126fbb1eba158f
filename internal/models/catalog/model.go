package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Kind says what a model produces.
type Kind string

// Model kinds. Chat models answer prompts (and may also emit images, for
// example); embedding models return vectors; image, audio and video models
// are dedicated media generators priced per unit.
const (
	KindChat      Kind = "chat"
	KindEmbedding Kind = "embedding"
	KindImage     Kind = "image"
	KindAudio     Kind = "audio"
	KindVideo     Kind = "video"
)

// Media kinds used in input_media / output_media. "pdf" stands for
// documents, as in the reference's filter vocabulary.
const (
	MediaText  = "text"
	MediaImage = "image"
	MediaAudio = "audio"
	MediaVideo = "video"
	MediaPDF   = "pdf"
)

// Date is a calendar date (UTC midnight). The data file writes
// "YYYY-MM-DD"; full RFC 3339 timestamps are accepted too.
type Date struct{ time.Time }

// UnmarshalJSON accepts "2006-01-02" or RFC 3339.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		d.Time = t
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("date %q: want YYYY-MM-DD or RFC 3339", s)
	}
	d.Time = t.UTC()
	return nil
}

// MarshalJSON writes the date back as YYYY-MM-DD.
func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.Format(time.DateOnly)) }

// LongContextPricing applies when a request's input exceeds Threshold
// tokens: the whole request is charged at these rates (how Anthropic and
// Google bill their long-context tiers).
type LongContextPricing struct {
	Threshold   int      `json:"threshold"`
	Input       *float64 `json:"input"`
	Output      *float64 `json:"output"`
	CachedInput *float64 `json:"cached_input,omitempty"`
}

// BatchPricing applies to asynchronous batch calls.
type BatchPricing struct {
	Input  *float64 `json:"input"`
	Output *float64 `json:"output,omitempty"`
}

// ModalityRate prices image/audio/video tokens that differ from the text
// rate (e.g. generated image tokens on an image-capable chat model).
type ModalityRate struct {
	Modality string   `json:"modality"`
	Input    *float64 `json:"input,omitempty"`
	Output   *float64 `json:"output,omitempty"`
}

// Pricing is in credits per 1,000 tokens. A nil rate means the catalog
// does not know it; such a model cannot be metered until an operator
// override sets it. Zero means free (self-hosted and offline models).
type Pricing struct {
	Input        *float64            `json:"input"`
	Output       *float64            `json:"output,omitempty"`
	CachedInput  *float64            `json:"cached_input,omitempty"`
	CacheWrite5m *float64            `json:"cache_write_5m,omitempty"`
	CacheWrite1h *float64            `json:"cache_write_1h,omitempty"`
	LongContext  *LongContextPricing `json:"long_context,omitempty"`
	Batch        *BatchPricing       `json:"batch,omitempty"`
	Modalities   []ModalityRate      `json:"modalities,omitempty"`
}

// Pricing units of media generators.
const (
	UnitImage     = "image"
	UnitSecond    = "second"
	UnitCharacter = "character"
	UnitToken     = "token"
)

// MediaGeneration describes a dedicated media generator.
type MediaGeneration struct {
	Modality string `json:"modality"` // image, audio, video
	Unit     string `json:"pricing_unit"`
	// CreditsPerUnit is the price of one unit (one image, one second of
	// video, one input character, one output token).
	CreditsPerUnit *float64 `json:"credits_per_unit"`
	// Params are modality-specific constraints (sizes, durations,
	// voices…), passed through to clients as generation_params.
	Params map[string]any `json:"params,omitempty"`
}

// Model is one catalog entry.
type Model struct {
	// ID is the catalog id used everywhere in Agentry (agent definitions,
	// the API's model_id path parameter): provider_family_version.
	ID string `json:"id"`
	// APIName is the provider's own model name, sent upstream.
	APIName string `json:"api_name"`
	// APINames maps a naming dialect (e.g. "ollama") to the name a
	// particular kind of server uses for the same weights.
	APINames    map[string]string `json:"api_names,omitempty"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Provider    string            `json:"provider"`
	Family      string            `json:"family"`
	// FamilyGeneration orders models within a family (4.1 > 4).
	FamilyGeneration float64 `json:"family_generation"`
	Kind             Kind    `json:"kind"`
	Enabled          bool    `json:"enabled"`
	// Default marks the model new prompt steps get when none is chosen.
	Default          bool `json:"default,omitempty"`
	MaxContextTokens int  `json:"max_context_tokens"`
	MaxOutputTokens  int  `json:"max_output_tokens"`
	// MaxConversationLength is how many messages of history Agentry keeps
	// when it sends a conversation to this model.
	MaxConversationLength int `json:"max_conversation_length"`
	// EmbeddingDimensions is the default vector size of an embedding model;
	// FlexibleDimensions says whether other sizes may be requested.
	EmbeddingDimensions int  `json:"embedding_dimensions,omitempty"`
	FlexibleDimensions  bool `json:"flexible_dimensions,omitempty"`

	SupportsToolUse          bool `json:"supports_tool_use"`
	SupportsThinking         bool `json:"supports_thinking"`
	SupportsStructuredOutput bool `json:"supports_structured_output"`
	SupportsStreaming        bool `json:"supports_streaming"`
	// SupportsOpenAIArguments: accepts OpenAI-style sampling arguments
	// (temperature, top_p, stop…) through the OpenAI-compatible adapter.
	SupportsOpenAIArguments bool     `json:"supports_openai_arguments"`
	InputMedia              []string `json:"input_media"`
	OutputMedia             []string `json:"output_media"`
	Languages               []string `json:"languages,omitempty"`

	Pricing Pricing          `json:"pricing"`
	Media   *MediaGeneration `json:"media_generation,omitempty"`

	ReleasedAt       *Date  `json:"released_at,omitempty"`
	DeprecatedAt     *Date  `json:"deprecated_at,omitempty"`
	SunsetAt         *Date  `json:"sunset_at,omitempty"`
	TrainingCutoffAt *Date  `json:"training_cutoff_at,omitempty"`
	SuccessorID      string `json:"successor_id,omitempty"`
	URL              string `json:"url,omitempty"`
	// Notes record caveats about the data itself (e.g. a limit the vendor
	// does not publish), so nobody mistakes a default for a fact.
	Notes string `json:"notes,omitempty"`
}

// AcceptsInput reports whether the model takes media kind k (see NormalizeMedia).
func (m *Model) AcceptsInput(k string) bool { return contains(m.InputMedia, k) }

// Produces reports whether the model outputs media kind k.
func (m *Model) Produces(k string) bool { return contains(m.OutputMedia, k) }

// UpstreamName is the name to send to a server speaking dialect ("" or
// unknown dialects get APIName).
func (m *Model) UpstreamName(dialect string) string {
	if n, ok := m.APINames[dialect]; ok && n != "" {
		return n
	}
	return m.APIName
}

// IsDeprecated reports whether the model is deprecated at now: its
// deprecation date has passed or, when no deprecation date is recorded, a
// shutdown date has been announced (providers deprecate a model by
// publishing its shutdown date, and some publish only that).
func (m *Model) IsDeprecated(now time.Time) bool {
	if m.DeprecatedAt != nil {
		return !now.Before(m.DeprecatedAt.Time)
	}
	return m.SunsetAt != nil
}

// IsSunset reports whether the model no longer serves requests at now.
func (m *Model) IsSunset(now time.Time) bool {
	return m.SunsetAt != nil && !now.Before(m.SunsetAt.Time)
}

// IsNew reports whether the model was released within NewModelWindow of now.
func (m *Model) IsNew(now time.Time) bool {
	return m.ReleasedAt != nil && !now.Before(m.ReleasedAt.Time) && now.Sub(m.ReleasedAt.Time) <= NewModelWindow
}

// NewModelWindow is how long after release a model is flagged is_new.
const NewModelWindow = 60 * 24 * time.Hour

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
