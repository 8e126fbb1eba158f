// Package server assembles a running Agentry process from its configuration:
// database, migrations, first-start bootstrap, blob store, the areas'
// services (each built by its constructor, in the order of their
// dependencies), the adapters between areas (wiring.go; none imports
// another to adapt it), the job queue with every area's workers, what must
// bind late (late.go), authentication, the HTTP API and the console, with
// graceful shutdown. `agentry admin` gets the same services from Operator.
package server

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/version"
)

// Roles a process can take when scaled out.
const (
	RoleAll    = "all"    // API and workers (the embedded default)
	RoleAPI    = "api"    // HTTP API only; jobs are enqueued for workers elsewhere
	RoleWorker = "worker" // workers only; HTTP serves health and metrics
)

// Config is everything `agentry serve` can be told. Each setting is
// declared once in the table of settings.go (its flag, SERVICE_* variable,
// default and help); fields without a line there (ModelSetup,
// AuthCacheTTL) are for tests and embedders.
type Config struct {
	Addr            string
	DataDir         string
	DatabaseURL     string
	BlobURL         string
	Role            string
	OIDCIssuer      string
	OIDCAudience    string
	BootstrapAPIKey string
	DefaultCredits  float64
	RateLimit       float64
	RateBurst       int
	MaxBodyBytes    int64
	JobTimeout      time.Duration
	JobRescueAfter  time.Duration
	// JobRescueInterval is how often jobs left running by a dead process
	// are looked for: River's rescuer on the leader every 30 s, and below
	// that every worker process this often too (jobs.Config.RescueInterval).
	JobRescueInterval time.Duration
	MaxWorkers        int
	// BackgroundWorkers run the background queue (polls, crawls,
	// ingestion, exports, migrations, compaction), apart from MaxWorkers;
	// AccountJobShare is the percent of each queue's workers one
	// account's jobs may hold at once (0 or 100: no cap).
	BackgroundWorkers int
	AccountJobShare   int
	ShutdownTimeout   time.Duration
	AuthCacheTTL      time.Duration
	// JobShutdownTimeout is how long running jobs may go on after SIGTERM
	// before they are cancelled (and resumed by the next process);
	// ShutdownTimeout bounds the HTTP drain. The two run side by side.
	JobShutdownTimeout time.Duration
	// MaxStreamsPerKey and MaxStreamsPerAccount cap the event streams open
	// at once on one process, per credential and per account (0: no cap).
	MaxStreamsPerKey     int
	MaxStreamsPerAccount int

	// AuthFailureRate and AuthFailureBurst limit failed authentication
	// attempts per client address (a token bucket; rate 0 turns it off).
	AuthFailureRate  float64
	AuthFailureBurst int
	// VersionHeaders is a comma-separated list of other header names
	// accepted exactly like Service-Version.
	VersionHeaders string

	// UploadRetention is how long input uploads are kept.
	UploadRetention time.Duration
	// BlobTempMaxAge is how old a temporary blob (a write a killed process
	// never finished) must be before it is removed; BlobSweepInterval how
	// often the sweep runs after the one at start. An age of 0 turns the
	// sweep off.
	BlobTempMaxAge    time.Duration
	BlobSweepInterval time.Duration
	// SourcePollInterval is how often due feed and web-site polls are
	// looked for (by one replica): a source is polled at most this long
	// after it falls due.
	SourcePollInterval time.Duration
	// AllowPrivateWebhooks lets steps reach private and loopback addresses.
	AllowPrivateWebhooks bool
	// FullTextIndexBytes bounds the estimated memory of the in-process
	// full-text indexes of a process (knowledge.Config); 0: no bound.
	FullTextIndexBytes int64
	// VectorIndexBytes bounds the estimated memory of the in-process vector
	// graphs of a process (knowledge.Config); 0: no bound.
	VectorIndexBytes int64
	// Workflow limits per run (see engine.Limits): one step's output, the
	// outputs of all a run's steps together, and the steps a run executes.
	MaxStepOutputBytes int64
	MaxRunOutputBytes  int64
	MaxStepsPerRun     int
	// SecretsKey seals account secrets (SERVICE_SECRETS_KEY: 32 bytes, hex
	// or base64). Empty: a key file in the data directory, created on
	// first start. Replicas sharing a database must share the key.
	SecretsKey string
	// S3AllowedBuckets are the buckets write_aws_s3_object steps may write
	// with the server's own AWS credentials; other writes need the
	// account's secrets.
	S3AllowedBuckets []string
	// Inbound mail (internal/mail/inbound). SMTPAddr is where the SMTP
	// listener binds ("" or "off": no listener; `agentry serve` defaults
	// to 127.0.0.1:2525); MailDomain is the shared domain agents receive
	// mail on (SERVICE_MAIL_DOMAIN, read by outbound mail too). With
	// SMTPTLSCert and SMTPTLSKey (PEM files) STARTTLS is offered.
	SMTPAddr            string
	SMTPTLSCert         string
	SMTPTLSKey          string
	SMTPMaxMessageBytes int64
	SMTPMaxRecipients   int
	// SMTPPerIPPerMinute and SMTPPerAccountPerMinute bound accepted
	// messages per client address and per account (0: no limit).
	SMTPPerIPPerMinute      int
	SMTPPerAccountPerMinute int
	// EmailRunsPerHour is each account's hourly email-trigger quota;
	// InboundQueueCeiling the parked backlog that pauses its inbound mail.
	EmailRunsPerHour    int
	InboundQueueCeiling int
	// Mail, outbound side. MailDomain is the shared domain agents send
	// from and receive on (SERVICE_MAIL_DOMAIN, also read by inbound mail).
	MailDomain string
	// SMTPRelayURL sends every message through one relay
	// (smtp://user:pass@host:port or smtps://…); empty delivers straight
	// to each recipient domain's MX on MailMXPort.
	SMTPRelayURL string
	MailMXPort   string
	// MailAllowPrivateMX lets direct delivery reach private and loopback
	// mail exchangers (tests, closed networks).
	MailAllowPrivateMX bool
	// MailMXHost is the host every sending domain's MX record must name
	// (default MailDomain); MailSPF the SPF record asked for.
	MailMXHost string
	MailSPF    string
	// MailDKIMKeyFile is the shared domain's DKIM key (PEM); empty:
	// <data-dir>/mail/dkim-shared.pem, created on first start.
	MailDKIMKeyFile string
	// DNSResolver (host:port) answers the domain checks and MX lookups;
	// empty: the system's resolver.
	DNSResolver string
	// DNSUpdateServer (host:port) is an RFC 2136 dynamic-update server for
	// the zones this server manages; DNSUpdateTSIG its key (name:base64).
	DNSUpdateServer string
	DNSUpdateTSIG   string
	// DomainSweepInterval is how often every domain's records are checked again.
	DomainSweepInterval time.Duration
	// PublicURL is the address recipients reach this server at (the
	// unsubscribe links); default http://<the listening address>.
	PublicURL string

	// Console serves the web console at /console/ (internal/web).
	Console bool
	// ConsoleSessionIdle and ConsoleSessionLifetime end console sessions:
	// after this long idle, and this long after sign-in.
	ConsoleSessionIdle     time.Duration
	ConsoleSessionLifetime time.Duration
	// ConsoleOIDCClientID (and its secret) turn on the console's single
	// sign-on with the OIDC issuer.
	ConsoleOIDCClientID     string
	ConsoleOIDCClientSecret string

	// ModelSetup, when set, replaces llmconfig.Load as the
	// source of the model router and catalog. It has no flag: tests set it
	// to serve models from fake providers with a catalog of their own.
	ModelSetup func() (*routing.Router, *catalog.Catalog, error)
	// NodeName names this replica (--node-name, default the host name):
	// on every log line and as every span's service.instance.id, so an
	// operator can tell which replica did what.
	NodeName string

	// AssistantModel is the catalog model the planning and agent
	// assistants ask (SERVICE_ASSISTANT_MODEL); empty: the built-in
	// planner answers, offline and free.
	AssistantModel string
	// ProvidersFile and ModelsFile are the model providers file and the
	// catalog file merged over the built-in one (docs/models.md).
	ProvidersFile string
	ModelsFile    string
	// DefaultModel answers prompt steps that name no model, over the
	// providers' defaults (docs/models.md, "Which model answers").
	DefaultModel string
	// OllamaURL is the Ollama whose installed models join the catalog:
	// "auto" (OLLAMA_HOST, else 127.0.0.1:11434), "off", or a URL.
	// Defaults() has it off so that tests and embedders ask nothing;
	// `agentry serve` starts with auto.
	OllamaURL string
	// RerankerURL, when set, is an HTTP reranker (RerankerKind openai or
	// cohere) knowledge bases name as RerankerModel ("rerank" by default).
	RerankerURL    string
	RerankerKind   string
	RerankerModel  string
	RerankerAPIKey string
	// LogLevel and LogFormat configure the process's log (cmd/agentry).
	LogLevel  string
	LogFormat string
}

// DefaultNodeName is the host name, the replica's name unless told another.
func DefaultNodeName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "agentry"
}

// Defaults returns the embedded, zero-setup configuration.
func Defaults() Config {
	return Config{
		Addr:              "127.0.0.1:8080",
		OllamaURL:         "off",
		DataDir:           "./agentry-data",
		Role:              RoleAll,
		DefaultCredits:    billing.DefaultOpeningCredits,
		RateLimit:         50,
		RateBurst:         100,
		MaxBodyBytes:      10 << 20,
		JobTimeout:        10 * time.Minute,
		JobRescueAfter:    15 * time.Minute,
		JobRescueInterval: jobs.RiverRescueInterval,
		MaxWorkers:        16,
		BackgroundWorkers: 4,
		AccountJobShare:   75,
		ShutdownTimeout:   30 * time.Second,
		AuthCacheTTL:      2 * time.Second,

		Console:                true,
		ConsoleSessionIdle:     12 * time.Hour,
		ConsoleSessionLifetime: 7 * 24 * time.Hour,
		UploadRetention:        7 * 24 * time.Hour,

		BlobTempMaxAge:     6 * time.Hour,
		BlobSweepInterval:  time.Hour,
		SourcePollInterval: knowledge.DefaultPollInterval,
		FullTextIndexBytes: knowledge.DefaultFullTextIndexBytes,
		VectorIndexBytes:   knowledge.DefaultVectorIndexBytes,

		JobShutdownTimeout:   20 * time.Second,
		MaxStreamsPerKey:     50,
		MaxStreamsPerAccount: 200,
		MaxStepOutputBytes:   engine.DefaultMaxStepOutputBytes,
		MaxRunOutputBytes:    engine.DefaultMaxRunOutputBytes,
		MaxStepsPerRun:       engine.DefaultMaxStepsPerRun,
		AuthFailureRate:      1,
		AuthFailureBurst:     30,

		SMTPMaxMessageBytes:     inbound.Defaults().MaxMessageBytes,
		SMTPMaxRecipients:       inbound.Defaults().MaxRecipients,
		SMTPPerIPPerMinute:      inbound.Defaults().PerIPPerMinute,
		SMTPPerAccountPerMinute: inbound.Defaults().PerAccountPerMinute,
		EmailRunsPerHour:        inbound.Defaults().RunsPerHour,
		InboundQueueCeiling:     protect.DefaultQueueCeiling,
		MailDomain:              inbound.DefaultDomain,
		MailMXPort:              "25",
		DomainSweepInterval:     15 * time.Minute,
		RerankerKind:            "openai",
		RerankerModel:           "rerank",
		LogLevel:                "info",
		LogFormat:               "text",
	}
}

// Validate checks the configuration and fills what derives from other fields.
func (c *Config) Validate() error {
	switch c.Role {
	case RoleAll, RoleAPI, RoleWorker:
	default:
		return fmt.Errorf("--role %q: want api, worker or all", c.Role)
	}
	if c.DataDir == "" {
		c.DataDir = "./agentry-data"
	}
	if c.Console && (c.ConsoleSessionIdle <= 0 || c.ConsoleSessionLifetime <= 0) {
		return fmt.Errorf("--console-session-idle and --console-session-lifetime must be positive")
	}
	if c.ConsoleOIDCClientID != "" && c.OIDCIssuer == "" {
		return fmt.Errorf("--console-oidc-client-id needs --oidc-issuer")
	}
	if c.NodeName == "" {
		c.NodeName = DefaultNodeName()
	}
	if c.BlobURL == "" {
		abs, err := filepath.Abs(filepath.Join(c.DataDir, "blobs"))
		if err != nil {
			return err
		}
		// Built as a URL, not pasted: a '#', '?' or '%' in the data
		// directory's name is part of the path, not a fragment, a query or
		// an escape.
		c.BlobURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	if (c.OIDCIssuer == "") != (c.OIDCAudience == "") {
		return fmt.Errorf("OIDC needs both SERVICE_OIDC_ISSUER and SERVICE_OIDC_AUDIENCE")
	}
	if c.AuthCacheTTL <= 0 || c.AuthCacheTTL >= 5*time.Second {
		return fmt.Errorf("auth cache ttl %v: must be above 0 and under 5s, so revoked keys stop within 5s", c.AuthCacheTTL)
	}
	if c.JobTimeout > 0 && c.JobRescueAfter > 0 && c.JobRescueAfter <= c.JobTimeout {
		return fmt.Errorf("job rescue-after (%v) must exceed the job timeout (%v)", c.JobRescueAfter, c.JobTimeout)
	}
	if c.JobRescueInterval <= 0 || c.JobRescueInterval > jobs.RiverRescueInterval {
		return fmt.Errorf("job rescue interval %v: must be above 0 and at most %v (River's rescuer looks every %v)", c.JobRescueInterval, jobs.RiverRescueInterval, jobs.RiverRescueInterval)
	}
	if c.UploadRetention <= 0 {
		return fmt.Errorf("upload retention must be positive")
	}
	if c.BlobTempMaxAge < 0 || c.BlobSweepInterval < 0 {
		return fmt.Errorf("blob temp max age and sweep interval must not be negative")
	}
	if c.BlobTempMaxAge > 0 && c.BlobTempMaxAge <= c.JobTimeout {
		// An export that is still being written must never look abandoned.
		return fmt.Errorf("blob temp max age (%v) must exceed the job timeout (%v)", c.BlobTempMaxAge, c.JobTimeout)
	}
	if c.SourcePollInterval <= 0 {
		return fmt.Errorf("source poll interval must be positive")
	}
	if c.MaxStreamsPerKey < 0 || c.MaxStreamsPerAccount < 0 {
		return fmt.Errorf("stream caps must not be negative (0 turns a cap off)")
	}
	if c.ShutdownTimeout < 0 || c.JobShutdownTimeout < 0 {
		return fmt.Errorf("shutdown timeouts must not be negative")
	}
	if c.MaxStepOutputBytes <= 0 || c.MaxRunOutputBytes <= 0 || c.MaxStepsPerRun <= 0 {
		return fmt.Errorf("max step output bytes, max run output bytes and max steps per run must be positive")
	}
	if c.MaxStepOutputBytes > c.MaxRunOutputBytes {
		return fmt.Errorf("max step output bytes (%d) must not exceed max run output bytes (%d)", c.MaxStepOutputBytes, c.MaxRunOutputBytes)
	}
	if c.DefaultCredits < 0 {
		return fmt.Errorf("default credits must not be negative")
	}
	if c.FullTextIndexBytes < 0 {
		return fmt.Errorf("full-text index bytes must not be negative (0 turns the bound off)")
	}
	if c.VectorIndexBytes < 0 {
		return fmt.Errorf("vector index bytes must not be negative (0 turns the bound off)")
	}
	if c.SMTPAddr == "off" {
		c.SMTPAddr = ""
	}
	if (c.SMTPTLSCert == "") != (c.SMTPTLSKey == "") {
		return fmt.Errorf("STARTTLS needs both SERVICE_SMTP_TLS_CERT and SERVICE_SMTP_TLS_KEY")
	}
	if c.MailDomain == "" {
		c.MailDomain = inbound.DefaultDomain
	}
	if c.SMTPMaxMessageBytes <= 0 || c.SMTPMaxRecipients <= 0 {
		return fmt.Errorf("smtp max message bytes and max recipients must be positive")
	}
	switch strings.ToLower(c.LogLevel) {
	case "", "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	switch c.LogFormat {
	case "", "text", "json":
	default:
		return fmt.Errorf("--log-format %q: want text or json", c.LogFormat)
	}
	if err := checkBootstrapKey(c.BootstrapAPIKey); err != nil {
		return err
	}
	if _, err := version.ParseHeaderNames(c.VersionHeaders); err != nil {
		return fmt.Errorf("SERVICE_VERSION_HEADERS (--version-headers): %w", err)
	}
	return nil
}
