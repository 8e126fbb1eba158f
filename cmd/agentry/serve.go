package main

import (
	"log/slog"
	"os"
	"strings"

	"github.com/agentry/agentry/internal/envflag"
	"github.com/agentry/agentry/internal/server"
	"github.com/spf13/cobra"
)

func serveCommand() *cobra.Command {
	d := server.Defaults()
	cfg := d
	var logLevel, logFormat string
	var envErr error
	str := func(name, def string) string { return envflag.String(name, def) }
	flt := func(name string, def float64) float64 {
		v, err := envflag.Float(name, def)
		if err != nil && envErr == nil {
			envErr = err
		}
		return v
	}
	num := func(name string, def int) int {
		v, err := envflag.Int(name, def)
		if err != nil && envErr == nil {
			envErr = err
		}
		return v
	}
	dur := envflag.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the platform: HTTP API, job workers and scheduler",
		Long: `Run Agentry. With no flags it keeps everything in ./agentry-data (SQLite,
blobs) and listens on 127.0.0.1:8080. On first start it creates an owner
account and prints an API key once.

Every flag defaults from the SERVICE_* variable named in its help.`,
		Example: `  agentry serve
  SERVICE_DATABASE_URL=postgres://agentry@db/agentry agentry serve --addr :8080 --role api`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if envErr != nil {
				return envErr
			}
			configureLogging(logLevel, logFormat)
			s, err := server.New(cmd.Context(), cfg, os.Stderr)
			if err != nil {
				return err
			}
			return s.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", str("SERVICE_ADDR", d.Addr), "listen address (SERVICE_ADDR)")
	f.StringVar(&cfg.DataDir, "data-dir", str("SERVICE_DATA_DIR", d.DataDir), "directory for the embedded database and blobs (SERVICE_DATA_DIR)")
	f.StringVar(&cfg.DatabaseURL, "database-url", str("SERVICE_DATABASE_URL", ""), "postgres://… to run on PostgreSQL; empty for SQLite in the data dir (SERVICE_DATABASE_URL)")
	f.StringVar(&cfg.BlobURL, "blob-url", str("SERVICE_BLOB_URL", ""), "blob store: file://DIR or s3://bucket?region=…&endpoint=… (SERVICE_BLOB_URL; default file://<data-dir>/blobs)")
	f.StringVar(&cfg.Role, "role", str("SERVICE_ROLE", d.Role), "api, worker or all (SERVICE_ROLE)")
	f.StringVar(&cfg.OIDCIssuer, "oidc-issuer", str("SERVICE_OIDC_ISSUER", ""), "OIDC issuer URL whose tokens are accepted (SERVICE_OIDC_ISSUER)")
	f.StringVar(&cfg.OIDCAudience, "oidc-audience", str("SERVICE_OIDC_AUDIENCE", ""), "audiences a token may carry, comma-separated: the CLI's client id, an API audience (SERVICE_OIDC_AUDIENCE)")
	f.StringVar(&cfg.BootstrapAPIKey, "bootstrap-api-key", str("SERVICE_BOOTSTRAP_API_KEY", ""), "on an empty database, use this exact value as the owner's API key (SERVICE_BOOTSTRAP_API_KEY)")
	f.Float64Var(&cfg.DefaultCredits, "default-credits", flt("SERVICE_DEFAULT_CREDITS", d.DefaultCredits), "credit balance of new accounts (SERVICE_DEFAULT_CREDITS)")
	f.Float64Var(&cfg.RateLimit, "rate-limit", flt("SERVICE_RATE_LIMIT", d.RateLimit), "requests per second per credential; 0 disables (SERVICE_RATE_LIMIT)")
	f.IntVar(&cfg.RateBurst, "rate-burst", num("SERVICE_RATE_BURST", d.RateBurst), "rate limit burst (SERVICE_RATE_BURST)")
	f.Float64Var(&cfg.AuthFailureRate, "auth-failure-rate", flt("SERVICE_AUTH_FAILURE_RATE", d.AuthFailureRate), "failed authentication attempts per second per client address; 0 disables (SERVICE_AUTH_FAILURE_RATE)")
	f.StringVar(&cfg.VersionHeaders, "version-headers", str("SERVICE_VERSION_HEADERS", ""), "other header names accepted exactly like Service-Version, comma-separated, for clients that send the version under their own name (SERVICE_VERSION_HEADERS)")
	f.IntVar(&cfg.AuthFailureBurst, "auth-failure-burst", num("SERVICE_AUTH_FAILURE_BURST", d.AuthFailureBurst), "failed authentication attempts allowed at once per client address (SERVICE_AUTH_FAILURE_BURST)")
	f.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", int64(num("SERVICE_MAX_BODY_BYTES", int(d.MaxBodyBytes))), "largest JSON request body (SERVICE_MAX_BODY_BYTES)")
	f.IntVar(&cfg.MaxWorkers, "max-workers", num("SERVICE_MAX_WORKERS", d.MaxWorkers), "concurrent jobs per process (SERVICE_MAX_WORKERS)")
	jt, err := dur("SERVICE_JOB_TIMEOUT", d.JobTimeout)
	if err != nil && envErr == nil {
		envErr = err
	}
	ra, err := dur("SERVICE_JOB_RESCUE_AFTER", d.JobRescueAfter)
	if err != nil && envErr == nil {
		envErr = err
	}
	st, err := dur("SERVICE_SHUTDOWN_TIMEOUT", d.ShutdownTimeout)
	if err != nil && envErr == nil {
		envErr = err
	}
	f.DurationVar(&cfg.JobTimeout, "job-timeout", jt, "longest a job attempt may run (SERVICE_JOB_TIMEOUT)")
	f.DurationVar(&cfg.JobRescueAfter, "job-rescue-after", ra, "retry a job left running by a dead process after this long (SERVICE_JOB_RESCUE_AFTER)")
	ur, err := dur("SERVICE_UPLOAD_RETENTION", d.UploadRetention)
	if err != nil && envErr == nil {
		envErr = err
	}
	f.DurationVar(&cfg.UploadRetention, "upload-retention", ur, "how long input uploads are kept (SERVICE_UPLOAD_RETENTION)")
	spi, err := dur("SERVICE_SOURCE_POLL_INTERVAL", d.SourcePollInterval)
	if err != nil && envErr == nil {
		envErr = err
	}
	f.DurationVar(&cfg.SourcePollInterval, "source-poll-interval", spi, "how often due feed and web-site polls are looked for; a source is polled at most this long after it falls due (SERVICE_SOURCE_POLL_INTERVAL)")
	f.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", st, "how long in-flight HTTP requests may finish on SIGTERM (SERVICE_SHUTDOWN_TIMEOUT)")
	jst, err := dur("SERVICE_JOB_SHUTDOWN_TIMEOUT", d.JobShutdownTimeout)
	if err != nil && envErr == nil {
		envErr = err
	}
	f.DurationVar(&cfg.JobShutdownTimeout, "job-shutdown-timeout", jst, "how long running jobs may finish on SIGTERM before they are cancelled and left for the next start to resume (SERVICE_JOB_SHUTDOWN_TIMEOUT)")
	f.IntVar(&cfg.MaxStreamsPerKey, "max-streams-per-key", num("SERVICE_MAX_STREAMS_PER_KEY", d.MaxStreamsPerKey), "event streams one credential may hold open on this process; 0: no cap (SERVICE_MAX_STREAMS_PER_KEY)")
	f.IntVar(&cfg.MaxStreamsPerAccount, "max-streams-per-account", num("SERVICE_MAX_STREAMS_PER_ACCOUNT", d.MaxStreamsPerAccount), "event streams one account may hold open on this process; 0: no cap (SERVICE_MAX_STREAMS_PER_ACCOUNT)")
	f.BoolVar(&cfg.AllowPrivateWebhooks, "allow-private-webhooks", str("SERVICE_ALLOW_PRIVATE_WEBHOOKS", "") == "true", "let webhook and S3 steps reach private and loopback addresses (SERVICE_ALLOW_PRIVATE_WEBHOOKS=true)")
	f.Int64Var(&cfg.MaxStepOutputBytes, "max-step-output-bytes", int64(num("SERVICE_MAX_STEP_OUTPUT_BYTES", int(d.MaxStepOutputBytes))), "largest output of one workflow step; a step past it fails (SERVICE_MAX_STEP_OUTPUT_BYTES)")
	f.Int64Var(&cfg.MaxRunOutputBytes, "max-run-output-bytes", int64(num("SERVICE_MAX_RUN_OUTPUT_BYTES", int(d.MaxRunOutputBytes))), "largest total of the step outputs of one run; the step past it fails (SERVICE_MAX_RUN_OUTPUT_BYTES)")
	f.IntVar(&cfg.MaxStepsPerRun, "max-steps-per-run", num("SERVICE_MAX_STEPS_PER_RUN", d.MaxStepsPerRun), "most steps one run executes, loop items and retries included (SERVICE_MAX_STEPS_PER_RUN)")
	f.StringSliceVar(&cfg.S3AllowedBuckets, "s3-allowed-buckets", commaList(str("SERVICE_S3_ALLOWED_BUCKETS", "")), "buckets write_aws_s3_object steps may write with the server's own AWS credentials; others need account secrets (SERVICE_S3_ALLOWED_BUCKETS, comma-separated)")
	// Inbound mail (internal/mail/inbound): on by default in serve, off in tests.
	f.StringVar(&cfg.SMTPAddr, "smtp-addr", str("SERVICE_SMTP_ADDR", "127.0.0.1:2525"), "SMTP listen address for agents' inbound mail; \"off\" turns it off (SERVICE_SMTP_ADDR)")
	f.StringVar(&cfg.SMTPTLSCert, "smtp-tls-cert", str("SERVICE_SMTP_TLS_CERT", ""), "PEM certificate offered through STARTTLS (SERVICE_SMTP_TLS_CERT)")
	f.StringVar(&cfg.SMTPTLSKey, "smtp-tls-key", str("SERVICE_SMTP_TLS_KEY", ""), "PEM private key of --smtp-tls-cert (SERVICE_SMTP_TLS_KEY)")
	f.Int64Var(&cfg.SMTPMaxMessageBytes, "smtp-max-message-bytes", int64(num("SERVICE_SMTP_MAX_MESSAGE_BYTES", int(d.SMTPMaxMessageBytes))), "largest inbound message (SERVICE_SMTP_MAX_MESSAGE_BYTES)")
	f.IntVar(&cfg.SMTPMaxRecipients, "smtp-max-recipients", num("SERVICE_SMTP_MAX_RECIPIENTS", d.SMTPMaxRecipients), "most recipients of one inbound message (SERVICE_SMTP_MAX_RECIPIENTS)")
	f.IntVar(&cfg.SMTPPerIPPerMinute, "smtp-per-ip-per-minute", num("SERVICE_SMTP_PER_IP_PER_MINUTE", d.SMTPPerIPPerMinute), "inbound messages per minute from one client address; 0: no limit (SERVICE_SMTP_PER_IP_PER_MINUTE)")
	f.IntVar(&cfg.SMTPPerAccountPerMinute, "smtp-per-account-per-minute", num("SERVICE_SMTP_PER_ACCOUNT_PER_MINUTE", d.SMTPPerAccountPerMinute), "inbound messages per minute for one account; 0: no limit (SERVICE_SMTP_PER_ACCOUNT_PER_MINUTE)")
	f.IntVar(&cfg.EmailRunsPerHour, "email-runs-per-hour", num("SERVICE_EMAIL_RUNS_PER_HOUR", d.EmailRunsPerHour), "runs mail may start per account per hour; past it mail is parked (queue_on_quota) or discarded (SERVICE_EMAIL_RUNS_PER_HOUR)")
	f.IntVar(&cfg.InboundQueueCeiling, "inbound-queue-ceiling", num("SERVICE_INBOUND_QUEUE_CEILING", d.InboundQueueCeiling), "parked email runs past which an account's inbound mail pauses (SERVICE_INBOUND_QUEUE_CEILING)")
	// Mail, outbound side.
	f.StringVar(&cfg.MailDomain, "mail-domain", str("SERVICE_MAIL_DOMAIN", d.MailDomain), "shared mail domain agents send from and receive on (SERVICE_MAIL_DOMAIN)")
	f.StringVar(&cfg.SMTPRelayURL, "smtp-relay-url", str("SERVICE_SMTP_RELAY_URL", ""), "send mail through this relay: smtp://user:pass@host:port (STARTTLS) or smtps://…; empty delivers to each recipient's MX directly (SERVICE_SMTP_RELAY_URL)")
	f.StringVar(&cfg.MailMXPort, "mail-mx-port", str("SERVICE_MAIL_MX_PORT", d.MailMXPort), "port of direct MX delivery (SERVICE_MAIL_MX_PORT)")
	f.BoolVar(&cfg.MailAllowPrivateMX, "mail-allow-private-mx", str("SERVICE_MAIL_ALLOW_PRIVATE_MX", "") == "true", "let direct delivery reach private and loopback mail exchangers (SERVICE_MAIL_ALLOW_PRIVATE_MX=true)")
	f.StringVar(&cfg.MailMXHost, "mail-mx-host", str("SERVICE_MAIL_MX_HOST", ""), "host every sending domain's MX record must name; default the mail domain (SERVICE_MAIL_MX_HOST)")
	f.StringVar(&cfg.MailSPF, "mail-spf", str("SERVICE_MAIL_SPF", ""), "SPF record sending domains must publish; default \"v=spf1 mx ~all\" (SERVICE_MAIL_SPF)")
	f.StringVar(&cfg.MailDKIMKeyFile, "mail-dkim-key-file", str("SERVICE_MAIL_DKIM_KEY_FILE", ""), "PEM DKIM key of the shared mail domain; default <data-dir>/mail/dkim-shared.pem, created on first start (SERVICE_MAIL_DKIM_KEY_FILE)")
	f.StringVar(&cfg.DNSResolver, "dns-resolver", str("SERVICE_DNS_RESOLVER", ""), "host:port of the DNS resolver domain checks and MX lookups ask; default the system's (SERVICE_DNS_RESOLVER)")
	f.StringVar(&cfg.DNSUpdateServer, "dns-update-server", str("SERVICE_DNS_UPDATE_SERVER", ""), "host:port of an RFC 2136 dynamic-update DNS server for the zones this server manages (vanity names, delegated domains) (SERVICE_DNS_UPDATE_SERVER)")
	f.StringVar(&cfg.PublicURL, "public-url", str("SERVICE_PUBLIC_URL", ""), "URL recipients reach this server at, for unsubscribe links; default http://<addr> (SERVICE_PUBLIC_URL)")
	dsi, err := dur("SERVICE_DOMAIN_SWEEP_INTERVAL", d.DomainSweepInterval)
	if err != nil && envErr == nil {
		envErr = err
	}
	f.DurationVar(&cfg.DomainSweepInterval, "domain-sweep-interval", dsi, "how often every email domain's DNS records are checked again (SERVICE_DOMAIN_SWEEP_INTERVAL)")
	// The TSIG key has no flag, so that it never shows in a process list.
	cfg.DNSUpdateTSIG = str("SERVICE_DNS_UPDATE_TSIG", "")
	// The secrets key has no flag, so that it never shows in a process list.
	cfg.SecretsKey = str("SERVICE_SECRETS_KEY", "")
	f.StringVar(&logLevel, "log-level", str("SERVICE_LOG_LEVEL", "info"), "debug, info, warn or error (SERVICE_LOG_LEVEL)")
	f.StringVar(&logFormat, "log-format", str("SERVICE_LOG_FORMAT", "text"), "text or json (SERVICE_LOG_FORMAT)")
	return cmd
}

func configureLogging(level, format string) {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(level)))
	opts := &slog.HandlerOptions{Level: l}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if format == "json" {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	slog.SetDefault(slog.New(h))
}

// commaList splits a comma-separated list, dropping blanks.
func commaList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
