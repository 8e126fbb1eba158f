package accounts

import (
	"context"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// The account's settings as its own people see them: API keys, members
// and roles, credits. Who may do what is decided here, from the
// principal, so that every client (the console too) meets the same rules:
// owners and admins see and revoke every key of the account and change
// roles; a member sees and revokes only their own keys; only an owner
// makes or unmakes owners; the last owner stays one.

// The area's refusals, in the fault vocabulary with the sentence the
// client reads.
var (
	ErrForbidden   error = &fault.Forbidden{Msg: "Your role in the account does not allow this"}
	ErrLastOwner   error = &fault.Conflict{Msg: "The account's last owner cannot be demoted; make another member an owner first"}
	ErrRole        error = fault.InvalidField("role", "Role must be owner, admin or member")
	ErrTooManyKeys error = &fault.Conflict{Msg: fmt.Sprintf("The account holds %d API keys, the most it may; revoke one first", MaxKeysPerAccount)}
)

// MaxKeysPerAccount bounds the API keys an account may hold that are not
// revoked: a credential must not be able to fill the database with keys.
const MaxKeysPerAccount = 1000

// MaxRevokedKeysKept bounds the revoked keys an account's list keeps (the
// most recently revoked): older ones are deleted when a key is created, so
// creating and revoking in a loop cannot grow the table either.
const MaxRevokedKeysKept = 1000

// Keys lists the account's keys the principal may see, newest first.
func (s *Service) Keys(ctx context.Context, p auth.Principal) ([]APIKey, error) {
	all, err := auth.APIKeys(ctx, s.db, p.AccountID)
	if err != nil {
		return nil, err
	}
	if p.CanAdminister() {
		return all, nil
	}
	var mine []APIKey
	for _, k := range all {
		if p.UserID != "" && k.UserID == p.UserID {
			mine = append(mine, k)
		}
	}
	return mine, nil
}

// CreateKey issues a key of the principal's user (none for an account
// key) in the account, with a role no stronger than the principal's. It
// answers the secret, which is never stored or answered again.
func (s *Service) CreateKey(ctx context.Context, p auth.Principal, name, role string) (APIKey, string, error) {
	if role == "" {
		role = store.RoleMember
	}
	if !store.ValidRole(role) {
		return APIKey{}, "", ErrRole
	}
	if store.RoleStrength(role) > store.RoleStrength(p.Role) {
		return APIKey{}, "", ErrForbidden
	}
	all, err := auth.APIKeys(ctx, s.db, p.AccountID)
	if err != nil {
		return APIKey{}, "", err
	}
	live := 0
	for _, k := range all {
		if k.RevokedAt == nil {
			live++
		}
	}
	if live >= MaxKeysPerAccount {
		return APIKey{}, "", ErrTooManyKeys
	}
	if len(all)-live > MaxRevokedKeysKept {
		if err := auth.PruneRevokedAPIKeys(ctx, s.db, p.AccountID, MaxRevokedKeysKept); err != nil {
			return APIKey{}, "", err
		}
	}
	secret, prefix, hash := auth.NewKey()
	k, err := auth.CreateAPIKey(ctx, s.db, APIKey{AccountID: p.AccountID, UserID: p.UserID, Name: name, Prefix: prefix, Role: role}, hash)
	return k, secret, err
}

// RevokeKey revokes a key of the account: any for owners and admins, a
// member's own only (another's is a 404 to them, as it is invisible).
func (s *Service) RevokeKey(ctx context.Context, p auth.Principal, id string) (APIKey, error) {
	k, err := auth.APIKeyInAccount(ctx, s.db, p.AccountID, id)
	if err != nil {
		return APIKey{}, err
	}
	if !p.CanAdminister() && (p.UserID == "" || k.UserID != p.UserID) {
		return APIKey{}, store.ErrNotFound
	}
	if err := auth.RevokeAPIKey(ctx, s.db, k.ID); err != nil {
		return APIKey{}, err
	}
	return auth.APIKeyInAccount(ctx, s.db, p.AccountID, id)
}

// Members lists the account's members.
func (s *Service) Members(ctx context.Context, accountID string) ([]Member, error) {
	return directory.AccountMembers(ctx, s.db, accountID)
}

// SetMemberRole changes a member's role: owners and admins only; making
// or unmaking an owner needs an owner; the last owner stays one.
func (s *Service) SetMemberRole(ctx context.Context, p auth.Principal, userID, role string) (Member, error) {
	if !store.ValidRole(role) {
		return Member{}, ErrRole
	}
	members, err := directory.AccountMembers(ctx, s.db, p.AccountID)
	if err != nil {
		return Member{}, err
	}
	var target *Member
	owners := 0
	for i := range members {
		if members[i].Role == store.RoleOwner {
			owners++
		}
		if members[i].UserID == userID {
			target = &members[i]
		}
	}
	if target == nil {
		return Member{}, store.ErrNotFound
	}
	if !p.CanAdminister() || ((role == store.RoleOwner || target.Role == store.RoleOwner) && p.Role != store.RoleOwner) {
		return Member{}, ErrForbidden
	}
	if target.Role == store.RoleOwner && role != store.RoleOwner && owners == 1 {
		return Member{}, ErrLastOwner
	}
	if err := directory.AddMember(ctx, s.db, p.AccountID, userID, role); err != nil {
		return Member{}, err
	}
	target.Role = role
	return *target, nil
}

// Credits is the account's balance, its latest ledger entries and the
// credits it spent per UTC day (oldest first, days without spending as 0).
type Credits struct {
	Balance float64
	Ledger  []billing.LedgerEntry
	Days    []DaySpent
}

// DaySpent is one day of spending.
type DaySpent struct {
	Day     string // 2006-01-02
	Credits float64
}

// Credits answers the balance, up to ledgerLimit entries and days of spending.
func (s *Service) Credits(ctx context.Context, accountID string, ledgerLimit, days int, now time.Time) (Credits, error) {
	var out Credits
	var err error
	if out.Balance, err = billing.NewCredits(s.db).Balance(ctx, accountID); err != nil {
		return out, err
	}
	if out.Ledger, err = billing.NewCredits(s.db).Ledger(ctx, accountID, ledgerLimit); err != nil {
		return out, err
	}
	first := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -(days - 1))
	spent, err := billing.NewCredits(s.db).DailySpent(ctx, accountID, first)
	if err != nil {
		return out, err
	}
	for d := range days {
		day := first.AddDate(0, 0, d).Format(time.DateOnly)
		out.Days = append(out.Days, DaySpent{Day: day, Credits: spent[day]})
	}
	return out, nil
}
