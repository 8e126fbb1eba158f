package knowledge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/paging"
)

// MaxKBSources bounds the sources of one knowledge base.
const MaxKBSources = 100

// KnowledgeBaseInput creates or (with nil fields left alone) updates a
// knowledge base.
type KnowledgeBaseInput struct {
	Name, Description, RerankerModel *string
	SourceIDs                        *[]string
	TopN, TopK                       *int
	Threshold                        *float64
}

func (s *Service) checkReranker(m *string) error {
	if m == nil || *m == "" {
		return nil
	}
	if _, ok := s.rerankerFor(*m); !ok {
		return invalid("reranker_model", fmt.Sprintf("unknown reranker %q; use %s", *m, strings.Join(s.RerankerModels(), ", ")))
	}
	return nil
}

func checkSourceIDs(ids []string) error {
	if len(ids) > MaxKBSources {
		return invalid("source_ids", fmt.Sprintf("at most %d sources", MaxKBSources))
	}
	return nil
}

// CreateKnowledgeBase stores a knowledge base over sources of the account.
func (s *Service) CreateKnowledgeBase(ctx context.Context, accountID string, in KnowledgeBaseInput) (KnowledgeBase, error) {
	k := KnowledgeBase{AccountID: accountID, Description: in.Description, DefaultTopN: in.TopN, DefaultTopK: in.TopK,
		DefaultScoreThreshold: in.Threshold}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return k, invalid("name", "a name of 1 to 255 characters is required")
	}
	k.Name = strings.TrimSpace(*in.Name)
	if in.SourceIDs == nil || len(*in.SourceIDs) == 0 {
		return k, invalid("source_ids", "at least one source id is required")
	}
	if err := checkSourceIDs(*in.SourceIDs); err != nil {
		return k, err
	}
	k.SourceIDs = *in.SourceIDs
	if err := s.checkReranker(in.RerankerModel); err != nil {
		return k, err
	}
	if in.RerankerModel != nil && *in.RerankerModel != "" {
		k.RerankerModel = in.RerankerModel
	}
	out, err := s.repo().CreateKnowledgeBase(ctx, k)
	if errors.Is(err, errSourceNotFound) {
		return out, invalid("source_ids", "every source must be an existing source of the account")
	}
	return out, err
}

// KnowledgeBase returns a knowledge base of the account.
func (s *Service) KnowledgeBase(ctx context.Context, accountID, id string) (KnowledgeBase, error) {
	return s.repo().KnowledgeBase(ctx, accountID, id)
}

// KnowledgeBaseExists reports whether the account has a live knowledge
// base id (the agents' definitions name knowledge bases).
func (s *Service) KnowledgeBaseExists(ctx context.Context, accountID, id string) (bool, error) {
	return s.repo().KnowledgeBaseExists(ctx, accountID, id)
}

// LatestKnowledgeBase returns the id of the account's newest live
// knowledge base (the one an agent's template searches when none is
// named), or ErrNotFound.
func (s *Service) LatestKnowledgeBase(ctx context.Context, accountID string) (string, error) {
	return s.repo().LatestKnowledgeBase(ctx, accountID)
}

// KnowledgeBases lists a page.
func (s *Service) KnowledgeBases(ctx context.Context, accountID, sort string, desc bool, page, limit int) ([]KnowledgeBase, int, error) {
	return s.repo().KnowledgeBases(ctx, accountID, sort, desc, paging.Offset(page, limit), limit)
}

// UpdateKnowledgeBase changes the given fields.
func (s *Service) UpdateKnowledgeBase(ctx context.Context, accountID, id string, in KnowledgeBaseInput) (KnowledgeBase, error) {
	p := KnowledgeBasePatch{Description: in.Description, TopN: in.TopN, TopK: in.TopK, Threshold: in.Threshold, SourceIDs: in.SourceIDs}
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" {
			return KnowledgeBase{}, invalid("name", "a name of 1 to 255 characters is required")
		}
		p.Name = &n
	}
	if in.SourceIDs != nil {
		if len(*in.SourceIDs) == 0 {
			return KnowledgeBase{}, invalid("source_ids", "a knowledge base needs at least one source")
		}
		if err := checkSourceIDs(*in.SourceIDs); err != nil {
			return KnowledgeBase{}, err
		}
	}
	if in.RerankerModel != nil {
		if *in.RerankerModel == "" {
			p.ClearReranker = true
		} else if err := s.checkReranker(in.RerankerModel); err != nil {
			return KnowledgeBase{}, err
		} else {
			p.RerankerModel = in.RerankerModel
		}
	}
	out, err := s.repo().UpdateKnowledgeBase(ctx, accountID, id, p)
	if errors.Is(err, errSourceNotFound) {
		return out, invalid("source_ids", "every source must be an existing source of the account")
	}
	return out, err
}

// DeleteKnowledgeBase soft-deletes a knowledge base no agent references.
func (s *Service) DeleteKnowledgeBase(ctx context.Context, accountID, id string) error {
	if _, err := s.repo().KnowledgeBase(ctx, accountID, id); err != nil {
		return err
	}
	if s.cfg.AgentsUsingKB != nil {
		used, err := s.cfg.AgentsUsingKB(ctx, accountID, id)
		if err != nil {
			return err
		}
		if used {
			return fmt.Errorf("%w: remove it from the agents that use it first", ErrReferencedByAgent)
		}
	}
	return s.repo().DeleteKnowledgeBase(ctx, accountID, id)
}
