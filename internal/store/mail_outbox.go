package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// MailMessage is an outbound message, signed and ready to hand over.
type MailMessage struct {
	ID, AccountID, AgentID, RunID, StepKey string
	MailFrom, Subject                      string
	CreatedAt                              time.Time
}

// MailDelivery is one envelope recipient's copy of a message.
type MailDelivery struct {
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

// MailMessageForStep finds the message a run's step already queued (a
// step run again after a crash), or ErrNotFound.
func (db *DB) MailMessageForStep(ctx context.Context, accountID, runID, stepKey string) (MailMessage, []MailDelivery, error) {
	var m MailMessage
	err := db.W.QueryRowContext(ctx, `SELECT id, mail_from, subject FROM mail_messages WHERE account_id = $1 AND run_id = $2 AND step_key = $3`,
		accountID, runID, stepKey).Scan(&m.ID, &m.MailFrom, &m.Subject)
	if errors.Is(err, sql.ErrNoRows) {
		return MailMessage{}, nil, ErrNotFound
	}
	if err != nil {
		return MailMessage{}, nil, err
	}
	ds, err := db.MailDeliveries(ctx, accountID, m.ID)
	return m, ds, err
}

// InsertMailMessage stores a message and its copies (Recipient and Raw
// set) as queued deliveries within tx, and returns them with their ids. A
// second message for the same run step answers ErrConflict.
func InsertMailMessage(ctx context.Context, tx *sql.Tx, m MailMessage, copies []MailDelivery) (MailMessage, []MailDelivery, error) {
	m.ID, m.CreatedAt = NewID(), Now()
	_, err := tx.ExecContext(ctx, `INSERT INTO mail_messages (id, account_id, agent_id, run_id, step_key, mail_from, subject, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, m.ID, m.AccountID, nullable(m.AgentID), nullable(m.RunID), nullable(m.StepKey),
		m.MailFrom, m.Subject, m.CreatedAt)
	if err != nil {
		if isUniqueViolation(err) {
			return MailMessage{}, nil, ErrConflict
		}
		return MailMessage{}, nil, err
	}
	ds := make([]MailDelivery, 0, len(copies))
	for _, c := range copies {
		if c.ID == "" {
			c.ID = NewID()
		}
		d := MailDelivery{ID: c.ID, MessageID: m.ID, AccountID: m.AccountID, Recipient: c.Recipient, Status: DeliveryQueued, UpdatedAt: m.CreatedAt}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mail_deliveries (id, message_id, account_id, recipient, raw, status, attempts, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, 0, $7)`, d.ID, d.MessageID, d.AccountID, d.Recipient, c.Raw, d.Status, d.UpdatedAt); err != nil {
			return MailMessage{}, nil, err
		}
		ds = append(ds, d)
	}
	return m, ds, nil
}

const deliveryColumns = `id, message_id, account_id, recipient, status, attempts, COALESCE(smtp_code, 0), COALESCE(last_error, ''), updated_at, delivered_at`

func scanDelivery(row interface{ Scan(...any) error }) (MailDelivery, error) {
	var d MailDelivery
	var at sql.NullTime
	err := row.Scan(&d.ID, &d.MessageID, &d.AccountID, &d.Recipient, &d.Status, &d.Attempts, &d.SMTPCode, &d.LastError, &d.UpdatedAt, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return MailDelivery{}, ErrNotFound
	}
	if at.Valid {
		t := at.Time.UTC()
		d.DeliveredAt = &t
	}
	d.UpdatedAt = d.UpdatedAt.UTC()
	return d, err
}

// MailDeliveries lists a message's deliveries.
func (db *DB) MailDeliveries(ctx context.Context, accountID, messageID string) ([]MailDelivery, error) {
	rows, err := db.W.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM mail_deliveries WHERE account_id = $1 AND message_id = $2 ORDER BY id`, accountID, messageID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MailDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// MailDeliveryWork returns a delivery with its message's sender and raw
// text, for the job that hands it over.
func (db *DB) MailDeliveryWork(ctx context.Context, accountID, deliveryID string) (MailDelivery, MailMessage, error) {
	var m MailMessage
	var d MailDelivery
	var at sql.NullTime
	err := db.R.QueryRowContext(ctx, `SELECT d.id, d.message_id, d.account_id, d.recipient, d.status, d.attempts, COALESCE(d.smtp_code, 0),
		COALESCE(d.last_error, ''), d.updated_at, d.delivered_at, m.mail_from, d.raw FROM mail_deliveries d JOIN mail_messages m ON m.id = d.message_id
		WHERE d.account_id = $1 AND d.id = $2`, accountID, deliveryID).Scan(&d.ID, &d.MessageID, &d.AccountID, &d.Recipient, &d.Status,
		&d.Attempts, &d.SMTPCode, &d.LastError, &d.UpdatedAt, &at, &m.MailFrom, &d.Raw)
	if errors.Is(err, sql.ErrNoRows) {
		return MailDelivery{}, MailMessage{}, ErrNotFound
	}
	m.ID, m.AccountID = d.MessageID, d.AccountID
	return d, m, err
}

// RecordMailAttempt stores an attempt's outcome: status, the SMTP reply
// code (0 when there was none) and the error ("" when sent).
func (db *DB) RecordMailAttempt(ctx context.Context, accountID, deliveryID, status string, code int, lastErr string) error {
	now := Now()
	var delivered any
	if status == DeliverySent {
		delivered = now
	}
	var codeArg any
	if code > 0 {
		codeArg = code
	}
	_, err := db.W.ExecContext(ctx, `UPDATE mail_deliveries SET status = $1, attempts = attempts + 1, smtp_code = $2, last_error = $3,
		updated_at = $4, delivered_at = $5 WHERE account_id = $6 AND id = $7 AND status = 'queued'`,
		status, codeArg, nullable(lastErr), now, delivered, accountID, deliveryID)
	return err
}

// MailDeliveryOf reports whether the account has the copy with this id
// sent to recipient.
func (db *DB) MailDeliveryOf(ctx context.Context, accountID, id, recipient string) (bool, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_deliveries WHERE account_id = $1 AND id = $2 AND recipient = $3`,
		accountID, id, recipient).Scan(&n)
	return n > 0, err
}

// RecordLateBounce marks the account's copy with this id, sent to
// recipient, bounced: the receiving server refused it after accepting it.
// It reports whether the account has such a copy (one already bounced or
// failed stays as it is).
func (db *DB) RecordLateBounce(ctx context.Context, accountID, id, recipient string, code int, lastErr string) (bool, error) {
	known, err := db.MailDeliveryOf(ctx, accountID, id, recipient)
	if err != nil || !known {
		return false, err
	}
	_, err = db.W.ExecContext(ctx, `UPDATE mail_deliveries SET status = $1, smtp_code = $2, last_error = $3, updated_at = $4
		WHERE account_id = $5 AND id = $6 AND status IN ('queued', 'sent')`, DeliveryBounced, code, lastErr, Now(), accountID, id)
	return true, err
}
