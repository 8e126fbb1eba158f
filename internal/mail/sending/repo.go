package sending

// The outbound side keeps its own persistence (issue 31's vertical
// slices): the tables mail_optouts, mail_messages and mail_deliveries are
// read and written only here; other areas reach them through the
// Service (inbound's late bounces, the API's delivery lists).

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// OptOut is a recipient's opt-out of an account's agent mail: of one
// agent, or of all of them (AgentID "").
type OptOut struct {
	ID, AccountID, AgentID, AgentName string
	RecipientEmail, Reason, Comment   string
	CreatedAt                         time.Time
}

// Message is an outbound message, signed and ready to hand over.
type Message struct {
	ID, AccountID, AgentID, RunID, StepKey string
	MailFrom, Subject                      string
	CreatedAt                              time.Time
}

// Delivery is one envelope recipient's copy of a message.
type Delivery struct {
	ID, MessageID, AccountID, Recipient string
	Raw                                 string // the signed copy; only set for the job that hands it over
	Status                              string // queued, sent, bounced, failed
	Attempts, SMTPCode                  int
	LastError                           string
	UpdatedAt                           time.Time
	DeliveredAt                         *time.Time
}

// Delivery statuses.
const (
	DeliveryQueued  = "queued"
	DeliverySent    = "sent"
	DeliveryBounced = "bounced" // refused for good by the receiving server
	DeliveryFailed  = "failed"  // out of attempts
)

// repo is the area's SQL.
type repo struct{ db *store.DB }

// orNull stores "" as NULL.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// optOutScope is the unique key's scope column: the agent, or '*'.
func optOutScope(agentID string) string {
	if agentID == "" {
		return "*"
	}
	return agentID
}

const optOutColumns = `o.id, o.account_id, COALESCE(o.agent_id, ''), o.recipient_email, COALESCE(o.reason, ''), COALESCE(o.comment, ''), o.created_at`

const optOutFrom = ` FROM mail_optouts o`

func scanOptOut(row store.Scanner) (OptOut, error) {
	var o OptOut
	err := row.Scan(&o.ID, &o.AccountID, &o.AgentID, &o.RecipientEmail, &o.Reason, &o.Comment, &o.CreatedAt)
	o.CreatedAt = o.CreatedAt.UTC()
	return o, err
}

// nameAgents sets the name of each opt-out's agent ("" for an account-wide
// one, or an agent that no longer exists), read from the agents area's
// table through agentrow, on q.
func nameAgents(ctx context.Context, q store.Querier, accountID string, outs []OptOut) error {
	var ids []string
	for _, o := range outs {
		if o.AgentID != "" {
			ids = append(ids, o.AgentID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	names, err := agentrow.Names(ctx, q, accountID, ids)
	if err != nil {
		return err
	}
	for i := range outs {
		outs[i].AgentName = names[outs[i].AgentID]
	}
	return nil
}

// addOptOut records an opt-out; recording it again is a no-op that
// answers the existing one. An unknown account is store.ErrNotFound.
func (r repo) addOptOut(ctx context.Context, o OptOut) (OptOut, error) {
	o.RecipientEmail = strings.ToLower(o.RecipientEmail)
	o.ID, o.CreatedAt = store.NewID(), store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO mail_optouts (id, account_id, agent_id, scope_key, recipient_email, reason, comment, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account_id, recipient_email, scope_key) DO NOTHING`,
		o.ID, o.AccountID, orNull(o.AgentID), optOutScope(o.AgentID), o.RecipientEmail, orNull(o.Reason), orNull(o.Comment), o.CreatedAt)
	if err != nil {
		if store.IsForeignKeyViolation(err) {
			return OptOut{}, store.ErrNotFound
		}
		return OptOut{}, err
	}
	stored, err := store.One(ctx, r.db.W, scanOptOut, `SELECT `+optOutColumns+optOutFrom+`
		WHERE o.account_id = $1 AND o.recipient_email = $2 AND o.scope_key = $3`, o.AccountID, o.RecipientEmail, optOutScope(o.AgentID))
	if err != nil {
		return stored, err
	}
	one := []OptOut{stored}
	err = nameAgents(ctx, r.db.W, o.AccountID, one)
	return one[0], err
}

// optOuts lists an account's opt-outs, newest first, with the total;
// with agentID, those of that agent and the account-wide ones.
func (r repo) optOuts(ctx context.Context, accountID, agentID string, limit, offset int) ([]OptOut, int, error) {
	where := `o.account_id = $1`
	args := []any{accountID}
	if agentID != "" {
		where += ` AND (o.agent_id = $2 OR o.agent_id IS NULL)`
		args = append(args, agentID)
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_optouts o WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	out, err := store.All(ctx, r.db.R, scanOptOut, `SELECT `+optOutColumns+optOutFrom+`
		WHERE `+where+` ORDER BY o.created_at DESC, o.id DESC LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nameAgents(ctx, r.db.R, accountID, out)
}

// optedOut returns which of recipients (lower-cased) opted out of the
// agent's mail or of all the account's mail.
func (r repo) optedOut(ctx context.Context, accountID, agentID string, recipients []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(recipients) == 0 {
		return out, nil
	}
	args := []any{accountID, optOutScope(agentID)}
	ph := make([]string, len(recipients))
	for i, rc := range recipients {
		args = append(args, strings.ToLower(rc))
		ph[i] = "$" + strconv.Itoa(i+3)
	}
	found, err := store.All(ctx, r.db.R, func(row store.Scanner) (string, error) {
		var rc string
		return rc, row.Scan(&rc)
	}, `SELECT recipient_email FROM mail_optouts WHERE account_id = $1
		AND (scope_key = $2 OR scope_key = '*') AND recipient_email IN (`+strings.Join(ph, ", ")+`)`, args...)
	for _, rc := range found {
		out[rc] = true
	}
	return out, err
}

// deleteOptOut revokes one of an account's opt-outs, or answers store.ErrNotFound.
func (r repo) deleteOptOut(ctx context.Context, accountID, id string) error {
	return store.Affected(ctx, r.db.W, `DELETE FROM mail_optouts WHERE account_id = $1 AND id = $2`, accountID, id)
}

// messageForStep finds the message a run's step already queued (a step
// run again after a crash), or store.ErrNotFound.
func (r repo) messageForStep(ctx context.Context, accountID, runID, stepKey string) (Message, []Delivery, error) {
	m, err := store.One(ctx, r.db.W, func(row store.Scanner) (Message, error) {
		var m Message
		return m, row.Scan(&m.ID, &m.MailFrom, &m.Subject)
	}, `SELECT id, mail_from, subject FROM mail_messages WHERE account_id = $1 AND run_id = $2 AND step_key = $3`, accountID, runID, stepKey)
	if err != nil {
		return Message{}, nil, err
	}
	ds, err := r.deliveries(ctx, accountID, m.ID)
	return m, ds, err
}

// insertMessage stores a message and its copies (Recipient and Raw set)
// as queued deliveries within tx, and returns them with their ids. A
// second message for the same run step answers store.ErrConflict.
func insertMessage(ctx context.Context, tx *sql.Tx, m Message, copies []Delivery) (Message, []Delivery, error) {
	m.ID, m.CreatedAt = store.NewID(), store.Now()
	_, err := tx.ExecContext(ctx, `INSERT INTO mail_messages (id, account_id, agent_id, run_id, step_key, mail_from, subject, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, m.ID, m.AccountID, orNull(m.AgentID), orNull(m.RunID), orNull(m.StepKey),
		m.MailFrom, m.Subject, m.CreatedAt)
	if err != nil {
		if store.IsUniqueViolation(err) {
			return Message{}, nil, store.ErrConflict
		}
		return Message{}, nil, err
	}
	ds := make([]Delivery, 0, len(copies))
	for _, c := range copies {
		if c.ID == "" {
			c.ID = store.NewID()
		}
		d := Delivery{ID: c.ID, MessageID: m.ID, AccountID: m.AccountID, Recipient: c.Recipient, Status: DeliveryQueued, UpdatedAt: m.CreatedAt}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mail_deliveries (id, message_id, account_id, recipient, raw, status, attempts, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, 0, $7)`, d.ID, d.MessageID, d.AccountID, d.Recipient, c.Raw, d.Status, d.UpdatedAt); err != nil {
			return Message{}, nil, err
		}
		ds = append(ds, d)
	}
	return m, ds, nil
}

const deliveryColumns = `d.id, d.message_id, d.account_id, d.recipient, d.status, d.attempts, COALESCE(d.smtp_code, 0), COALESCE(d.last_error, ''), d.updated_at, d.delivered_at`

// scanDelivery reads deliveryColumns, then extra (the message's sender
// and the raw copy, for the job that hands it over).
func scanDelivery(row store.Scanner, extra ...any) (Delivery, error) {
	var d Delivery
	var at sql.NullTime
	err := row.Scan(append([]any{&d.ID, &d.MessageID, &d.AccountID, &d.Recipient, &d.Status, &d.Attempts, &d.SMTPCode, &d.LastError, &d.UpdatedAt, &at}, extra...)...)
	if at.Valid {
		t := at.Time.UTC()
		d.DeliveredAt = &t
	}
	d.UpdatedAt = d.UpdatedAt.UTC()
	return d, err
}

// deliveries lists a message's deliveries.
func (r repo) deliveries(ctx context.Context, accountID, messageID string) ([]Delivery, error) {
	return store.All(ctx, r.db.W, func(row store.Scanner) (Delivery, error) { return scanDelivery(row) },
		`SELECT `+deliveryColumns+` FROM mail_deliveries d WHERE d.account_id = $1 AND d.message_id = $2 ORDER BY d.id`, accountID, messageID)
}

// deliveryWork returns a delivery with its message's sender and raw
// text, for the job that hands it over.
func (r repo) deliveryWork(ctx context.Context, accountID, deliveryID string) (Delivery, Message, error) {
	var m Message
	d, err := store.One(ctx, r.db.R, func(row store.Scanner) (Delivery, error) {
		var raw string
		d, err := scanDelivery(row, &m.MailFrom, &raw)
		d.Raw = raw
		return d, err
	}, `SELECT `+deliveryColumns+`, m.mail_from, d.raw FROM mail_deliveries d JOIN mail_messages m ON m.id = d.message_id
		WHERE d.account_id = $1 AND d.id = $2`, accountID, deliveryID)
	if err != nil {
		return Delivery{}, Message{}, err
	}
	m.ID, m.AccountID = d.MessageID, d.AccountID
	return d, m, nil
}

// recordAttempt stores an attempt's outcome: status, the SMTP reply code
// (0 when there was none) and the error ("" when sent).
func (r repo) recordAttempt(ctx context.Context, accountID, deliveryID, status string, code int, lastErr string) error {
	now := store.Now()
	var delivered any
	if status == DeliverySent {
		delivered = now
	}
	var codeArg any
	if code > 0 {
		codeArg = code
	}
	_, err := r.db.W.ExecContext(ctx, `UPDATE mail_deliveries SET status = $1, attempts = attempts + 1, smtp_code = $2, last_error = $3,
		updated_at = $4, delivered_at = $5 WHERE account_id = $6 AND id = $7 AND status = 'queued'`,
		status, codeArg, orNull(lastErr), now, delivered, accountID, deliveryID)
	return err
}

// deliveryOf reports whether the account has the copy with this id sent
// to recipient.
func (r repo) deliveryOf(ctx context.Context, accountID, id, recipient string) (bool, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_deliveries WHERE account_id = $1 AND id = $2 AND recipient = $3`,
		accountID, id, recipient).Scan(&n)
	return n > 0, err
}

// recordLateBounce marks the account's copy with this id, sent to
// recipient, bounced: the receiving server refused it after accepting it.
// It reports whether the account has such a copy (one already bounced or
// failed stays as it is).
func (r repo) recordLateBounce(ctx context.Context, accountID, id, recipient string, code int, lastErr string) (bool, error) {
	known, err := r.deliveryOf(ctx, accountID, id, recipient)
	if err != nil || !known {
		return false, err
	}
	_, err = r.db.W.ExecContext(ctx, `UPDATE mail_deliveries SET status = $1, smtp_code = $2, last_error = $3, updated_at = $4
		WHERE account_id = $5 AND id = $6 AND status IN ('queued', 'sent')`, DeliveryBounced, code, lastErr, store.Now(), accountID, id)
	return true, err
}

// agentName returns the name of one of an account's agents ("" when it
// does not exist): the display name of the mail it sends, read from the
// agents area's table through agentrow.
func (r repo) agentName(ctx context.Context, accountID, agentID string) (string, error) {
	names, err := agentrow.Names(ctx, r.db.R, accountID, []string{agentID})
	return names[agentID], err
}
