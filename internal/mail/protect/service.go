package protect

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
)

// Auto-block modes: whether a governance BLOCK on an authenticated inbound
// sender adds them to the blocklist.
const (
	ModeDisabled       = "disabled"
	ModeInput          = "input"
	ModeInputAndOutput = "input_and_output"
)

// Errors the API maps to 422.
var (
	ErrBadMode      = fault.FieldSentinel([]any{"body", "mode"}, "value_error", "mode must be one of disabled, input, input_and_output")
	ErrBadMatchType = fault.FieldSentinel([]any{"body", "match_type"}, "value_error", "match_type must be address or domain")
	ErrBadSender    = fault.FieldSentinel([]any{"body", "sender_email"}, "value_error", "not a valid sender")
)

// DefaultQueueCeiling is the QUEUED backlog past which an account's
// inbound mail is paused.
const DefaultQueueCeiling = 500

// Service is the inbound protection area.
type Service struct{ Deps }

// New builds the service from its dependencies.
func New(d Deps) *Service { return &Service{Deps: d} }

// Deps is what the protection service is built from (New).
type Deps struct {
	DB   *store.DB
	Runs *runs.Service
	// QueueCeiling arms the breaker when an account's parked email runs
	// pass it; it lifts itself once they drain to half of it.
	QueueCeiling int
	// OnBreaker, when set, hears the breaker move: armed (inbound paused)
	// or lifted (by draining or a manual resume), with the backlog then.
	// The server wires it to the alerts area. Its error is logged: the
	// breaker's position is what matters to mail.
	OnBreaker func(ctx context.Context, accountID string, armed bool, backlog, ceiling int) error
}

func (s *Service) repo() repo { return repo{s.DB} }

func (s *Service) moved(ctx context.Context, accountID string, armed bool, backlog int) {
	if s.OnBreaker == nil {
		return
	}
	if err := s.OnBreaker(ctx, accountID, armed, backlog, s.ceiling()); err != nil {
		slog.WarnContext(ctx, "inbound breaker: alert", "account_id", accountID, "armed", armed, "err", err)
	}
}

func (s *Service) ceiling() int {
	if s.QueueCeiling > 0 {
		return s.QueueCeiling
	}
	return DefaultQueueCeiling
}

// BlockedList is a page of the blocklist and the account's mode.
type BlockedList struct {
	Items         []BlockedSender
	Total         int
	AutoBlockMode string
}

// Blocked lists the account's blocklist, newest first.
func (s *Service) Blocked(ctx context.Context, accountID string, limit, offset int) (BlockedList, error) {
	items, total, err := s.repo().blocked(ctx, accountID, limit, offset)
	if err != nil {
		return BlockedList{}, err
	}
	st, err := s.repo().stateOf(ctx, accountID)
	if err != nil {
		return BlockedList{}, err
	}
	return BlockedList{Items: items, Total: total, AutoBlockMode: st.AutoBlockMode}, nil
}

// Block adds an address or a domain to the blocklist (idempotent).
func (s *Service) Block(ctx context.Context, accountID, sender, matchType, note, source string) (BlockedSender, error) {
	if matchType == "" {
		matchType = "address"
	}
	sender = strings.ToLower(strings.TrimSpace(sender))
	switch matchType {
	case "address":
		if a := Address(sender); a == "" || a != sender || DomainOf(a) == "" {
			return BlockedSender{}, fmt.Errorf("%w address: %q", ErrBadSender, sender)
		}
	case "domain":
		sender = strings.TrimPrefix(sender, "@")
		if !validDomain(sender) {
			return BlockedSender{}, fmt.Errorf("%w domain: %q", ErrBadSender, sender)
		}
	default:
		return BlockedSender{}, ErrBadMatchType
	}
	if source == "" {
		source = "manual"
	}
	return s.repo().block(ctx, BlockedSender{AccountID: accountID, SenderEmail: sender, MatchType: matchType, Source: source, Note: note})
}

// validDomain accepts host names of letters, digits, hyphens and dots,
// with at least two labels.
func validDomain(d string) bool {
	if len(d) < 3 || len(d) > 253 || !strings.Contains(d, ".") || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Unblock removes an entry (store.ErrNotFound when the account has none by id).
func (s *Service) Unblock(ctx context.Context, accountID, id string) error {
	return s.repo().unblock(ctx, accountID, id)
}

// SetMode sets the auto-block mode.
func (s *Service) SetMode(ctx context.Context, accountID, mode string) error {
	switch mode {
	case ModeDisabled, ModeInput, ModeInputAndOutput:
	default:
		return ErrBadMode
	}
	return s.repo().setAutoBlockMode(ctx, accountID, mode)
}

// IsBlocked reports whether the account blocks sender (an address).
func (s *Service) IsBlocked(ctx context.Context, accountID, sender string) (bool, error) {
	sender = strings.ToLower(sender)
	if sender == "" {
		return false, nil
	}
	return s.repo().senderBlocked(ctx, accountID, sender, DomainAndParents(DomainOf(sender)))
}

// Reject records a discarded message.
func (s *Service) Reject(ctx context.Context, r Rejection) error {
	telemetry.MailRefused(ctx, r.Reason, r.AccountID, r.AgentID)
	_, err := s.repo().recordRejection(ctx, r)
	return err
}

// Rejections lists the account's discarded messages, newest first.
func (s *Service) Rejections(ctx context.Context, accountID, agentID string, limit int) ([]Rejection, error) {
	return s.repo().rejections(ctx, accountID, agentID, limit)
}

// Status is the account's breaker position and parked backlog.
type Status struct {
	Paused        bool
	QueuedBacklog int
}

// Status answers whether inbound is paused and the QUEUED backlog.
func (s *Service) Status(ctx context.Context, accountID string) (Status, error) {
	st, err := s.repo().stateOf(ctx, accountID)
	if err != nil {
		return Status{}, err
	}
	n, err := s.repo().queuedEmailRuns(ctx, accountID)
	return Status{Paused: st.Paused, QueuedBacklog: n}, err
}

// Paused reports whether the account's inbound is paused.
func (s *Service) Paused(ctx context.Context, accountID string) (bool, error) {
	st, err := s.repo().stateOf(ctx, accountID)
	return st.Paused, err
}

// Evaluate moves the breaker: armed when the backlog passes the ceiling,
// lifted once it has drained to half of it. It returns the position.
func (s *Service) Evaluate(ctx context.Context, accountID string) (bool, error) {
	st, err := s.Status(ctx, accountID)
	if err != nil {
		return false, err
	}
	switch {
	case st.QueuedBacklog > s.ceiling():
		changed, err := s.repo().setPaused(ctx, accountID, true)
		if err == nil && changed {
			s.moved(ctx, accountID, true, st.QueuedBacklog)
		}
		return true, err
	case st.Paused && st.QueuedBacklog <= s.ceiling()/2:
		changed, err := s.repo().setPaused(ctx, accountID, false)
		if err == nil && changed {
			s.moved(ctx, accountID, false, st.QueuedBacklog)
		}
		return false, err
	}
	return st.Paused, nil
}

// Resume lifts the pause once; the next evaluation arms it again if the
// backlog is still above the ceiling. resumed reports whether it was paused.
func (s *Service) Resume(ctx context.Context, accountID string) (bool, error) {
	resumed, err := s.repo().setPaused(ctx, accountID, false)
	if err == nil && resumed {
		n, qerr := s.repo().queuedEmailRuns(ctx, accountID)
		if qerr != nil {
			n = -1
		}
		s.moved(ctx, accountID, false, n)
	}
	return resumed, err
}

// OldestQueued lists up to limit of the account's parked email runs,
// oldest first: the ones cancelled first, and the ones inbound mail's
// catch-up releases first.
func (s *Service) OldestQueued(ctx context.Context, accountID string, limit int) ([]string, error) {
	return s.repo().oldestQueuedEmailRuns(ctx, accountID, limit)
}

// CancelQueued fails every parked email run of the account and returns
// how many it cancelled. They consumed nothing while parked.
func (s *Service) CancelQueued(ctx context.Context, accountID string) (int, error) {
	n := 0
	for {
		ids, err := s.OldestQueued(ctx, accountID, 200)
		if err != nil {
			return n, err
		}
		progressed := false
		for _, id := range ids {
			if _, err := s.Runs.Cancel(ctx, accountID, id); err != nil {
				if errors.Is(err, runs.ErrTerminal) {
					continue
				}
				return n, err
			}
			n++
			progressed = true
		}
		if len(ids) < 200 || !progressed {
			return n, nil
		}
	}
}

// Mode answers the account's auto-block mode.
func (s *Service) Mode(ctx context.Context, accountID string) (string, error) {
	st, err := s.repo().stateOf(ctx, accountID)
	return st.AutoBlockMode, err
}

// PausedAccounts lists up to limit accounts whose inbound mail is paused,
// across accounts: with those holding parked email runs, the catch-up
// sweep's work list.
func (s *Service) PausedAccounts(ctx context.Context, limit int) ([]string, error) {
	return s.repo().pausedAccounts(ctx, limit)
}

// PruneRejections forgets discarded messages recorded before before,
// across accounts (the retention sweep).
func (s *Service) PruneRejections(ctx context.Context, before time.Time) error {
	return s.repo().pruneRejections(ctx, before)
}
