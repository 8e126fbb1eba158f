package agents

import (
	"context"
	"errors"

	"github.com/agentry/agentry/internal/accounts/directory"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/store"
)

// The account's entities a definition can reference. Agents, users,
// knowledge bases and source connections exist; memory banks come with
// Memory banks exist since the memory area landed. A reference to an
// entity the account lacks is unresolved: imports refuse them (or,
// previewing, list them), rather than pointing a workflow at something that
// cannot exist.

// resolver checks references against one account.
func (s *Service) resolver(accountID string) def.Resolver {
	return accountResolver{s: s, accountID: accountID}
}

// accountResolver answers validation's questions about one account's
// entities: whether they exist, and whether a called agent is paused.
type accountResolver struct {
	s         *Service
	accountID string
}

func (r accountResolver) Exists(ctx context.Context, kind def.RefKind, id string) (bool, error) {
	switch kind {
	case def.RefAgent:
		return r.s.rows().AgentExists(ctx, r.accountID, id)
	case def.RefUser:
		return directory.IsMember(ctx, r.s.db, r.accountID, id)
	case def.RefKnowledgeBase:
		return r.s.cfg.Knowledge.KnowledgeBaseExists(ctx, r.accountID, id)
	case def.RefSourceConnection:
		return r.s.cfg.Knowledge.SourceExists(ctx, r.accountID, id)
	case def.RefMemoryBank:
		_, err := r.s.memoryBank(ctx, r.accountID, id)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	return false, nil
}

// AgentPaused implements def.AgentStates.
func (r accountResolver) AgentPaused(ctx context.Context, id string) (bool, error) {
	a, err := r.s.rows().Agent(ctx, r.accountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return a.DisabledAt != nil, nil
}

// describer names referenced entities for an export's dependency manifest.
func (s *Service) describer(accountID string) def.Describer {
	return def.DescriberFunc(func(ctx context.Context, kind def.RefKind, id string) (def.Entity, bool, error) {
		switch kind {
		case def.RefAgent:
			a, err := s.rows().Agent(ctx, accountID, id)
			if errors.Is(err, store.ErrNotFound) {
				return def.Entity{}, false, nil
			}
			if err != nil {
				return def.Entity{}, false, err
			}
			return def.Entity{ID: a.ID, Name: a.Name, Description: a.Description}, true, nil
		case def.RefUser:
			ok, err := directory.IsMember(ctx, s.db, accountID, id)
			if err != nil || !ok {
				return def.Entity{}, false, err
			}
			u, err := directory.GetUser(ctx, s.db, id)
			if errors.Is(err, store.ErrNotFound) {
				return def.Entity{}, false, nil
			}
			if err != nil {
				return def.Entity{}, false, err
			}
			return def.Entity{ID: u.ID, Name: u.Name}, true, nil
		case def.RefKnowledgeBase:
			k, err := s.cfg.Knowledge.KnowledgeBaseRef(ctx, accountID, id)
			if errors.Is(err, store.ErrNotFound) {
				return def.Entity{}, false, nil
			}
			if err != nil {
				return def.Entity{}, false, err
			}
			e := def.Entity{ID: k.ID, Name: k.Name}
			if k.Description != nil {
				e.Description = k.Description
			}
			return e, true, nil
		case def.RefMemoryBank:
			b, err := s.memoryBank(ctx, accountID, id)
			if errors.Is(err, store.ErrNotFound) {
				return def.Entity{}, false, nil
			}
			if err != nil {
				return def.Entity{}, false, err
			}
			return def.Entity{ID: b.ID, Name: b.Name, Description: b.Description}, true, nil
		case def.RefSourceConnection:
			src, err := s.cfg.Knowledge.SourceRef(ctx, accountID, id)
			if errors.Is(err, store.ErrNotFound) {
				return def.Entity{}, false, nil
			}
			if err != nil {
				return def.Entity{}, false, err
			}
			return def.Entity{ID: src.ID, Name: src.Name}, true, nil
		}
		return def.Entity{}, false, nil
	})
}

// candidates lists the account's entities of a kind, the replacements an
// import preview ranks for an unresolved reference.
func (s *Service) candidates(ctx context.Context, accountID string, kind def.RefKind) ([]def.Candidate, error) {
	var out []def.Candidate
	switch kind {
	case def.RefAgent:
		names, err := s.rows().AgentNames(ctx, accountID)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			out = append(out, def.Candidate{ID: n.ID, Name: n.Name, Description: n.Description})
		}
	case def.RefUser:
		members, err := directory.MembershipsOfAccount(ctx, s.db, accountID)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			u, err := directory.GetUser(ctx, s.db, m.UserID)
			if err != nil {
				return nil, err
			}
			out = append(out, def.Candidate{ID: u.ID, Name: u.Name})
		}
	}
	return out, nil
}

// memoryBank is the memory area's bank (Config.MemoryBank); none without it.
func (s *Service) memoryBank(ctx context.Context, accountID, id string) (MemoryBankRef, error) {
	if s.cfg.MemoryBank == nil {
		return MemoryBankRef{}, store.ErrNotFound
	}
	return s.cfg.MemoryBank(ctx, accountID, id)
}
