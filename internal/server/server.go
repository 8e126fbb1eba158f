package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentry/agentry/internal/buildinfo"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/internal/accounts"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/exports"
	"github.com/agentry/agentry/internal/knowledge/rerank"
	"github.com/agentry/agentry/internal/mail/dkimkey"
	"github.com/agentry/agentry/internal/mail/dmarc"
	"github.com/agentry/agentry/internal/mail/domains"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/mail/resolver"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/mcpexpose"
	"github.com/agentry/agentry/internal/mcpserver"
	"github.com/agentry/agentry/internal/mcptools"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/defaults"
	"github.com/agentry/agentry/internal/models/llmconfig"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/models/ollama"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/playground"
	"github.com/agentry/agentry/internal/regressions"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/solutions"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/agentry/agentry/internal/version"
	"github.com/agentry/agentry/internal/web"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
)

// SoftwareVersion is set at build time with -ldflags "-X …server.SoftwareVersion=…".
var SoftwareVersion = "dev"

// Server is an assembled process, ready to Run.
type Server struct {
	Config Config
	DB     *store.DB
	Blobs  *blob.Store
	Queue  *jobs.Queue
	Auth   *auth.Authenticator
	API    *api.Server
	Bus    *events.Bus
	Runs   *runs.Service
	Agents *agents.Service
	// Models area: lifecycle alerts and auto-upgrades; the playground;
	// the router of configured providers, accounts' default models and
	// the local Ollama's discoverer (nil when off).
	ModelAlerts   *modelalerts.Service
	Playground    *playground.Service
	Router        *routing.Router
	DefaultModels *defaults.Service
	Ollama        *ollama.Discoverer
	// Secrets holds the accounts' write-only secrets.
	Secrets *secrets.Service
	// SourceExports writes sources' contents to files in the background.
	SourceExports *exports.Service
	// Knowledge is the knowledge area: sources, contents, knowledge bases.
	Knowledge *knowledge.Service
	// Memory is the memory area: memory banks and their steps.
	Memory *memory.Service
	// Inbound mail: the listener's service and the protections.
	MailInbound *inbound.Service
	MailProtect *protect.Service

	smtp *inbound.Listener
	// Mail, outbound side: sending and opt-outs, email domains, DMARC reports.
	Mail         *sending.Service
	EmailDomains *domains.Service
	DMARC        *dmarc.Service
	// Evals and Governance oversee runs (evaluations, policies). Their
	// alerts go to the alerts area through oversightAlerts (wiring.go).
	Evals      *evals.Service
	Governance *governance.Service
	// Alerts is the alerts area: configs, detection, delivery.
	Alerts *alerts.Service
	// Solutions is the solutions area: solutions, the assistants, search.
	Solutions *solutions.Service
	// Regressions replays recorded runs on a workflow version (an extension).
	Regressions *regressions.Service

	// Telemetry is the server's traces (off unless OTEL_* asks), put in
	// every request's, job's and background loop's context.
	Telemetry *telemetry.T

	listener net.Listener
	// listenURL is the address Listen bound (publicURL).
	listenURL atomic.Pointer[string]
	handler   http.Handler
}

// New opens and migrates the database, bootstraps an empty one (printing the
// first key to bootstrapOut), and assembles the process. Nothing listens
// until Run.
func New(ctx context.Context, cfg Config, bootstrapOut io.Writer) (*Server, error) {
	return assemble(ctx, cfg, bootstrapOut, false)
}

// Operator assembles the same services `agentry serve` builds (runs wired
// to the engine, models, agents, secrets and queue…) for a one-off operator
// command such as `agentry admin`: it migrates the database but does not
// bootstrap it, nothing listens, and its queue only enqueues (the serving
// processes work the jobs). Close releases it; Run must not be called.
func Operator(ctx context.Context, cfg Config) (*Server, error) {
	return assemble(ctx, cfg, nil, true)
}

// Close releases what Operator opened.
func (s *Server) Close(ctx context.Context) error {
	var err error
	if s.Queue != nil {
		err = s.Queue.Stop(ctx)
	}
	s.close()
	return err
}

// assemble is New, or Operator when operator is set.
func assemble(ctx context.Context, cfg Config, bootstrapOut io.Writer, operator bool) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	s := &Server{Config: cfg, DB: db}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	if err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	if !operator {
		if err := bootstrap(ctx, db, cfg, bootstrapOut); err != nil {
			return nil, err
		}
	}
	s.Telemetry = telemetry.Off(cfg.NodeName)
	if !operator {
		if s.Telemetry, err = telemetry.Setup(ctx, telemetry.Config{Node: cfg.NodeName, ServiceVersion: SoftwareVersion}); err != nil {
			return nil, fmt.Errorf("traces: %w", err)
		}
	}
	if s.Blobs, err = blob.Open(ctx, cfg.BlobURL); err != nil {
		return nil, err
	}
	if s.Bus, err = events.Open(ctx, db); err != nil {
		return nil, err
	}
	modelSetup := func() (*routing.Router, *catalog.Catalog, error) {
		ms, err := llmconfig.Load(ctx, llmconfig.Options{ProvidersFile: cfg.ProvidersFile, ModelsFile: cfg.ModelsFile,
			DefaultModel: cfg.DefaultModel, OllamaURL: ollamaURL(cfg.OllamaURL)})
		if err != nil {
			return nil, nil, err
		}
		s.Ollama = ms.Ollama
		return ms.Router, ms.Catalog, nil
	}
	if cfg.ModelSetup != nil { // models area: tests inject fake providers
		modelSetup = cfg.ModelSetup
	}
	router, cat, err := modelSetup()
	if err != nil {
		return nil, fmt.Errorf("model providers: %w", err)
	}
	s.Router = router
	if s.Secrets, err = openSecrets(cfg, db); err != nil {
		return nil, err
	}
	eng := engine.New(engine.Config{AllowPrivateWebhooks: cfg.AllowPrivateWebhooks, S3AllowedBuckets: cfg.S3AllowedBuckets,
		Limits: engine.Limits{MaxStepOutputBytes: cfg.MaxStepOutputBytes, MaxRunOutputBytes: cfg.MaxRunOutputBytes, MaxStepsPerRun: cfg.MaxStepsPerRun}})
	mcptools.New(eng.WebhookClient()).Register(eng.Tools) // MCP servers' tools in prompt_call
	// Services are built in the order of their direct dependencies, each
	// by its constructor; the queue, opened last with every area's
	// workers, and the few other loops are bound late (late.go).
	if err := s.assembleMailOut(ctx, cfg, eng); err != nil {
		return nil, err
	}
	// Alerts area: finished runs feed its detectors; webhooks go through
	// the outbound guard, e-mail through the mail area (alerts → mail).
	s.Alerts = alerts.New(db, lateQueue{s}, s.Secrets, eng.WebhookClient(), alertMailer{s.Mail}, lateKnowledge{s}) // alerts → knowledge
	// Models area: lifecycle alerts, which raise the alerts area's
	// configs; evaluations and governance record its rollback signals.
	s.ModelAlerts = modelalerts.New(db, cat, agentRows(db), modelAlerts{s.Alerts}) // models → agents, alerts
	// Evaluations and governance: the engine's overseers (governance
	// first, so a blocked output is never judged) and evaluate_step.
	// Judgments and plain-language policy rules are metered model calls.
	// The runs area's repository comes first: evaluations tell replays
	// from production runs through it, governance records a run's input
	// check on it, and it writes the judgments the runs journal packed as
	// the evals area, which owns their format, packs them (runs → evals).
	runRows := runs.NewRepo(db, evals.PackJudgments)
	s.Evals = evals.New(evals.Deps{DB: db, Agents: agentRows(db), Model: billing.NewMetered(router, billing.Meter{DB: db}, cat), Router: router, Catalog: cat,
		Alerts:  oversightAlerts(s.Alerts, runRows), // oversight → alerts
		Signals: s.ModelAlerts.RecordSignal,         // evals → models
		Replays: runRows})                           // evals → runs
	s.Governance = governance.New(governance.Deps{DB: db, Agents: agentRows(db), Model: billing.NewMetered(router, billing.Meter{DB: db}, cat), Router: router, Catalog: cat,
		Alerts:        oversightAlerts(s.Alerts, runRows), // oversight → alerts
		OutputBlocked: lateOutputBlocks(s),                // output auto-block (mail area)
		Signals:       s.ModelAlerts.RecordSignal,         // governance → models
		RunInputs:     runRows})                           // governance → runs
	s.Evals.RegisterSteps(eng.Registry)
	eng.AddOverseers(governance.Overseer{S: s.Governance}, evals.Overseer{S: s.Evals})
	s.DefaultModels = defaults.New(db, router, cat)

	// Agents area: the service, its job kinds (upload text extraction,
	// expired-upload cleanup) and its periodic cleanup.
	s.Agents = agents.New(db, s.Blobs, agents.Config{SoftwareVersion: SoftwareVersion, UploadRetention: cfg.UploadRetention,
		Queue:            lateQueue{s},
		S3AllowedBuckets: cfg.S3AllowedBuckets,
		KnownModel:       func(id string) bool { _, ok := cat.Get(id); return ok },
		Policies:         agentPolicies{s.Governance}, // agents → governance
		AlertConfigs:     agentAlerts{s.Alerts},       // agents → alerts
		MemoryBank:       lateMemoryBank(s),           // agents → memory
		Knowledge:        lateKnowledge{s},            // agents → knowledge
		// A saved workflow's models are checked for deprecation at once.
		OnSaved: func(ctx context.Context, accountID, agentID string) {
			if _, err := s.ModelAlerts.CheckAgent(ctx, accountID, agentID); err != nil {
				slog.Warn("model lifecycle check on save", "agent", agentID, "err", err)
			}
		}})
	s.Runs = runs.New(runs.Deps{DB: db, Repo: runRows, Bus: s.Bus, Queue: lateQueue{s}, Engine: eng,
		Agents: agentsForRuns{s.Agents}, Uploads: agentsForRuns{s.Agents}, // runs → agents
		Models: router, Catalog: cat, Meter: billing.Meter{DB: db}, Secrets: s.Secrets,
		DefaultModel: s.DefaultModels.For,
		Finished:     finishedRuns(s.Alerts),     // runs → alerts
		Verdicts:     runVerdicts(s.Governance)}) // runs → governance

	// Models area: the playground, which calls the router metered like
	// runs do.
	s.Playground = playground.New(db, lateQueue{s}, router, cat, billing.Meter{DB: db})

	s.SourceExports = exports.New(db, s.Blobs, lateQueue{s})
	// Knowledge area: sources, contents, the indexing pipeline and search
	// index, knowledge bases, the retrieval-side steps and new_content.
	s.Knowledge, err = knowledge.New(ctx, db, s.Blobs, billing.NewMetered(router, billing.Meter{DB: db}, cat), cat, knowledge.Config{
		Queue:              lateQueue{s},
		Firer:              newContentFirer{s.Runs}, // knowledge → runs
		AllowPrivateFetch:  cfg.AllowPrivateWebhooks,
		AgentsUsingKB:      s.Agents.KnowledgeBaseReferenced,
		Rerankers:          configuredRerankers(cfg),
		IndexDir:           filepath.Join(cfg.DataDir, "vector-index"),
		FullTextIndexBytes: cfg.FullTextIndexBytes,
		VectorIndexBytes:   cfg.VectorIndexBytes,
		PullDone:           pullAlerts(s.Alerts), // knowledge → alerts
	})
	if err != nil {
		return nil, err
	}
	knowledge.RegisterSteps(eng, s.Knowledge)
	// Memory area: banks over knowledge sources, the memory steps, and
	// compaction through the metered router's default chat model.
	s.Memory = memory.New(db, s.Knowledge, billing.NewMetered(router, billing.Meter{DB: db}, cat),
		func() string { return router.DefaultModel(catalog.KindChat) }, lateQueue{s})
	memory.RegisterSteps(eng.Registry, s.Memory)
	// Mail area, inbound: the SMTP listener's service and the protections.
	if s.MailInbound, s.MailProtect, err = s.newMailInbound(cfg); err != nil {
		return nil, err
	}

	// Solutions area: the assistants plan with the built-in planner, or
	// with the configured model (metered like every model call).
	s.Solutions = solutions.New(db, s.Agents, billing.NewMetered(router, billing.Meter{DB: db}, cat), cfg.AssistantModel)

	s.Regressions = regressions.New(db, lateQueue{s}, agentRows(db), s.Runs, s.Evals)

	workers := river.NewWorkers()
	regressions.AddWorkers(workers, s.Regressions) // regression runs
	exports.AddWorkers(workers, s.SourceExports)
	river.AddWorker(workers, &jobs.PingWorker{DB: db})
	agents.AddWorkers(workers, s.Agents)
	river.AddWorker(workers, &runs.Worker{S: s.Runs})
	river.AddWorker(workers, &runs.ReviewDeadlinesWorker{S: s.Runs})
	river.AddWorker(workers, &runs.SchedulerWorker{S: s.Runs})
	river.AddWorker(workers, &runs.StrandedRunsWorker{S: s.Runs})
	modelalerts.AddWorkers(workers, s.ModelAlerts) // models area
	playground.AddWorkers(workers, s.Playground)   // models area
	knowledge.AddWorkers(workers, s.Knowledge)
	memory.AddWorkers(workers, s.Memory)       // memory area
	inbound.AddWorkers(workers, s.MailInbound) // mail area
	sending.AddWorkers(workers, s.Mail)        // mail, outbound side
	domains.AddWorkers(workers, s.EmailDomains)
	alerts.AddWorkers(workers, s.Alerts) // alerts area
	knowledgePolls := knowledge.PeriodicJobs(cfg.SourcePollInterval)
	// The services above enqueue through lateQueue, which reads s.Queue.
	s.Queue, err = jobs.Open(ctx, db, workers, jobs.Config{
		Work: cfg.Role != RoleAPI && !operator, MaxWorkers: cfg.MaxWorkers,
		BackgroundWorkers: cfg.BackgroundWorkers, AccountSharePercent: cfg.AccountJobShare,
		JobTimeout: cfg.JobTimeout, RescueAfter: cfg.JobRescueAfter, Telemetry: s.Telemetry,
		RescueInterval: cfg.JobRescueInterval,
		// Kinds whose workers set their own Timeout or NextRetry: the
		// short rescue interval's sweep leaves them to River's rescuer.
		OwnTimeoutKinds: []string{alerts.DeliverArgs{}.Kind(), memory.SweepArgs{}.Kind()},
		Periodic: slices.Concat(runs.PeriodicJobs(), agents.PeriodicJobs(s.Agents),
			modelalerts.PeriodicJobs(),
			knowledgePolls,                       // knowledge
			memory.PeriodicJobs(),                // memory area
			domains.PeriodicJobs(s.EmailDomains), // mail, outbound side
			inbound.PeriodicJobs(),               // mail, inbound side
			alerts.PeriodicJobs()),
	})
	if err != nil {
		return nil, err
	}
	var verifier *auth.OIDC
	if cfg.OIDCIssuer != "" {
		if verifier, err = auth.NewOIDC(cfg.OIDCIssuer, cfg.OIDCAudience); err != nil {
			return nil, err
		}
	}
	s.Auth = auth.New(db, verifier, auth.Config{CacheTTL: cfg.AuthCacheTTL, DefaultCredits: cfg.DefaultCredits})

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), s.Queue.Collector())
	if err := telemetry.Register(reg); err != nil {
		return nil, err
	}
	if cfg.Role == RoleWorker {
		s.handler = healthOnly(db, reg)
	} else {
		versionHeaders, _ := version.ParseHeaderNames(cfg.VersionHeaders) // checked by Validate
		s.API = api.New(api.Deps{Auth: s.Auth, Accounts: accounts.New(db), SoftwareVersion: SoftwareVersion,
			RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst, MaxBodyBytes: cfg.MaxBodyBytes, Metrics: reg,
			MaxStreamsPerCredential: cfg.MaxStreamsPerKey, MaxStreamsPerAccount: cfg.MaxStreamsPerAccount,
			AuthFailureRate: cfg.AuthFailureRate, AuthFailureBurst: cfg.AuthFailureBurst, VersionHeaders: versionHeaders,
			Runs: s.Runs, Blobs: s.Blobs, Agents: s.Agents,
			Catalog: cat, ModelAlerts: s.ModelAlerts, Playground: s.Playground, // models area
			DefaultModels: s.DefaultModels, RefreshModels: s.refreshModels,
			SourceExports: s.SourceExports, Knowledge: s.Knowledge, // knowledge
			Memory:      s.Memory,                                  // memory area
			MailInbound: s.MailInbound, MailProtect: s.MailProtect, // mail area
			Mail: s.Mail, EmailDomains: s.EmailDomains, DMARC: s.DMARC, // mail, outbound side
			Evals: s.Evals, Governance: s.Governance,
			MCPExpose:   mcpexpose.New(db, agentRows(db)), // agents as MCP tools
			Regressions: s.Regressions,
			Secrets:     s.Secrets, Alerts: s.Alerts, Solutions: s.Solutions, Ready: func(ctx context.Context) error {
				if err := db.Ping(ctx); err != nil {
					return fmt.Errorf("database: %w", err)
				}
				return nil
			}})
		s.handler = withMCP(s.API, mcpserver.Handler(s.API, SoftwareVersion))
		if cfg.Console {
			wc := web.Config{SessionIdle: cfg.ConsoleSessionIdle,
				SessionLifetime: cfg.ConsoleSessionLifetime, Version: SoftwareVersion, MailDomain: cfg.MailDomain}
			if cfg.ConsoleOIDCClientID != "" {
				v, err := auth.NewOIDC(cfg.OIDCIssuer, cfg.ConsoleOIDCClientID)
				if err != nil {
					return nil, err
				}
				wc.OIDC = &web.OIDCConfig{Issuer: cfg.OIDCIssuer, ClientID: cfg.ConsoleOIDCClientID, ClientSecret: cfg.ConsoleOIDCClientSecret,
					PublicURL: cfg.PublicURL, Verifier: v, Users: s.Auth.UserFor}
			}
			console, err := web.New(db, s.API, wc)
			if err != nil {
				return nil, fmt.Errorf("console: %w", err)
			}
			s.handler = console.Mount(s.handler)
		}
	}
	s.handler = telemetry.HTTPServer(s.Telemetry, s.handler)
	ok = true
	return s, nil
}

// assembleMailOut builds the outbound mail services: the domains (with
// the shared domain's key), the transport, sending with its send_email
// step, and DMARC reports.
func (s *Server) assembleMailOut(ctx context.Context, cfg Config, eng *engine.Engine) error {
	res := resolver.New(cfg.DNSResolver)
	keyFile := cfg.MailDKIMKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(cfg.DataDir, "mail", "dkim-shared.pem")
	}
	sharedKey, err := dkimkey.LoadOrCreateFile(keyFile)
	if err != nil {
		return fmt.Errorf("shared domain DKIM key: %w", err)
	}
	upd, err := domains.ParseDNSUpdate(cfg.DNSUpdateServer, cfg.DNSUpdateTSIG)
	if err != nil {
		return err
	}
	s.EmailDomains = domains.New(s.DB, s.Secrets.Box, res, lateMail{s}, domains.Config{SharedDomain: cfg.MailDomain, SharedKey: sharedKey,
		MXHost: cfg.MailMXHost, SPF: cfg.MailSPF, DNSUpdate: upd, SweepInterval: cfg.DomainSweepInterval})
	helo := cfg.MailMXHost
	if helo == "" {
		helo = cfg.MailDomain
	}
	var transport sending.Transport = &sending.DirectMX{Resolver: res, Port: cfg.MailMXPort, HELO: helo, AllowPrivate: cfg.MailAllowPrivateMX}
	if cfg.SMTPRelayURL != "" {
		if transport, err = sending.ParseRelay(cfg.SMTPRelayURL, helo); err != nil {
			return err
		}
	}
	if s.Mail, err = sending.New(ctx, s.DB, s.EmailDomains, transport, sending.Config{Queue: lateQueue{s}, PublicURL: s.publicURL}); err != nil {
		return err
	}
	sending.RegisterStep(eng.Registry, s.Mail)
	s.DMARC = dmarc.New(s.DB)
	return nil
}

// Handler is the process's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Listen binds the address now, so callers learn the port (":0" in tests)
// before Run.
func (s *Server) Listen() (net.Addr, error) {
	l, err := net.Listen("tcp", s.Config.Addr)
	if err != nil {
		return nil, err
	}
	s.listener = l
	if s.Config.SMTPAddr != "" && s.Config.Role != RoleWorker && s.smtp == nil {
		s.smtp = s.MailInbound.NewListener()
		if _, err := s.smtp.Listen(s.Config.SMTPAddr); err != nil {
			l.Close()
			s.listener, s.smtp = nil, nil
			return nil, err
		}
	}
	u := "http://" + l.Addr().String()
	s.listenURL.Store(&u) // the public URL when --public-url is not set
	return l.Addr(), nil
}

// SMTPAddr is where the SMTP listener is bound (nil when it is off); call
// after Listen.
func (s *Server) SMTPAddr() net.Addr {
	if s.smtp == nil {
		return nil
	}
	return s.smtp.Addr()
}

// Run serves until ctx ends, then shuts down gracefully:
//  1. the listener closes and open event streams end with a reconnect
//     event, so their clients resume elsewhere or after the restart and
//     the drain does not wait for them;
//  2. side by side, in-flight requests finish (ShutdownTimeout) and the
//     workers stop taking jobs and let running ones finish
//     (JobShutdownTimeout); jobs still running then are cancelled, their
//     workers record where they stopped, and the jobs are made available
//     again for the next process to resume at once;
//  3. last-used times are flushed, and the bus, blobs and database close —
//     only after every job has returned.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	if s.listener == nil {
		if _, err := s.Listen(); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn)}
	if s.API != nil {
		// Called by Shutdown once the listener is closed.
		srv.RegisterOnShutdown(s.API.DrainStreams)
	}

	bg, stopBG := context.WithCancel(telemetry.With(context.Background(), s.Telemetry))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Auth.Run(bg) }()
	wg.Add(1)
	go func() { defer wg.Done(); s.Alerts.Run(bg) }() // alerts area: finished runs, inline
	wg.Add(1)
	go func() { defer wg.Done(); s.Evals.Run(bg) }() // judgments journaled by runs into evaluation results
	wg.Add(1)
	go func() { defer wg.Done(); s.tempSweeper().Run(bg) }() // writes a killed process left unfinished

	if err := s.Queue.Start(bg); err != nil {
		stopBG()
		return fmt.Errorf("start workers: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(s.listener) }()
	if s.smtp != nil {
		go func() {
			if err := s.smtp.Serve(); err != nil {
				slog.Error("smtp listener stopped", "err", err)
			}
		}()
		slog.Info("smtp listening", "addr", s.smtp.Addr().String(), "domain", s.MailInbound.Domain())
	}
	s.logDefaultModel()
	slog.Info("agentry serving", "addr", s.listener.Addr().String(), "role", s.Config.Role, "traces", s.Telemetry.Enabled(), "database", string(s.DB.Dialect), "version", SoftwareVersion, "build", buildinfo.Read().String())

	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	slog.Info("shutting down")
	if s.smtp != nil {
		// Sessions mid-DATA finish (their message is queued or refused)
		// before the queue and database close.
		smtpCtx, cancel := context.WithTimeout(context.Background(), s.Config.ShutdownTimeout)
		if e := s.smtp.Close(smtpCtx); e != nil {
			slog.Warn("smtp shutdown", "err", e)
		}
		cancel()
	}
	drained := make(chan error, 1)
	go func() {
		httpCtx, cancel := context.WithTimeout(context.Background(), s.Config.ShutdownTimeout)
		defer cancel()
		e := srv.Shutdown(httpCtx)
		if e != nil && !errors.Is(e, http.ErrServerClosed) {
			// Requests still running past the deadline lose their
			// connections rather than outlive the database.
			_ = srv.Close()
		}
		drained <- e
	}()
	jobsCtx, cancelJobs := context.WithTimeout(context.Background(), s.Config.JobShutdownTimeout)
	defer cancelJobs()
	if e := s.Queue.Stop(jobsCtx); e != nil {
		err = errors.Join(err, e)
	}
	if e := <-drained; e != nil && !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("http drain: %w", e))
	}
	stopBG()
	wg.Wait()
	s.Knowledge.FlushIndex()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (s *Server) close() {
	if s.Telemetry != nil {
		// Spans of the runs that ended during shutdown go out last.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.Telemetry.Shutdown(ctx); err != nil {
			slog.Warn("trace export at shutdown", "err", err)
		}
		cancel()
	}
	if s.Bus != nil {
		s.Bus.Close()
	}
	if s.Blobs != nil {
		s.Blobs.Close()
	}
	if s.DB != nil {
		s.DB.Close()
	}
}

// healthOnly serves a worker process's probes and metrics.
func healthOnly(db *store.DB, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if err := db.Ping(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"status":"unavailable"}`)
			return
		}
		io.WriteString(w, `{"status":"ready"}`)
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// configuredRerankers builds the operator's HTTP reranker, when
// --reranker-url is set: its kind (openai or cohere), the name knowledge
// bases use as reranker_model, and its key. Calls go through the outbound
// guard.
func configuredRerankers(cfg Config) map[string]rerank.Reranker {
	if cfg.RerankerURL == "" {
		return nil
	}
	model := cfg.RerankerModel
	if model == "" {
		model = "rerank"
	}
	return map[string]rerank.Reranker{model: rerank.HTTP(cfg.RerankerKind, cfg.RerankerURL, cfg.RerankerAPIKey, model,
		outbound.Policy{AllowPrivate: cfg.AllowPrivateWebhooks}.Client())}
}

// withMCP serves the MCP endpoint at /mcp beside the API (internal/mcpserver).
func withMCP(apiHandler, mcpHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			telemetry.HTTPRoute(r.Context(), r.Method, "/mcp")
			mcpHandler.ServeHTTP(w, r)
			return
		}
		apiHandler.ServeHTTP(w, r)
	})
}

// tempSweeper removes what writes killed mid-way left behind: temporary
// blobs (file or S3-compatible store), the vector index's unfinished
// snapshots, and the spill files uploads, extraction and exports keep in
// the system's temporary directory (os.CreateTemp patterns below).
func (s *Server) tempSweeper() *blob.Sweeper {
	return &blob.Sweeper{Store: s.Blobs, MaxAge: s.Config.BlobTempMaxAge, Interval: s.Config.BlobSweepInterval,
		TempDirs: []string{filepath.Join(s.Config.DataDir, "vector-index")},
		LocalDir: os.TempDir(), LocalPrefixes: []string{"agentry-upload-", "agentry-export-manifest-", "agentry-content-"}}
}
