// Package sending owns outgoing mail: messages built with go-message and
// DKIM-signed with the sending domain's key, queued durably (one copy per
// recipient, each with its own one-click unsubscribe link) and handed to
// the configured relay or straight to the recipient's mail exchangers by
// River jobs that retry with backoff and record bounces; the send_email
// step; and recipients' opt-outs, which every send honours.
package sending

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	gomail "github.com/emersion/go-message/mail"
	"github.com/riverqueue/river"
)

// Config tunes outbound mail and names the queue it delivers through.
type Config struct {
	// Queue takes the delivery jobs.
	Queue jobs.Enqueuer
	// PublicURL says where recipients reach this server (unsubscribe
	// links). A function: the server may learn its address only once it
	// listens, after the service is built.
	PublicURL func() string
	// Bounds on what one send may carry.
	MaxRecipients   int // to + cc + bcc (default 50)
	MaxSubjectBytes int // default 998, the longest line RFC 5322 allows
	MaxBodyBytes    int // default 512 KiB
	// MaxAttempts bounds the delivery attempts of one copy (default 12,
	// about a day with River's backoff).
	MaxAttempts int
	// AttemptTimeout bounds one attempt (default 2 minutes).
	AttemptTimeout time.Duration
}

func (c *Config) defaults() {
	if c.MaxRecipients <= 0 {
		c.MaxRecipients = 50
	}
	if c.MaxSubjectBytes <= 0 {
		c.MaxSubjectBytes = 998
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 512 << 10
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 12
	}
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = 2 * time.Minute
	}
}

// Identities answers who an account's mail is sent as: its primary
// verified domain, or the shared domain (mail/domains implements it).
type Identities interface {
	Sender(ctx context.Context, accountID string) (Identity, error)
}

// Service sends mail and keeps opt-outs.
type Service struct {
	db        *store.DB
	repo      repo
	queue     jobs.Enqueuer
	ids       Identities
	transport Transport
	cfg       Config
	tokens    *tokens
}

// New builds the service.
func New(ctx context.Context, db *store.DB, ids Identities, t Transport, cfg Config) (*Service, error) {
	cfg.defaults()
	tk, err := loadTokens(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Service{db: db, repo: repo{db}, queue: cfg.Queue, ids: ids, transport: t, cfg: cfg, tokens: tk}, nil
}

func (s *Service) publicURL() string {
	if s.cfg.PublicURL == nil {
		return ""
	}
	return s.cfg.PublicURL()
}

// ErrInvalid is a send refused for its content (bad address, too many
// recipients, subject or body too long).
var ErrInvalid = errors.New("invalid mail")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Mail is one send.
type Mail struct {
	AccountID, AgentID, RunID, StepKey string
	// FromLocal is the local part of From (default the agent id).
	FromLocal, FromName string
	// Identity, when set, is sent as instead of the account's sender.
	Identity    *Identity
	To, Cc, Bcc []string
	ReplyTo     string
	Subject     string
	Body        string
	HTML        bool
	// NameFromAgent: FromName is the agent's name, looked up with the
	// send's other lookups.
	NameFromAgent bool
	// AgentMail: the copies carry one-click unsubscribe links and opted
	// out recipients are skipped. Only the test e-mail to the account's
	// own owner goes without.
	AgentMail bool
}

// Report is what a send did.
type Report struct {
	MessageID       string   `json:"message_id,omitempty"`
	From            string   `json:"from,omitempty"`
	Queued          []string `json:"queued"`
	SkippedOptedOut []string `json:"skipped_opted_out"`
	// Resumed: the step ran before (a crash, a resume) and had queued this
	// message already; nothing was queued again.
	Resumed bool `json:"resumed,omitempty"`
}

// parseList parses addresses, each entry possibly a comma-separated list.
func parseList(field string, in []string) ([]*mail.Address, error) {
	var out []*mail.Address
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if strings.ContainsAny(s, "\r\n") {
			return nil, invalid("%s: an address may not contain a line break", field)
		}
		as, err := mail.ParseAddressList(s)
		if err != nil {
			return nil, invalid("%s: %q is not an e-mail address", field, truncate(s, 80))
		}
		for _, a := range as {
			if len(a.Address) > 254 || !strings.Contains(a.Address, "@") {
				return nil, invalid("%s: %q is not an e-mail address", field, truncate(a.Address, 80))
			}
			out = append(out, a)
		}
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func convert(as []*mail.Address) []*gomail.Address {
	out := make([]*gomail.Address, len(as))
	for i, a := range as {
		out[i] = &gomail.Address{Name: a.Name, Address: a.Address}
	}
	return out
}

// Send signs and queues m: one copy per recipient who has not opted out,
// each delivered by its own job. A run step that already queued its
// message (it ran again after a crash) gets that message's report.
func (s *Service) Send(ctx context.Context, m Mail) (Report, error) {
	to, err := parseList("to", m.To)
	if err != nil {
		return Report{}, err
	}
	cc, err := parseList("cc", m.Cc)
	if err != nil {
		return Report{}, err
	}
	bcc, err := parseList("bcc", m.Bcc)
	if err != nil {
		return Report{}, err
	}
	var replyTo *mail.Address
	if m.ReplyTo != "" {
		rt, err := parseList("reply_to", []string{m.ReplyTo})
		if err != nil {
			return Report{}, err
		}
		if len(rt) != 1 {
			return Report{}, invalid("reply_to: want one address")
		}
		replyTo = rt[0]
	}
	if len(to) == 0 {
		return Report{}, invalid("to: no recipient")
	}
	if n := len(to) + len(cc) + len(bcc); n > s.cfg.MaxRecipients {
		return Report{}, invalid("%d recipients; at most %d", n, s.cfg.MaxRecipients)
	}
	// A subject is one header line: line breaks an LLM may produce are folded to spaces.
	subject := strings.Join(strings.Fields(m.Subject), " ")
	if subject == "" {
		return Report{}, invalid("subject: empty")
	}
	if len(subject) > s.cfg.MaxSubjectBytes {
		return Report{}, invalid("subject: %d bytes; at most %d", len(subject), s.cfg.MaxSubjectBytes)
	}
	if len(m.Body) > s.cfg.MaxBodyBytes {
		return Report{}, invalid("body: %d bytes; at most %d", len(m.Body), s.cfg.MaxBodyBytes)
	}

	// Envelope recipients, each once.
	seen := map[string]bool{}
	var rcpts []string
	for _, group := range [][]*mail.Address{to, cc, bcc} {
		for _, a := range group {
			k := strings.ToLower(a.Address)
			if !seen[k] {
				seen[k] = true
				rcpts = append(rcpts, k)
			}
		}
	}
	rep := Report{Queued: []string{}, SkippedOptedOut: []string{}}
	// The lookups a send needs (opt-outs, the sending identity, the
	// agent's name) are independent: on PostgreSQL each is a round trip,
	// so they go out together.
	var (
		wg                         sync.WaitGroup
		optedOut                   map[string]bool
		sender                     Identity
		agentName                  string
		optErr, senderErr, nameErr error
	)
	if m.AgentMail {
		wg.Add(1)
		go func() { defer wg.Done(); optedOut, optErr = s.repo.optedOut(ctx, m.AccountID, m.AgentID, rcpts) }()
	}
	if m.Identity == nil {
		wg.Add(1)
		go func() { defer wg.Done(); sender, senderErr = s.ids.Sender(ctx, m.AccountID) }()
	}
	if m.NameFromAgent {
		wg.Add(1)
		go func() { defer wg.Done(); agentName, nameErr = s.repo.agentName(ctx, m.AccountID, m.AgentID) }()
	}
	wg.Wait()
	if err := errors.Join(optErr, nameErr); err != nil {
		return Report{}, err
	}
	if m.NameFromAgent {
		m.FromName = agentName
	}
	if m.AgentMail {
		kept := rcpts[:0:0]
		for _, r := range rcpts {
			if optedOut[r] {
				rep.SkippedOptedOut = append(rep.SkippedOptedOut, r)
			} else {
				kept = append(kept, r)
			}
		}
		rcpts = kept
	}
	if len(rcpts) == 0 {
		return rep, nil
	}

	id := m.Identity
	if id == nil {
		if senderErr != nil {
			return Report{}, senderErr
		}
		id = &sender
	}
	local := m.FromLocal
	if local == "" {
		local = m.AgentID
	}
	from := &gomail.Address{Name: m.FromName, Address: local + "@" + id.Domain}
	rep.From = from.Address
	d := draft{From: from, To: convert(to), Cc: convert(cc), Subject: subject, Body: m.Body, HTML: m.HTML, Date: time.Now(),
		Traceparent: telemetry.Traceparent(ctx)}
	if replyTo != nil {
		d.ReplyTo = &gomail.Address{Name: replyTo.Name, Address: replyTo.Address}
	}
	copies := make([]Delivery, 0, len(rcpts))
	for _, r := range rcpts {
		// The copy's id is its Message-ID's left part, so a late bounce
		// (which quotes it) names the copy (LateBounce).
		d.MessageIDLocal = store.NewID()
		d.Unsubscribe = ""
		if m.AgentMail {
			d.Unsubscribe = s.UnsubscribeURL(Unsubscribe{AccountID: m.AccountID, AgentID: m.AgentID, Recipient: r})
		}
		raw, err := build(d, *id)
		if err != nil {
			return Report{}, err
		}
		copies = append(copies, Delivery{ID: d.MessageIDLocal, Recipient: r, Raw: string(raw)})
	}
	var wakes []func()
	err = s.db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		wakes = wakes[:0]
		msg, ds, err := insertMessage(ctx, tx, Message{AccountID: m.AccountID, AgentID: m.AgentID, RunID: m.RunID,
			StepKey: m.StepKey, MailFrom: from.Address, Subject: subject}, copies)
		if err != nil {
			return err
		}
		rep.MessageID = msg.ID
		for _, dl := range ds {
			wake, err := s.queue.InsertTx(ctx, tx, conn, DeliverArgs{AccountID: m.AccountID, DeliveryID: dl.ID},
				&river.InsertOpts{MaxAttempts: s.cfg.MaxAttempts})
			if err != nil {
				return err
			}
			wakes = append(wakes, wake)
		}
		return nil
	})
	if errors.Is(err, store.ErrConflict) && m.RunID != "" {
		return s.resumed(ctx, m)
	}
	if err != nil {
		return Report{}, err
	}
	for _, w := range wakes {
		w()
	}
	rep.Queued = rcpts
	return rep, nil
}

// resumed reports the message a run step queued before (it ran again
// after a crash or a resume): nothing is queued twice.
func (s *Service) resumed(ctx context.Context, m Mail) (Report, error) {
	prev, ds, err := s.repo.messageForStep(ctx, m.AccountID, m.RunID, m.StepKey)
	if err != nil {
		return Report{}, err
	}
	rep := Report{MessageID: prev.ID, From: prev.MailFrom, Queued: []string{}, SkippedOptedOut: []string{}, Resumed: true}
	for _, d := range ds {
		rep.Queued = append(rep.Queued, d.Recipient)
	}
	return rep, nil
}

// UnsubscribeURL is the one-click link for a recipient.
func (s *Service) UnsubscribeURL(u Unsubscribe) string {
	return strings.TrimRight(s.publicURL(), "/") + "/email/unsubscribe?token=" + url.QueryEscape(s.tokens.make(u))
}

// CheckUnsubscribe reads a token without acting on it (the confirmation page).
func (s *Service) CheckUnsubscribe(token string) (Unsubscribe, error) { return s.tokens.parse(token) }

// Unsubscribe records the opt-out a token names: of its agent, or of all
// the account's agents when allAgents.
func (s *Service) Unsubscribe(ctx context.Context, token string, allAgents bool) (Unsubscribe, error) {
	u, err := s.tokens.parse(token)
	if err != nil {
		return Unsubscribe{}, err
	}
	o := OptOut{AccountID: u.AccountID, AgentID: u.AgentID, RecipientEmail: u.Recipient, Reason: "one_click_unsubscribe"}
	if allAgents || u.AgentID == "" {
		o.AgentID, o.Reason = "", "unsubscribe_all"
	}
	if _, err := s.repo.addOptOut(ctx, o); err != nil {
		if errors.Is(err, store.ErrNotFound) { // the account is gone: nothing to send from
			return u, nil
		}
		return Unsubscribe{}, err
	}
	return u, nil
}

// OptOuts lists an account's opt-outs (with agentID: that agent's and the
// account-wide ones) and their total.
func (s *Service) OptOuts(ctx context.Context, accountID, agentID string, limit, offset int) ([]OptOut, int, error) {
	return s.repo.optOuts(ctx, accountID, agentID, limit, offset)
}

// RevokeOptOut opts a recipient back in (store.ErrNotFound when the
// account has no such opt-out).
func (s *Service) RevokeOptOut(ctx context.Context, accountID, id string) error {
	return s.repo.deleteOptOut(ctx, accountID, id)
}

// Deliveries lists a message's copies and where each stands.
func (s *Service) Deliveries(ctx context.Context, accountID, messageID string) ([]Delivery, error) {
	return s.repo.deliveries(ctx, accountID, messageID)
}
