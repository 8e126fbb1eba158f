package solutions

import "context"

// resourceKind is the link kind of each resource a plan names: the kind's
// queries (linkSQL) find, check and link it.
var resourceKind = map[string]string{ResourceSource: LinkSources, ResourceKnowledgeBase: LinkKnowledgeBases, ResourceAgent: LinkAgents}

// lookup finds the account's resources by name for the planner.
func (s *Service) lookup(ctx context.Context, accountID string) Lookup {
	return func(resource, name string) (string, bool) {
		kind, ok := resourceKind[resource]
		if !ok {
			return "", false
		}
		id, err := s.repo.idNamed(ctx, accountID, kind, name)
		return id, err == nil
	}
}
