package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed data/models.json
var builtinData []byte

// TierSpec maps a (modality, tier) pair to the generator that serves it.
type TierSpec struct {
	Modality string `json:"modality"`
	Tier     string `json:"tier"`
	ModelID  string `json:"model_id"`
}

// fileData is the shape of the built-in file and of operator files.
type fileData struct {
	Defaults struct {
		MaxConversationLength int `json:"max_conversation_length"`
	} `json:"defaults"`
	Models          []Model    `json:"models"`
	GenerationTiers []TierSpec `json:"generation_tiers"`
}

// Catalog is an immutable, validated set of models. It is safe for
// concurrent use.
type Catalog struct {
	models []Model
	byID   map[string]int
	byAPI  map[string]int // lower-cased provider/api_name and bare api_name when unique
	tiers  []TierSpec
	dyn    discovered // models found at run time (SetDiscovered)
}

var (
	builtinOnce sync.Once
	builtinCat  *Catalog
	builtinErr  error
)

// Builtin returns the embedded catalog. The embedded file is validated by
// the package tests, so an error here means a broken build.
func Builtin() *Catalog {
	builtinOnce.Do(func() { builtinCat, builtinErr = Load() })
	if builtinErr != nil {
		panic("catalog: embedded data invalid: " + builtinErr.Error())
	}
	return builtinCat
}

// LoadFile returns the built-in catalog merged with the operator's file at
// path (YAML or JSON). An empty path means the built-in catalog.
func LoadFile(path string) (*Catalog, error) {
	if path == "" {
		return Builtin(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	c, err := Load(b)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return c, nil
}

// maxOverrideBytes bounds operator files; a catalog is a few hundred KB.
const maxOverrideBytes = 8 << 20

// Load builds a catalog from the built-in data and the given operator
// overrides (YAML or JSON documents), applied in order. Each override's
// models are merged by id as a JSON merge patch (RFC 7396): objects merge
// key by key, arrays and scalars replace, null removes a key. A model id
// not yet known is added and must then be complete. Generation tiers
// replace the built-in entry with the same modality and tier.
func Load(overrides ...[]byte) (*Catalog, error) {
	base, err := decodeDoc(builtinData)
	if err != nil {
		return nil, fmt.Errorf("built-in data: %w", err)
	}
	for i, o := range overrides {
		if len(o) > maxOverrideBytes {
			return nil, fmt.Errorf("override %d: larger than %d bytes", i+1, maxOverrideBytes)
		}
		doc, err := decodeDoc(o)
		if err != nil {
			return nil, fmt.Errorf("override %d: %w", i+1, err)
		}
		if err := mergeDoc(base, doc); err != nil {
			return nil, fmt.Errorf("override %d: %w", i+1, err)
		}
	}
	return build(base)
}

// decodeDoc parses YAML or JSON into generic maps. YAML is a superset of
// JSON, so one parser serves both; the result is re-encoded as JSON later
// so that typed decoding (and its strictness) is the same for every input.
func decodeDoc(b []byte) (map[string]any, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("top level must be a mapping with models and/or generation_tiers")
	}
	for k := range m {
		switch k {
		case "defaults", "models", "generation_tiers":
		default:
			return nil, fmt.Errorf("unknown top-level key %q", k)
		}
	}
	if err := normalizeYAML(m); err != nil {
		return nil, err
	}
	return m, nil
}

// normalizeYAML rejects what YAML allows but JSON cannot express (non-string
// keys arrive as map[any]any only in yaml.v2; v3 gives map[string]any for
// string keys and errors otherwise, but anchors can still build cycles or
// huge trees). It bounds depth to keep merge and encode cheap.
func normalizeYAML(v any) error {
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		if depth > 32 {
			return errors.New("document nested too deeply")
		}
		switch t := v.(type) {
		case map[string]any:
			for _, x := range t {
				if err := walk(x, depth+1); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range t {
				if err := walk(x, depth+1); err != nil {
					return err
				}
			}
		case map[any]any:
			return errors.New("mapping keys must be strings")
		}
		return nil
	}
	return walk(v, 0)
}

func modelList(doc map[string]any) ([]map[string]any, error) {
	raw, ok := doc["models"]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New("models must be a list")
	}
	out := make([]map[string]any, 0, len(list))
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("models[%d] must be a mapping", i)
		}
		id, _ := m["id"].(string)
		if id == "" {
			return nil, fmt.Errorf("models[%d]: id is required", i)
		}
		out = append(out, m)
	}
	return out, nil
}

func mergeDoc(base, over map[string]any) error {
	baseModels, err := modelList(base)
	if err != nil {
		return err
	}
	overModels, err := modelList(over)
	if err != nil {
		return err
	}
	index := make(map[string]int, len(baseModels))
	for i, m := range baseModels {
		index[m["id"].(string)] = i
	}
	for _, om := range overModels {
		id := om["id"].(string)
		if i, ok := index[id]; ok {
			baseModels[i] = mergePatch(baseModels[i], om).(map[string]any)
			continue
		}
		index[id] = len(baseModels)
		baseModels = append(baseModels, om)
	}
	list := make([]any, len(baseModels))
	for i, m := range baseModels {
		list[i] = m
	}
	base["models"] = list

	if d, ok := over["defaults"]; ok {
		base["defaults"] = mergePatch(base["defaults"], d)
	}
	if t, ok := over["generation_tiers"]; ok {
		ot, ok := t.([]any)
		if !ok {
			return errors.New("generation_tiers must be a list")
		}
		bt, _ := base["generation_tiers"].([]any)
		for _, x := range ot {
			om, ok := x.(map[string]any)
			if !ok {
				return errors.New("generation_tiers entries must be mappings")
			}
			replaced := false
			for i, y := range bt {
				bm, _ := y.(map[string]any)
				if bm != nil && bm["modality"] == om["modality"] && bm["tier"] == om["tier"] {
					bt[i] = om
					replaced = true
				}
			}
			if !replaced {
				bt = append(bt, om)
			}
		}
		base["generation_tiers"] = bt
	}
	return nil
}

// mergePatch applies patch to target per RFC 7396.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	} else {
		cp := make(map[string]any, len(tm))
		for k, v := range tm {
			cp[k] = v
		}
		tm = cp
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}

// applyDefaults fills the fields whose zero value is not the usual case,
// so the data file need not repeat them on every entry.
func applyDefaults(m map[string]any, maxConv int) {
	setDefault := func(k string, v any) {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	kind, _ := m["kind"].(string)
	provider, _ := m["provider"].(string)
	setDefault("enabled", true)
	setDefault("supports_streaming", kind == string(KindChat))
	setDefault("supports_openai_arguments", kind == string(KindChat) && provider != "anthropic")
	setDefault("max_conversation_length", maxConv)
	switch Kind(kind) {
	case KindChat:
		setDefault("input_media", []any{MediaText})
		setDefault("output_media", []any{MediaText})
	case KindEmbedding:
		setDefault("input_media", []any{MediaText})
		setDefault("output_media", []any{})
	}
}

func build(doc map[string]any) (*Catalog, error) {
	maxConv := 50
	if d, ok := doc["defaults"].(map[string]any); ok {
		if v, ok := d["max_conversation_length"].(int); ok && v > 0 {
			maxConv = v
		}
	}
	models, err := modelList(doc)
	if err != nil {
		return nil, err
	}
	for _, m := range models {
		applyDefaults(m, maxConv)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var fd fileData
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fd); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	c := &Catalog{models: fd.Models, byID: map[string]int{}, byAPI: map[string]int{}, tiers: fd.GenerationTiers}
	for i := range c.models {
		m := &c.models[i]
		if _, dup := c.byID[m.ID]; dup {
			return nil, fmt.Errorf("model %s: duplicate id", m.ID)
		}
		c.byID[m.ID] = i
	}
	apiCount := map[string]int{}
	for i := range c.models {
		m := &c.models[i]
		if m.APIName != "" {
			c.byAPI[strings.ToLower(m.Provider+"/"+m.APIName)] = i
			apiCount[strings.ToLower(m.APIName)]++
		}
	}
	for i := range c.models {
		m := &c.models[i]
		if k := strings.ToLower(m.APIName); k != "" && apiCount[k] == 1 {
			if _, clash := c.byID[m.APIName]; !clash {
				c.byAPI[k] = i
			}
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	sort.SliceStable(c.tiers, func(i, j int) bool {
		a, b := c.tiers[i], c.tiers[j]
		if a.Modality != b.Modality {
			return a.Modality < b.Modality
		}
		return tierRank(a.Tier) < tierRank(b.Tier)
	})
	return c, nil
}

var validMedia = map[string]bool{MediaText: true, MediaImage: true, MediaAudio: true, MediaVideo: true, MediaPDF: true}

func (c *Catalog) validate() error {
	defaults := map[Kind]string{}
	for i := range c.models {
		m := &c.models[i]
		where := "model " + m.ID
		switch {
		case !validID(m.ID):
			return fmt.Errorf("%s: id must be lower-case letters, digits and underscores", where)
		case m.Name == "":
			return fmt.Errorf("%s: name is required", where)
		case m.Provider == "":
			return fmt.Errorf("%s: provider is required", where)
		case m.MaxContextTokens < 0 || m.MaxOutputTokens < 0 || m.MaxConversationLength < 0:
			return fmt.Errorf("%s: token limits must not be negative", where)
		case m.FamilyGeneration < 0:
			return fmt.Errorf("%s: family_generation must not be negative", where)
		}
		switch m.Kind {
		case KindChat, KindEmbedding:
		case KindImage, KindAudio, KindVideo:
			if m.Media == nil {
				return fmt.Errorf("%s: %s models need media_generation", where, m.Kind)
			}
		default:
			return fmt.Errorf("%s: kind %q is not one of chat, embedding, image, audio, video", where, m.Kind)
		}
		for _, k := range append(append([]string{}, m.InputMedia...), m.OutputMedia...) {
			if !validMedia[k] {
				return fmt.Errorf("%s: unknown media kind %q", where, k)
			}
		}
		if m.SuccessorID != "" {
			if m.SuccessorID == m.ID {
				return fmt.Errorf("%s: a model cannot succeed itself", where)
			}
			if _, ok := c.byID[m.SuccessorID]; !ok {
				return fmt.Errorf("%s: successor %q is not in the catalog", where, m.SuccessorID)
			}
		}
		if err := m.Pricing.validate(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		// An enabled model must be billable: metering refuses to guess.
		if m.Enabled && !m.Priced() {
			return fmt.Errorf("%s: enabled models need prices (set enabled: false or add pricing)", where)
		}
		if m.Default && m.Enabled {
			if other, dup := defaults[m.Kind]; dup {
				return fmt.Errorf("%s: %s is already the default %s model", where, other, m.Kind)
			}
			defaults[m.Kind] = m.ID
		}
	}
	// Successor chains must end: a cycle would loop lifecycle upgrades.
	for i := range c.models {
		seen := map[string]bool{}
		for id := c.models[i].ID; id != ""; id = c.models[c.byID[id]].SuccessorID {
			if seen[id] {
				return fmt.Errorf("model %s: successor chain loops", c.models[i].ID)
			}
			seen[id] = true
		}
	}
	for _, t := range c.tiers {
		i, ok := c.byID[t.ModelID]
		if !ok {
			return fmt.Errorf("generation tier %s/%s: unknown model %q", t.Modality, t.Tier, t.ModelID)
		}
		if tierRank(t.Tier) == len(tierOrder) {
			return fmt.Errorf("generation tier %s/%s: tier must be fast, balanced or thorough", t.Modality, t.Tier)
		}
		if m := c.models[i]; m.Media == nil || m.Media.Modality != t.Modality {
			return fmt.Errorf("generation tier %s/%s: %s does not generate %s", t.Modality, t.Tier, m.ID, t.Modality)
		}
	}
	return nil
}

func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
