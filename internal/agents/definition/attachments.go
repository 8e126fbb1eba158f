package definition

import (
	"fmt"
	"sort"
	"strings"
)

// The attachment-reference contract tells a client, before it uploads, what
// files a run of the agent needs (GET /agents/{id}/attachment-references),
// and lets the run API reject a batch that cannot satisfy the templates.
//
// A template sees uploads in two ways. Implicitly, through the input: any
// {{input}}, {{agent.input}} or {{step.<id>.input|output}} carries every
// upload, and so does {{agent.attachments}} explicitly; these accept any
// batch. Explicitly, through selectors, which are requirements: every exact
// name must be uploaded, an index N needs at least N+1 files, and every glob
// must match at least one file.

// Contract kinds beyond the selector kinds.
const (
	KindImplicit = "implicit" // the template reads the input, which carries all uploads
	KindAll      = "all"      // {{agent.attachments}} / {{attachments}}
)

// MaxUploadsPerRun is the most files one run accepts.
const MaxUploadsPerRun = 20

// AttachmentSummary is the AttachmentRefsSourceApiSummary object.
type AttachmentSummary struct {
	ExactNames []string `json:"exact_names"`
	IndexesMax *int     `json:"indexes_max"`
	Kinds      []string `json:"kinds"`
	Patterns   []string `json:"patterns"`
}

// StepAttachments is the summary of one consumer step.
type StepAttachments struct {
	StepID  string
	Path    string
	Summary AttachmentSummary
}

// AttachmentContract is the body of GET /agents/{id}/attachment-references
// (AgentAttachmentRefsApiResponse) plus the per-step detail behind it.
type AttachmentContract struct {
	RequiresUploads bool              `json:"requires_uploads"`
	Agent           AttachmentSummary `json:"agent"`
	Steps           []StepAttachments `json:"-"`
}

// AttachmentContract computes the contract from the definition's templates.
// Template fields left out but defaulting to a placeholder ("{{input}}")
// count, since the engine renders the default.
func (d *Definition) AttachmentContract() AttachmentContract {
	agg := newSummaryBuilder()
	var steps []StepAttachments
	d.Walk("", func(v Visit) bool {
		b := newSummaryBuilder()
		for _, t := range effectiveTemplates(v.Step, v.Path) {
			for _, ph := range ParsePlaceholders(t.Text) {
				b.add(ph)
				agg.add(ph)
			}
		}
		if !b.empty() {
			steps = append(steps, StepAttachments{StepID: v.Step.ID, Path: v.Path, Summary: b.summary()})
		}
		return true
	})
	return AttachmentContract{RequiresUploads: !agg.empty(), Agent: agg.summary(), Steps: steps}
}

// effectiveTemplates adds, to the templates written in the step, the
// placeholder defaults of template fields left out.
func effectiveTemplates(s *Step, path string) []TemplateText {
	out := s.Templates(path)
	if spec, ok := specs[s.Type]; ok {
		for _, f := range spec.Fields {
			def, isStr := f.Default.(string)
			if f.Kind != KindTemplate || !isStr || !hasPlaceholder(def) {
				continue
			}
			if v, present := s.Config[f.Name]; !present || v == nil {
				out = append(out, TemplateText{Path: fieldPath(path, f.Name), Text: def})
			}
		}
	}
	return out
}

type summaryBuilder struct {
	names, patterns, kinds map[string]bool
	indexMax               int
}

func newSummaryBuilder() *summaryBuilder {
	return &summaryBuilder{names: map[string]bool{}, patterns: map[string]bool{}, kinds: map[string]bool{}, indexMax: -1}
}

func (b *summaryBuilder) add(ph Placeholder) {
	switch ph.Kind {
	case PlaceholderInput, PlaceholderStep:
		b.kinds[KindImplicit] = true
	case PlaceholderAllAttachments:
		b.kinds[KindAll] = true
	case PlaceholderAttachment:
		if ph.Invalid != "" {
			return
		}
		b.kinds[string(ph.Selector.Kind)] = true
		switch ph.Selector.Kind {
		case SelectorIndex:
			b.indexMax = max(b.indexMax, ph.Selector.Index)
		case SelectorName:
			b.names[ph.Selector.Value] = true
		case SelectorPattern:
			b.patterns[ph.Selector.Value] = true
		}
	}
}

func (b *summaryBuilder) empty() bool { return len(b.kinds) == 0 }

func (b *summaryBuilder) summary() AttachmentSummary {
	s := AttachmentSummary{ExactNames: sortedKeys(b.names), Patterns: sortedKeys(b.patterns), Kinds: sortedKeys(b.kinds)}
	if b.indexMax >= 0 {
		n := b.indexMax
		s.IndexesMax = &n
	}
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Unmet kinds besides the selector kinds.
const (
	UnmetNotAccepted = "uploads_not_accepted"
	UnmetTooMany     = "too_many_uploads"
)

// UnmetRequirement is one reason an upload batch is refused (HTTP 400 of
// the run API).
type UnmetRequirement struct {
	Kind     string `json:"kind"`
	Selector string `json:"selector,omitempty"`
	Message  string `json:"message"`
}

// Unmet lists what the uploaded file names fail to satisfy, in a stable
// order (uploads refused, then too many files, exact names, the index
// minimum, patterns); empty means the batch is acceptable. Call it for runs
// that carry uploads: a run with plain text input has no batch to check.
func (c AttachmentContract) Unmet(uploaded []string) []UnmetRequirement {
	var out []UnmetRequirement
	if !c.RequiresUploads {
		if len(uploaded) > 0 {
			out = append(out, UnmetRequirement{Kind: UnmetNotAccepted, Message: "this agent's definition does not reference uploaded files"})
		}
		return out
	}
	if len(uploaded) > MaxUploadsPerRun {
		out = append(out, UnmetRequirement{Kind: UnmetTooMany, Message: fmt.Sprintf("%d files uploaded; a run accepts at most %d", len(uploaded), MaxUploadsPerRun)})
	}
	have := map[string]bool{}
	for _, n := range uploaded {
		have[n] = true
	}
	for _, n := range c.Agent.ExactNames {
		if !have[n] {
			out = append(out, UnmetRequirement{Kind: string(SelectorName), Selector: n, Message: fmt.Sprintf("a file named %q is required", n)})
		}
	}
	if c.Agent.IndexesMax != nil && len(uploaded) <= *c.Agent.IndexesMax {
		need := *c.Agent.IndexesMax + 1
		out = append(out, UnmetRequirement{Kind: string(SelectorIndex), Selector: fmt.Sprint(*c.Agent.IndexesMax),
			Message: fmt.Sprintf("at least %d file%s required, %d uploaded", need, plural(need), len(uploaded))})
	}
	for _, p := range c.Agent.Patterns {
		found := false
		for _, n := range uploaded {
			if MatchGlob(p, n) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, UnmetRequirement{Kind: string(SelectorPattern), Selector: p, Message: fmt.Sprintf("no uploaded file matches %q", p)})
		}
	}
	return out
}

// UnmetMessage joins requirements into one sentence for a 400 detail.
func UnmetMessage(reqs []UnmetRequirement) string {
	msgs := make([]string, len(reqs))
	for i, r := range reqs {
		msgs[i] = r.Message
	}
	return "upload batch does not satisfy the agent's attachment references: " + strings.Join(msgs, "; ")
}

func plural(n int) string {
	if n == 1 {
		return " is"
	}
	return "s are"
}
