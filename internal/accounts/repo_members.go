package accounts

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Member is a user of an account with their role, as the account's
// settings list them.
type Member struct {
	UserID    string
	Email     string
	Name      string
	Role      string
	CreatedAt time.Time
}

func scanMember(row store.Scanner) (Member, error) {
	var m Member
	err := row.Scan(&m.UserID, &m.Email, &m.Name, &m.Role, &m.CreatedAt)
	return m, err
}

// accountMembers lists an account's members by name.
func accountMembers(ctx context.Context, db *store.DB, accountID string) ([]Member, error) {
	return store.All(ctx, db.R, scanMember, `SELECT m.user_id, COALESCE(u.email, ''), u.name, m.role, m.created_at
		FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 ORDER BY u.name, m.user_id`, accountID)
}
