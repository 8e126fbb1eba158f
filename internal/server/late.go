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
//   - definitions reference knowledge bases and sources, alert
//     configurations sources, and the knowledge area is built after both
//     (lateKnowledge);
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

// lateKnowledge is the knowledge area's knowledge bases and sources for
// the agents' definitions and the alerts' configurations, both built
// before it (agents → knowledge, alerts → knowledge).
type lateKnowledge struct{ s *Server }

func (k lateKnowledge) KnowledgeBaseExists(ctx context.Context, accountID, id string) (bool, error) {
	if k.s.Knowledge == nil {
		return false, errNotAssembled
	}
	return k.s.Knowledge.KnowledgeBaseExists(ctx, accountID, id)
}

func (k lateKnowledge) SourceExists(ctx context.Context, accountID, id string) (bool, error) {
	if k.s.Knowledge == nil {
		return false, errNotAssembled
	}
	return k.s.Knowledge.SourceExists(ctx, accountID, id)
}

func (k lateKnowledge) KnowledgeBaseRef(ctx context.Context, accountID, id string) (agents.KnowledgeRef, error) {
	if k.s.Knowledge == nil {
		return agents.KnowledgeRef{}, errNotAssembled
	}
	kb, err := k.s.Knowledge.KnowledgeBase(ctx, accountID, id)
	return agents.KnowledgeRef{ID: kb.ID, Name: kb.Name, Description: kb.Description}, err
}

func (k lateKnowledge) SourceRef(ctx context.Context, accountID, id string) (agents.KnowledgeRef, error) {
	if k.s.Knowledge == nil {
		return agents.KnowledgeRef{}, errNotAssembled
	}
	src, err := k.s.Knowledge.Source(ctx, accountID, id)
	return agents.KnowledgeRef{ID: src.ID, Name: src.Name}, err
}

func (k lateKnowledge) LatestKnowledgeBase(ctx context.Context, accountID string) (string, error) {
	if k.s.Knowledge == nil {
		return "", errNotAssembled
	}
	return k.s.Knowledge.LatestKnowledgeBase(ctx, accountID)
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
