package inbound

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/emersion/go-smtp"
)

// Listener is the SMTP server agents receive mail through.
type Listener struct {
	s      *Service
	srv    *smtp.Server
	l      net.Listener
	perIP  *keyedLimiter
	perAcc *keyedLimiter
	// shedLog limits how often a flood writes rejections, so shedding
	// load does not become load.
	shedLog *keyedLimiter
	done    chan struct{}
	once    sync.Once
}

// NewListener builds the listener; Listen binds it.
func (s *Service) NewListener() *Listener {
	l := &Listener{s: s, perIP: newKeyedLimiter(s.Config.PerIPPerMinute), perAcc: newKeyedLimiter(s.Config.PerAccountPerMinute),
		shedLog: newKeyedLimiter(60), done: make(chan struct{})}
	srv := smtp.NewServer(l)
	srv.Domain = s.Domain()
	srv.MaxMessageBytes = s.Config.MaxMessageBytes
	if srv.MaxMessageBytes <= 0 {
		srv.MaxMessageBytes = 10 << 20
	}
	srv.MaxRecipients = s.Config.MaxRecipients
	if srv.MaxRecipients <= 0 {
		srv.MaxRecipients = 50
	}
	srv.MaxLineLength = 4000
	srv.ReadTimeout = 2 * time.Minute
	srv.WriteTimeout = time.Minute
	srv.TLSConfig = s.Config.TLS // STARTTLS is offered exactly when set
	srv.ErrorLog = slogLogger{}
	l.srv = srv
	return l
}

// Listen binds addr ("127.0.0.1:0" in tests).
func (l *Listener) Listen(addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("smtp listen %s: %w", addr, err)
	}
	l.l = ln
	return ln.Addr(), nil
}

// Serve accepts connections until Close.
func (l *Listener) Serve() error {
	err := l.srv.Serve(l.l)
	select {
	case <-l.done:
		return nil
	default:
		return err
	}
}

// Close stops accepting and waits for sessions to end (up to ctx).
func (l *Listener) Close(ctx context.Context) error {
	l.once.Do(func() { close(l.done) })
	return l.srv.Shutdown(ctx)
}

// NewSession starts an SMTP session (go-smtp's Backend).
func (l *Listener) NewSession(c *smtp.Conn) (smtp.Session, error) {
	ip := ""
	if a, ok := c.Conn().RemoteAddr().(*net.TCPAddr); ok {
		ip = a.IP.String()
	}
	return &session{l: l, ip: ip, helo: c.Hostname()}, nil
}

type recipient struct {
	addr   string
	route  Route
	report bool
}

type session struct {
	l        *Listener
	ip, helo string
	from     string
	rcpts    []recipient
}

func (s *session) Reset()        { s.from, s.rcpts = "", nil }
func (s *session) Logout() error { return nil }

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if !s.l.perIP.allow(s.ip) {
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Too much mail from your address; try again later"}
	}
	s.from = strings.ToLower(from)
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	svc := s.l.s
	if svc.Reports != nil && svc.Reports.AcceptsReports(ctx, to) {
		for _, rc := range s.rcpts {
			if rc.report && strings.EqualFold(rc.addr, to) {
				return nil // the same report mailbox again: one ingestion
			}
		}
		s.rcpts = append(s.rcpts, recipient{addr: to, report: true})
		return nil
	}
	route, accountID, err := svc.resolve(ctx, to)
	if errors.Is(err, errUnknownMailbox) && s.from == "" && route.AgentID != "" && svc.Bounces != nil {
		// Null-sender mail to an agent without an email trigger: the
		// delivery reports about its own outgoing mail come this way (its
		// address is their envelope sender). The job keeps only reports
		// about the account's copies; anything else is discarded there.
		err = nil
	}
	switch {
	case errors.Is(err, errUnknownDomain):
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Relaying denied: this server takes mail only for its agents"}
	case errors.Is(err, errUnknownMailbox):
		if accountID != "" {
			s.reject(ctx, accountID, "", to, protect.ReasonUnknownAlias)
		}
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such mailbox"}
	case err != nil:
		slog.Warn("smtp: resolve recipient", "err", err)
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure; try again later"}
	}
	if s.hasMailbox(route) {
		// The same mailbox again — the same address repeated, in another
		// case, or another alias of the same agent: accepted, and the
		// message is delivered to it once and counted once.
		return nil
	}
	if paused, err := svc.Protect.Paused(ctx, route.AccountID); err != nil || paused {
		if err == nil && s.l.shedLog.allow("paused:"+route.AccountID) {
			s.reject(ctx, route.AccountID, route.AgentID, to, protect.ReasonInboundPaused)
		} else if err == nil {
			telemetry.MailShed(protect.ReasonInboundPaused)
		}
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "Mail for this account is paused; try again later"}
	}
	if !s.l.perAcc.allow(route.AccountID) {
		if s.l.shedLog.allow("flood:" + route.AccountID) {
			s.reject(ctx, route.AccountID, route.AgentID, to, protect.ReasonFloodShed)
		} else {
			telemetry.MailShed(protect.ReasonFloodShed)
		}
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "Too much mail for this account; try again later"}
	}
	s.rcpts = append(s.rcpts, recipient{addr: strings.ToLower(to), route: route})
	return nil
}

// hasMailbox reports whether the transaction already delivers to route's
// agent: one delivery per distinct mailbox per message.
func (s *session) hasMailbox(route Route) bool {
	for _, rc := range s.rcpts {
		if !rc.report && rc.route.AccountID == route.AccountID && rc.route.AgentID == route.AgentID {
			return true
		}
	}
	return false
}

func (s *session) reject(ctx context.Context, accountID, agentID, rcpt, reason string) {
	if err := s.l.s.Protect.Reject(ctx, protect.Rejection{AccountID: accountID, AgentID: agentID, Recipient: strings.ToLower(rcpt),
		Sender: s.from, SenderIP: s.ip, Reason: reason}); err != nil {
		slog.Warn("smtp: record rejection", "err", err)
	}
}

// Data reads the message and answers 250 only once it is queued: for
// every agent recipient a row holding the raw message and its job commit
// in one transaction; report addresses are handed to the report sink.
func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(io.LimitReader(r, s.l.srv.MaxMessageBytes+1))
	if err != nil {
		return err // go-smtp answers 552 for a message over the size limit
	}
	if int64(len(raw)) > s.l.srv.MaxMessageBytes {
		return smtp.ErrDataTooLarge
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var agents []Email
	var reports []string
	for _, rc := range s.rcpts {
		if rc.report {
			reports = append(reports, rc.addr)
			continue
		}
		agents = append(agents, Email{AccountID: rc.route.AccountID, AgentID: rc.route.AgentID, Recipient: rc.addr,
			MailFrom: s.from, HELO: s.helo, SenderIP: s.ip, Raw: raw})
	}
	if len(reports) > 0 {
		// Parsed once for all its report recipients, within the sink's
		// own bounds and this transaction's deadline. A report that cannot
		// be read is dropped, not refused: refusing would make the sender
		// retry the whole message, agents' copies included.
		if err := s.l.s.Reports.IngestAll(ctx, reports, raw); err != nil {
			slog.Warn("smtp: report not ingested", "rcpts", len(reports), "err", err)
		}
	}
	if len(agents) == 0 {
		return nil
	}
	if err := s.l.s.Enqueue(ctx, agents); err != nil {
		slog.Warn("smtp: queue message", "err", err)
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure; try again later"}
	}
	telemetry.MailAccepted(len(agents))
	return nil
}

// Enqueue records messages and their jobs durably, returning once they
// have committed. Sessions delivering at the same time share one
// transaction (a group commit): while one commits, the next batch
// gathers, so the database's one writer is not the bound on messages per
// second.
func (s *Service) Enqueue(ctx context.Context, msgs []Email) error {
	it := &pendingEnqueue{msgs: msgs, done: make(chan error, 1)}
	s.enq.mu.Lock()
	s.enq.pending = append(s.enq.pending, it)
	if !s.enq.running {
		s.enq.running = true
		go s.flushEnqueues()
	}
	s.enq.mu.Unlock()
	select {
	case err := <-it.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxGroup bounds the messages one group commit carries.
const maxGroup = 256

type enqueuer struct {
	mu      sync.Mutex
	pending []*pendingEnqueue
	running bool
}

type pendingEnqueue struct {
	msgs []Email
	done chan error
}

func (s *Service) flushEnqueues() {
	for {
		s.enq.mu.Lock()
		n, count := 0, 0
		for n < len(s.enq.pending) && (count == 0 || count+len(s.enq.pending[n].msgs) <= maxGroup) {
			count += len(s.enq.pending[n].msgs)
			n++
		}
		batch := s.enq.pending[:n:n]
		s.enq.pending = s.enq.pending[n:]
		if len(batch) == 0 {
			s.enq.running = false
			s.enq.mu.Unlock()
			return
		}
		s.enq.mu.Unlock()
		var all []Email
		for _, it := range batch {
			all = append(all, it.msgs...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := s.enqueueTx(ctx, all)
		cancel()
		for _, it := range batch {
			it.done <- err
		}
	}
}

// enqueueTx records messages and their jobs in one transaction.
func (s *Service) enqueueTx(ctx context.Context, msgs []Email) error {
	var wake func()
	err := s.DB.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		for _, m := range msgs {
			e, err := enqueueTx(ctx, tx, m)
			if err != nil {
				return err
			}
			w, err := s.Queue.InsertTx(ctx, tx, conn, ProcessArgs{AccountID: e.AccountID, EmailID: e.ID}, nil)
			if err != nil {
				return err
			}
			wake = w
		}
		return nil
	})
	if err != nil {
		return err
	}
	if wake != nil {
		wake()
	}
	return nil
}

// slogLogger sends go-smtp's connection errors to the log at debug level:
// clients that drop connections are routine on the open internet.
type slogLogger struct{}

func (slogLogger) Printf(format string, v ...any) { slog.Debug("smtp: " + fmt.Sprintf(format, v...)) }
func (slogLogger) Println(v ...any)               { slog.Debug("smtp: " + strings.TrimSpace(fmt.Sprintln(v...))) }

// Addr is the bound address (after Listen).
func (l *Listener) Addr() net.Addr { return l.l.Addr() }
