package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/agents/definition/canonjson"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// DefinitionView is GET/PUT /agents/{id}/definition (AgentDefinitionResponse).
type DefinitionView struct {
	ChangeID      string
	Definition    json.RawMessage
	SchemaVersion string
	Warnings      def.Problems // shapes that run but are probably mistakes
}

// GetDefinition returns the workflow, its change id and its warnings.
func (s *Service) GetDefinition(ctx context.Context, accountID, agentID string) (DefinitionView, error) {
	a, d, err := s.Definition(ctx, accountID, agentID)
	if err != nil {
		return DefinitionView{}, err
	}
	rep, err := def.Validate(ctx, d, def.ValidateOptions{Trigger: def.TriggerType(a.TriggerType), AgentID: a.ID,
		ServerRules: s.serverRules()})
	if err != nil {
		return DefinitionView{}, err
	}
	return DefinitionView{ChangeID: a.ChangeID, Definition: a.Definition, SchemaVersion: a.SchemaVersion,
		Warnings: rep.Problems.Warnings()}, nil
}

// PutDefinitionInput is PUT /agents/{id}/definition.
type PutDefinitionInput struct {
	AccountID, AgentID, UserID string
	ExpectedChangeID           string
	Definition                 json.RawMessage
}

// PutDefinition replaces the workflow if expectedChangeID is still the
// current change id (ErrStaleChange otherwise). Problems are an
// *InvalidError whose locations are ["body", "definition", …]; the
// previous workflow is kept in the history.
func (s *Service) PutDefinition(ctx context.Context, in PutDefinitionInput) (DefinitionView, error) {
	cur, err := s.rows().Agent(ctx, in.AccountID, in.AgentID)
	if err != nil {
		return DefinitionView{}, err
	}
	d, probs, err := def.CheckDefinition(ctx, in.Definition, def.ValidateOptions{BasePath: putDefinitionBase,
		Trigger: def.TriggerType(cur.TriggerType), AgentID: cur.ID, Resolver: s.resolver(in.AccountID),
		ServerRules: s.serverRules()})
	if err != nil {
		return DefinitionView{}, err
	}
	if errs := probs.Errors(); len(errs) > 0 {
		items := make([]FieldProblem, len(errs))
		for i, p := range errs {
			items[i] = FieldProblem{Loc: append([]any{"body"}, p.Loc()...), Msg: p.Message, Type: string(p.Code)}
		}
		return DefinitionView{}, &InvalidError{Items: items}
	}
	body, err := json.Marshal(d)
	if err != nil {
		return DefinitionView{}, err
	}
	var current *Agent
	a, err := s.rows().UpdateAgent(ctx, in.AccountID, in.AgentID, in.UserID, func(a *Agent) error {
		// Checked under the row's lock: two writers holding the same
		// change id cannot both pass.
		if a.ChangeID != in.ExpectedChangeID {
			cp := *a
			current = &cp
			return ErrStaleChange
		}
		a.Definition, a.CallTargets = body, d.CallTargets()
		return nil
	})
	s.saved(ctx, a, err)
	if errors.Is(err, ErrStaleChange) && current != nil {
		return DefinitionView{}, s.staleChange(ctx, *current)
	}
	if err != nil {
		return DefinitionView{}, err
	}
	return DefinitionView{ChangeID: a.ChangeID, Definition: a.Definition, SchemaVersion: a.SchemaVersion,
		Warnings: relativeTo(putDefinitionBase, probs.Warnings())}, nil
}

// putDefinitionBase is where PUT's body holds the definition: errors are
// located in the body (["body", "definition", …]), but warnings describe
// the definition the response returns, with the same paths GET gives them.
const putDefinitionBase = "definition"

// relativeTo rewrites the problems' paths from under base to relative to it.
func relativeTo(base string, probs def.Problems) def.Problems {
	bs, err := canonjson.Split(base)
	if err != nil {
		return probs
	}
	out := make(def.Problems, len(probs))
	for i, p := range probs {
		if segs, err := canonjson.Split(p.Path); err == nil && len(segs) >= len(bs) && slices.Equal(segs[:len(bs)], bs) {
			p.Path = canonjson.Join(segs[len(bs):])
		}
		out[i] = p
	}
	return out
}

// serverRules are the operator's settings every definition check of this
// service applies, whichever way the definition arrives.
func (s *Service) serverRules() def.ServerRules {
	return def.ServerRules{S3AllowedBuckets: s.cfg.S3AllowedBuckets, KnownModel: s.cfg.KnownModel}
}

// StaleChangeError is ErrStaleChange with who saved the definition that
// is current, and when, so that the writer who lost knows whom to ask.
type StaleChangeError struct {
	SavedBy string // the saver's e-mail, else name; "" for a key without a user
	SavedAt time.Time
}

func (e *StaleChangeError) Error() string { return ErrStaleChange.Error() }

func (e *StaleChangeError) Unwrap() error { return ErrStaleChange }

// As reads the refusal as the fault vocabulary's Conflict, naming who
// saved the definition and when.
func (e *StaleChangeError) As(target any) bool {
	t, ok := target.(**fault.Conflict)
	if ok {
		by := e.SavedBy
		if by == "" {
			by = "an API key without a user"
		}
		*t = &fault.Conflict{Err: e, Msg: fmt.Sprintf("The definition was modified since you read it (saved by %s at %s): GET /agents/{agent_id}/definition again, re-apply your change and send its change_id",
			by, e.SavedAt.UTC().Format(time.RFC3339))}
	}
	return ok
}

// staleChange describes the current definition's save. The saver is a
// member of the account (or was: a removed member is still named).
func (s *Service) staleChange(ctx context.Context, cur Agent) error {
	e := &StaleChangeError{SavedAt: cur.DefinitionSavedAt}
	if cur.DefinitionSavedBy != "" {
		u, err := directory.GetUser(ctx, s.db, cur.DefinitionSavedBy)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		e.SavedBy = u.Email
		if e.SavedBy == "" {
			e.SavedBy = u.Name
		}
	}
	return e
}
