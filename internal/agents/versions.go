package agents

import (
	"context"
	"errors"
	"time"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// Workflow versions (an extension): every save of a changed definition is
// a version, named by the change id it was saved under. They are listed,
// read, compared, and restored by saving an old one again as the newest;
// history is never rewritten.

// ErrUnknownVersion: the agent exists but has no version of that change id.
var ErrUnknownVersion error = &fault.NotFound{What: "Version", Err: store.ErrNotFound}

// VersionView is one version of an agent's workflow.
type VersionView struct {
	ChangeID      string
	SchemaVersion string
	Definition    []byte
	SavedAt       time.Time
	SavedBy       string
	Current       bool
	// Summary says in a line what this version changed from the one
	// before it.
	Summary string
}

// ListVersions returns a page of an agent's versions, newest first.
func (s *Service) ListVersions(ctx context.Context, accountID, agentID string, page, limit int) ([]VersionView, int, error) {
	// One version more than the page: the one before the page's last,
	// which its summary is computed against.
	vs, total, err := s.versions().list(ctx, accountID, agentID, limit+1, paging.Offset(page, limit))
	if err != nil {
		return nil, 0, err
	}
	out := make([]VersionView, 0, min(len(vs), limit))
	for i := 0; i < len(vs) && i < limit; i++ {
		var prev *AgentVersion
		if i+1 < len(vs) {
			prev = &vs[i+1]
		}
		out = append(out, versionView(vs[i], prev))
	}
	return out, total, nil
}

// GetVersion returns one version, with its definition.
func (s *Service) GetVersion(ctx context.Context, accountID, agentID, changeID string) (VersionView, error) {
	v, err := s.version(ctx, accountID, agentID, changeID)
	if err != nil {
		return VersionView{}, err
	}
	prev, err := s.previous(ctx, accountID, agentID, v)
	if err != nil {
		return VersionView{}, err
	}
	return versionView(v, prev), nil
}

// DiffView compares two versions of a workflow.
type DiffView struct {
	ChangeID, Against string
	Diff              def.Diff
}

// DiffVersions compares the version of changeID with that of against (the
// version before it when against is ""; with none, against an empty
// workflow).
func (s *Service) DiffVersions(ctx context.Context, accountID, agentID, changeID, against string) (DiffView, error) {
	to, err := s.version(ctx, accountID, agentID, changeID)
	if err != nil {
		return DiffView{}, err
	}
	var from *AgentVersion
	if against != "" {
		v, err := s.version(ctx, accountID, agentID, against)
		if errors.Is(err, ErrUnknownVersion) {
			return DiffView{}, invalid("the agent has no version with this change_id", "value_error.unknown_version", "query", "against")
		}
		if err != nil {
			return DiffView{}, err
		}
		from = &v
	} else if from, err = s.previous(ctx, accountID, agentID, to); err != nil {
		return DiffView{}, err
	}
	out := DiffView{ChangeID: to.ChangeID}
	if from != nil {
		out.Against = from.ChangeID
	}
	out.Diff = diffVersions(from, to)
	return out, nil
}

// RestoreVersion saves the version of changeID as the agent's newest,
// through the same validation and optimistic locking as any save of the
// definition: expectedChangeID must be the current change id.
func (s *Service) RestoreVersion(ctx context.Context, accountID, agentID, userID, changeID, expectedChangeID string) (VersionView, error) {
	v, err := s.version(ctx, accountID, agentID, changeID)
	if err != nil {
		return VersionView{}, err
	}
	saved, err := s.PutDefinition(ctx, PutDefinitionInput{AccountID: accountID, AgentID: agentID, UserID: userID,
		ExpectedChangeID: expectedChangeID, Definition: v.Definition})
	if err != nil {
		return VersionView{}, err
	}
	return s.GetVersion(ctx, accountID, agentID, saved.ChangeID)
}

// RunDefinitionAt is RunDefinition for one version of the workflow (the
// current one when changeID is ""), for a run pinned to it.
// ErrUnknownVersion: the agent has no such version.
func (s *Service) RunDefinitionAt(ctx context.Context, accountID, agentID, changeID string) (Agent, *def.Definition, error) {
	a, d, err := s.RunDefinition(ctx, accountID, agentID)
	if err != nil || changeID == "" || changeID == a.ChangeID {
		return a, d, err
	}
	v, err := s.version(ctx, accountID, agentID, changeID)
	if err != nil {
		return Agent{}, nil, err
	}
	// Versions never change: the cache entry of one is keyed by its
	// change id and checked against its text like any other.
	key := a.ID + "@" + v.ChangeID
	if d, ok := s.parsed.get(key, v.Definition); ok {
		a.ChangeID, a.Definition = v.ChangeID, v.Definition
		return a, d, nil
	}
	a.ChangeID, a.Definition, a.SchemaVersion = v.ChangeID, v.Definition, v.SchemaVersion
	if d, err = parseStored(a); err != nil {
		return Agent{}, nil, err
	}
	s.parsed.put(key, v.Definition, d)
	return a, d, nil
}

// version reads one version: store.ErrNotFound for no such agent,
// ErrUnknownVersion for no such version of it.
func (s *Service) version(ctx context.Context, accountID, agentID, changeID string) (AgentVersion, error) {
	v, err := s.versions().of(ctx, accountID, agentID, changeID)
	if errors.Is(err, store.ErrNotFound) {
		if _, aerr := s.rows().Agent(ctx, accountID, agentID); aerr != nil {
			return AgentVersion{}, aerr
		}
		return AgentVersion{}, ErrUnknownVersion
	}
	return v, err
}

// previous is the version saved before v, nil for the first.
func (s *Service) previous(ctx context.Context, accountID, agentID string, v AgentVersion) (*AgentVersion, error) {
	p, err := s.versions().previous(ctx, accountID, agentID, v)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func versionView(v AgentVersion, prev *AgentVersion) VersionView {
	out := VersionView{ChangeID: v.ChangeID, SchemaVersion: v.SchemaVersion, Definition: v.Definition, SavedAt: v.SavedAt,
		SavedBy: v.SavedBy, Current: v.Current}
	if prev == nil {
		out.Summary = "first version"
	} else {
		out.Summary = diffVersions(prev, v).Summary()
	}
	return out
}

// diffVersions compares two stored versions; a stored definition that no
// longer parses (it passed validation when saved) compares as empty.
func diffVersions(from *AgentVersion, to AgentVersion) def.Diff {
	var a *def.Definition
	if from != nil {
		a = parseVersion(from.Definition)
	}
	return def.DiffDefinitions(a, parseVersion(to.Definition))
}

func parseVersion(text []byte) *def.Definition {
	d, _, err := def.ParseDefinition(text)
	if err != nil {
		return nil
	}
	return d
}
