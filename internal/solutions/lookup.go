package solutions

import (
	"context"
	"strings"
)

// lookup finds the account's resources by name for the planner.
func (s *Service) lookup(ctx context.Context, accountID string) Lookup {
	return func(resource, name string) (string, bool) {
		table := map[string]string{ResourceSource: "sources", ResourceKnowledgeBase: "knowledge_bases", ResourceAgent: "agents"}[resource]
		if table == "" {
			return "", false
		}
		var id string
		err := s.DB.R.QueryRowContext(ctx, `SELECT id FROM `+table+` WHERE account_id = $1 AND deleted_at IS NULL AND LOWER(name) = $2
			ORDER BY id LIMIT 1`, accountID, strings.ToLower(strings.TrimSpace(name))).Scan(&id)
		return id, err == nil
	}
}
