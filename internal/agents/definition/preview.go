package definition

import "sort"

// Preview is the body of POST /agents/preview-import
// (AgentImportPreviewResponse). Counts are those of the payload as
// supplied, before skips.
type Preview struct {
	OK                     bool            `json:"ok"`
	AgentName              *string         `json:"agent_name"`
	Description            *string         `json:"description"`
	StepCount              int             `json:"step_count"`
	Schedules              int             `json:"schedules"`
	AlertConfigs           int             `json:"alert_configs"`
	EvaluationCriteria     int             `json:"evaluation_criteria"`
	GovernancePolicies     int             `json:"governance_policies"`
	Solutions              int             `json:"solutions"`
	PayloadExportVersion   *string         `json:"payload_export_version"`
	SupportedExportVersion string          `json:"supported_export_version"`
	UnresolvedRefs         []UnresolvedRef `json:"unresolved_refs"`
}

// UnresolvedRef is one entity the workflow references that the account does
// not have. Alternatives is empty until the caller ranks its own resources
// of the same kind with RankAlternatives.
type UnresolvedRef struct {
	Category     RefKind       `json:"category"`
	RefID        string        `json:"ref_id"`
	RefName      *string       `json:"ref_name,omitempty"`
	Locations    []string      `json:"locations"`
	Alternatives []Alternative `json:"alternatives"`
}

// Preview summarises an import for the client to confirm.
func (im *Imported) Preview() Preview {
	e := im.Export
	p := Preview{
		OK:                     true,
		StepCount:              im.Definition.StepCount(),
		AlertConfigs:           len(e.AlertConfigs),
		EvaluationCriteria:     len(e.EvaluationCriteria),
		GovernancePolicies:     len(e.GovernancePolicies),
		Solutions:              len(e.Solutions),
		PayloadExportVersion:   im.PayloadVersion,
		SupportedExportVersion: CurrentExportVersion,
		UnresolvedRefs:         UnresolvedRefs(im.Unresolved, e.Dependencies),
	}
	if e.Trigger != nil {
		p.Schedules = len(e.Trigger.Schedules)
	}
	if e.Agent.Name != "" {
		name := e.Agent.Name
		p.AgentName = &name
	}
	p.Description = e.Agent.Description
	return p
}

// UnresolvedRefs groups missing references by entity, with the names the
// payload's manifest gives them and where they are used, in first-seen
// order.
func UnresolvedRefs(refs []Ref, manifest *Dependencies) []UnresolvedRef {
	out := []UnresolvedRef{}
	at := map[Ref]int{}
	for _, r := range refs {
		key := Ref{Kind: r.Kind, ID: r.ID}
		i, ok := at[key]
		if !ok {
			u := UnresolvedRef{Category: r.Kind, RefID: r.ID, Locations: []string{}, Alternatives: []Alternative{}}
			if ent, found := manifest.Lookup(r.Kind, r.ID); found && ent.Name != "" {
				name := ent.Name
				u.RefName = &name
			}
			out = append(out, u)
			i = len(out) - 1
			at[key] = i
		}
		loc := r.Location()
		if !contains(out[i].Locations, loc) {
			out[i].Locations = append(out[i].Locations, loc)
		}
	}
	return out
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}
