package server

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Late binding. Every service is built by its constructor, with every
// dependency it has, and nothing is assigned to it afterwards. A few
// dependencies cannot exist yet when their consumer is built:
//
//   - the job queue is opened with the workers of every area, so it comes
//     after all the services that enqueue (lateQueue);
//   - governance tells inbound mail of blocked outputs, and inbound mail
//     asks governance about messages (lateOutputBlocks);
//   - email domains send their test e-mails through outbound mail, which
//     signs with those domains (lateMail);
//   - definitions reference memory banks, and the memory area is built
//     after agents (lateMemoryBank);
//   - the public URL may be known only once the listener is bound, after
//     assemble (Server.publicURL).
//
// The one way this package closes such a loop: the consumer declares the
// small interface or function it needs, and gets an adapter from here that
// reads the Server's field when it is called, never while assembling.
// assemble sets every field before it returns, and nothing is served,
// worked or sent before then; a call that came earlier would fail with
// errNotAssembled rather than reach a nil service.

var errNotAssembled = errors.New("server: called before the server was assembled")

// lateQueue is the job queue for the services built before it.
type lateQueue struct{ s *Server }

func (q lateQueue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error) {
	if q.s.Queue == nil {
		return nil, errNotAssembled
	}
	return q.s.Queue.Insert(ctx, args, opts)
}

func (q lateQueue) InsertTx(ctx context.Context, tx *sql.Tx, conn *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (func(), error) {
	if q.s.Queue == nil {
		return nil, errNotAssembled
	}
	return q.s.Queue.InsertTx(ctx, tx, conn, args, opts)
}

// lateMail is outbound mail for the email domains' test e-mails.
type lateMail struct{ s *Server }

func (m lateMail) Send(ctx context.Context, mail sending.Mail) (sending.Report, error) {
	if m.s.Mail == nil {
		return sending.Report{}, errNotAssembled
	}
	return m.s.Mail.Send(ctx, mail)
}

// lateMemoryBank is the memory area's bank lookup for agents'
// definitions (agents → memory).
func lateMemoryBank(s *Server) func(ctx context.Context, accountID, id string) (agents.MemoryBankRef, error) {
	return func(ctx context.Context, accountID, id string) (agents.MemoryBankRef, error) {
		if s.Memory == nil {
			return agents.MemoryBankRef{}, errNotAssembled
		}
		b, err := s.Memory.Bank(ctx, accountID, id)
		return agents.MemoryBankRef{ID: b.ID, Name: b.Name, Description: b.Description}, err
	}
}

// lateOutputBlocks is the output half of the mail area's auto-block mode:
// a governance block on a step's output in a run an e-mail started may
// block the message's sender. A failure is logged; the run is blocked
// either way.
func lateOutputBlocks(s *Server) func(ctx context.Context, accountID string, md map[string]any, v governance.Verdict) {
	return func(ctx context.Context, accountID string, md map[string]any, v governance.Verdict) {
		if s.MailInbound == nil {
			slog.WarnContext(ctx, "auto-block on output", "account_id", accountID, "err", errNotAssembled)
			return
		}
		if err := s.MailInbound.OutputBlocked(ctx, accountID, md, v.Rule); err != nil {
			slog.WarnContext(ctx, "auto-block on output", "account_id", accountID, "err", err)
		}
	}
}

// publicURL is where people reach this server: --public-url, else the
// address Listen bound ("" before).
func (s *Server) publicURL() string {
	if s.Config.PublicURL != "" {
		return s.Config.PublicURL
	}
	if u := s.listenURL.Load(); u != nil {
		return *u
	}
	return ""
}
