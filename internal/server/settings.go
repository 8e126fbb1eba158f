package server

//go:generate go run ./settingsdoc ../..

// Every setting of `agentry serve` is declared once, in the table below:
// its flag, its SERVICE_* variable (SERVICE_ and the flag's name in upper
// case), its help and the Config field it fills. The flags are registered
// from it (BindFlags), the flagless variables read from it, and the
// configuration tables of README.md and docs/configuration.md are
// generated from it (`go generate ./internal/server`; a test fails when
// they drift). To add a setting, add one line to the right section.

// Setting is one line of the table.
type Setting struct {
	// Name is the flag's name; the variable is SERVICE_ and the name in
	// upper case with '-' as '_' (addr: --addr, SERVICE_ADDR).
	Name string
	// NoFlag keeps a setting out of the command line, so that a key never
	// shows in a process list: only its variable sets it.
	NoFlag bool
	// Help says what the setting does, in a phrase.
	Help string
	// Default, when set, is the value `agentry serve` starts with where it
	// differs from Defaults() (which tests and embedders start from),
	// written as the variable would be.
	Default string
	// DocDefault is how the docs describe the default when the value
	// alone would not say it ("file://<data-dir>/blobs").
	DocDefault string
	// Field points into the Config the setting fills: *string, *bool,
	// *int, *int64, *float64, *time.Duration or *[]string (comma-separated).
	Field func(*Config) any
}

// Section groups settings in the docs.
type Section struct {
	Title    string
	Settings []Setting
}

// Settings is every setting of `agentry serve`, in the order the docs list them.
var Settings = []Section{
	{"Server", []Setting{
		{Name: "addr", Help: "HTTP listen address", Field: func(c *Config) any { return &c.Addr }},
		{Name: "data-dir", Help: "directory of the embedded database, blobs and keys", Field: func(c *Config) any { return &c.DataDir }},
		{Name: "database-url", Help: "`postgres://…` to run on PostgreSQL, or `sqlite:PATH`", DocDefault: "SQLite in the data dir", Field: func(c *Config) any { return &c.DatabaseURL }},
		{Name: "blob-url", Help: "blob store: `file:///DIR` or `s3://bucket?region=…&endpoint=…`", DocDefault: "`file://<data-dir>/blobs`", Field: func(c *Config) any { return &c.BlobURL }},
		{Name: "role", Help: "`api`, `worker` or `all`", Field: func(c *Config) any { return &c.Role }},
		{Name: "log-level", Help: "`debug`, `info`, `warn` or `error`", Field: func(c *Config) any { return &c.LogLevel }},
		{Name: "log-format", Help: "`text` or `json`", Field: func(c *Config) any { return &c.LogFormat }},
		{Name: "node-name", Help: "this replica's name: on every log line (`node`) and as every span's `service.instance.id` (docs/observability.md)", DocDefault: "the host name", Field: func(c *Config) any { return &c.NodeName }},
	}},
	{"Authentication and access", []Setting{
		{Name: "oidc-issuer", Help: "accept bearer JWTs from this OIDC issuer", DocDefault: "off", Field: func(c *Config) any { return &c.OIDCIssuer }},
		{Name: "oidc-audience", Help: "audiences those tokens may carry, comma-separated: the CLI's client id, an API audience", DocDefault: "off", Field: func(c *Config) any { return &c.OIDCAudience }},
		{Name: "bootstrap-api-key", Help: "on an empty database, this exact value becomes the owner's API key (at least 32 characters)", DocDefault: "random", Field: func(c *Config) any { return &c.BootstrapAPIKey }},
		{Name: "version-headers", Help: "other header names accepted exactly like `Service-Version`, comma-separated (docs/existing-clients.md)", Field: func(c *Config) any { return &c.VersionHeaders }},
		{Name: "rate-limit", Help: "requests per second per credential; 0 turns it off", Field: func(c *Config) any { return &c.RateLimit }},
		{Name: "rate-burst", Help: "rate limit burst", Field: func(c *Config) any { return &c.RateBurst }},
		{Name: "auth-failure-rate", Help: "failed authentication attempts per second per client address; 0 turns it off", Field: func(c *Config) any { return &c.AuthFailureRate }},
		{Name: "auth-failure-burst", Help: "failed authentication attempts allowed at once per client address", Field: func(c *Config) any { return &c.AuthFailureBurst }},
		{Name: "max-body-bytes", Help: "largest JSON request body (413 above)", Field: func(c *Config) any { return &c.MaxBodyBytes }},
		{Name: "max-streams-per-key", Help: "open run event streams per credential, per process (429 above); 0: no cap", Field: func(c *Config) any { return &c.MaxStreamsPerKey }},
		{Name: "max-streams-per-account", Help: "open run event streams per account, per process (429 above); 0: no cap", Field: func(c *Config) any { return &c.MaxStreamsPerAccount }},
	}},
	{"Web console", []Setting{
		{Name: "console", Help: "serve the web console at `/console/` (`/` redirects there); `false` for API-only replicas (docs/console.md)", Field: func(c *Config) any { return &c.Console }},
		{Name: "console-session-idle", Help: "a console session ends after this long without a request", Field: func(c *Config) any { return &c.ConsoleSessionIdle }},
		{Name: "console-session-lifetime", Help: "a console session ends this long after sign-in, active or not", Field: func(c *Config) any { return &c.ConsoleSessionLifetime }},
		{Name: "console-oidc-client-id", Help: "client id of the console at the `--oidc-issuer`: offers single sign-on (authorization code with PKCE; callback `<public-url>/console/signin/sso/callback`)", DocDefault: "off", Field: func(c *Config) any { return &c.ConsoleOIDCClientID }},
		{Name: "console-oidc-client-secret", NoFlag: true, Help: "that client's secret, if the provider gives it one", Field: func(c *Config) any { return &c.ConsoleOIDCClientSecret }},
	}},
	{"Models and credits", []Setting{
		{Name: "providers-file", Help: "YAML or JSON file of model providers (docs/models.md); `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `ANTHROPIC_API_KEY` add providers without one", Field: func(c *Config) any { return &c.ProvidersFile }},
		{Name: "models-file", Help: "YAML or JSON file merged over the built-in model catalog", Field: func(c *Config) any { return &c.ModelsFile }},
		{Name: "default-model", Help: "catalog model of prompt steps that name none, over the configured provider's default (docs/models.md)", DocDefault: "the first configured provider's, else the offline model", Field: func(c *Config) any { return &c.DefaultModel }},
		{Name: "ollama-url", Help: "the Ollama whose installed models join the catalog as `ollama/<name>`: `auto` (`OLLAMA_HOST`, else 127.0.0.1:11434), `off`, or a URL", Default: "auto", Field: func(c *Config) any { return &c.OllamaURL }},
		{Name: "assistant-model", Help: "catalog model the planning and agent assistants ask", DocDefault: "the built-in planner", Field: func(c *Config) any { return &c.AssistantModel }},
		{Name: "reranker-url", Help: "endpoint of an HTTP reranker knowledge bases may name (docs/knowledge.md)", DocDefault: "none", Field: func(c *Config) any { return &c.RerankerURL }},
		{Name: "reranker-kind", Help: "`openai` or `cohere`: the reranker's request shape", Field: func(c *Config) any { return &c.RerankerKind }},
		{Name: "reranker-model", Help: "the name knowledge bases give as `reranker_model`, sent to the reranker", Field: func(c *Config) any { return &c.RerankerModel }},
		{Name: "reranker-api-key", NoFlag: true, Help: "API key of the reranker", Field: func(c *Config) any { return &c.RerankerAPIKey }},
		{Name: "default-credits", Help: "opening balance of new accounts, in credits (1,000,000 = US$1)", Field: func(c *Config) any { return &c.DefaultCredits }},
	}},
	{"Runs and jobs", []Setting{
		{Name: "max-workers", Help: "concurrent jobs per process of the run queue (runs, mail, alerts and everything someone waits on)", Field: func(c *Config) any { return &c.MaxWorkers }},
		{Name: "background-workers", Help: "concurrent jobs per process of the background queue (feed polls, site crawls, ingestion, exports, embedding migrations, memory compaction, sweeps), apart from `--max-workers`", Field: func(c *Config) any { return &c.BackgroundWorkers }},
		{Name: "account-job-share", Help: "percent of each queue's workers one account's jobs may hold at once in a process; the next job of an account at its share waits for another account's; 0 or 100: no cap", Field: func(c *Config) any { return &c.AccountJobShare }},
		{Name: "job-timeout", Help: "longest one job attempt may run", Field: func(c *Config) any { return &c.JobTimeout }},
		{Name: "job-rescue-after", Help: "retry a job left running by a dead process after this long", Field: func(c *Config) any { return &c.JobRescueAfter }},
		{Name: "job-rescue-interval", Help: "how often jobs left running by a dead process are looked for: the elected leader looks every 30 s; shorter, every worker process looks this often too (tests of restarts shorten it)", Field: func(c *Config) any { return &c.JobRescueInterval }},
		{Name: "shutdown-timeout", Help: "how long in-flight HTTP requests may finish on SIGTERM", Field: func(c *Config) any { return &c.ShutdownTimeout }},
		{Name: "job-shutdown-timeout", Help: "how long running jobs may finish on SIGTERM before they are cancelled and left for the next start to resume", Field: func(c *Config) any { return &c.JobShutdownTimeout }},
		{Name: "upload-retention", Help: "how long run input uploads are kept", Field: func(c *Config) any { return &c.UploadRetention }},
		{Name: "blob-temp-max-age", Help: "age past which a temporary blob of a write that never finished (a killed process) is removed; must exceed the job timeout; `0` turns the sweep off", Field: func(c *Config) any { return &c.BlobTempMaxAge }},
		{Name: "blob-sweep-interval", Help: "how often temporary blobs are swept after the sweep at start", Field: func(c *Config) any { return &c.BlobSweepInterval }},
		{Name: "source-poll-interval", Help: "how often due feed and web-site polls are looked for; a source is polled at most this long after it falls due", Field: func(c *Config) any { return &c.SourcePollInterval }},
		{Name: "full-text-index-bytes", Help: "estimated memory the in-process full-text indexes of a process may hold; past it the least recently searched sources are unloaded until their next search reloads them (docs/knowledge.md); 0: no bound", DocDefault: "536870912 (512 MiB: about 1.8 million passages of 80 words)", Field: func(c *Config) any { return &c.FullTextIndexBytes }},
		{Name: "vector-index-bytes", Help: "estimated memory the in-process vector graphs of a process may hold (when PostgreSQL has no pgvector, and always on SQLite); past it the least recently searched sources are unloaded until their next search reloads them (docs/knowledge.md); 0: no bound", DocDefault: "1073741824 (1 GiB: about 550,000 vectors of 384 dimensions)", Field: func(c *Config) any { return &c.VectorIndexBytes }},
		{Name: "max-step-output-bytes", Help: "largest output of one workflow step; a step past it fails", Field: func(c *Config) any { return &c.MaxStepOutputBytes }},
		{Name: "max-run-output-bytes", Help: "largest total of the step outputs of one run; the step past it fails", Field: func(c *Config) any { return &c.MaxRunOutputBytes }},
		{Name: "max-steps-per-run", Help: "most steps one run executes, loop items and retries included", Field: func(c *Config) any { return &c.MaxStepsPerRun }},
		{Name: "allow-private-webhooks", Help: "let outbound requests (webhook and S3 steps, MCP servers, URL sources and feeds, alert webhooks) reach private and loopback addresses", Field: func(c *Config) any { return &c.AllowPrivateWebhooks }},
		{Name: "s3-allowed-buckets", Help: "buckets `write_aws_s3_object` steps may write with the server's own AWS credentials, comma-separated; others need account secrets", DocDefault: "none", Field: func(c *Config) any { return &c.S3AllowedBuckets }},
		{Name: "secrets-key", NoFlag: true, Help: "key sealing account secrets (32 bytes, hex or base64); the same on every replica", DocDefault: "`<data-dir>/secrets.key`, created on first start", Field: func(c *Config) any { return &c.SecretsKey }},
	}},
	{"Inbound mail", []Setting{
		{Name: "smtp-addr", Help: "SMTP listen address for agents' inbound mail; `off` turns it off", Default: "127.0.0.1:2525", Field: func(c *Config) any { return &c.SMTPAddr }},
		{Name: "smtp-tls-cert", Help: "PEM certificate offered through STARTTLS", Field: func(c *Config) any { return &c.SMTPTLSCert }},
		{Name: "smtp-tls-key", Help: "PEM private key of `--smtp-tls-cert`", Field: func(c *Config) any { return &c.SMTPTLSKey }},
		{Name: "smtp-max-message-bytes", Help: "largest inbound message", Field: func(c *Config) any { return &c.SMTPMaxMessageBytes }},
		{Name: "smtp-max-recipients", Help: "most recipients of one inbound message", Field: func(c *Config) any { return &c.SMTPMaxRecipients }},
		{Name: "smtp-per-ip-per-minute", Help: "inbound messages per minute from one client address; 0: no limit", Field: func(c *Config) any { return &c.SMTPPerIPPerMinute }},
		{Name: "smtp-per-account-per-minute", Help: "inbound messages per minute for one account; 0: no limit", Field: func(c *Config) any { return &c.SMTPPerAccountPerMinute }},
		{Name: "email-runs-per-hour", Help: "runs mail may start per account per hour; past it mail is parked (`queue_on_quota`) or discarded", Field: func(c *Config) any { return &c.EmailRunsPerHour }},
		{Name: "inbound-queue-ceiling", Help: "parked e-mail runs past which an account's inbound mail pauses", Field: func(c *Config) any { return &c.InboundQueueCeiling }},
	}},
	{"Outbound mail and e-mail domains", []Setting{
		{Name: "mail-domain", Help: "shared mail domain agents send from and receive on", Field: func(c *Config) any { return &c.MailDomain }},
		{Name: "smtp-relay-url", Help: "send mail through this relay: `smtp://user:pass@host:587` (STARTTLS) or `smtps://…`", DocDefault: "direct to each recipient's MX", Field: func(c *Config) any { return &c.SMTPRelayURL }},
		{Name: "mail-mx-port", Help: "port of direct MX delivery", Field: func(c *Config) any { return &c.MailMXPort }},
		{Name: "mail-allow-private-mx", Help: "let direct delivery reach private and loopback mail exchangers", Field: func(c *Config) any { return &c.MailAllowPrivateMX }},
		{Name: "mail-mx-host", Help: "host every sending domain's MX record must name; also the HELO name", DocDefault: "the mail domain", Field: func(c *Config) any { return &c.MailMXHost }},
		{Name: "mail-spf", Help: "SPF record sending domains must publish", DocDefault: "`v=spf1 mx ~all`", Field: func(c *Config) any { return &c.MailSPF }},
		{Name: "mail-dkim-key-file", Help: "PEM DKIM key of the shared mail domain; replicas share it", DocDefault: "`<data-dir>/mail/dkim-shared.pem`, created on first start", Field: func(c *Config) any { return &c.MailDKIMKeyFile }},
		{Name: "dns-resolver", Help: "`host:port` of the DNS resolver domain checks and MX lookups ask", DocDefault: "the system's", Field: func(c *Config) any { return &c.DNSResolver }},
		{Name: "dns-update-server", Help: "`host:port` of an RFC 2136 dynamic-update DNS server for vanity names and delegated domains", DocDefault: "none", Field: func(c *Config) any { return &c.DNSUpdateServer }},
		{Name: "dns-update-tsig", NoFlag: true, Help: "TSIG key signing those updates, `name:base64secret`", DocDefault: "none", Field: func(c *Config) any { return &c.DNSUpdateTSIG }},
		{Name: "domain-sweep-interval", Help: "how often every e-mail domain's DNS records are checked again (one replica sweeps)", Field: func(c *Config) any { return &c.DomainSweepInterval }},
		{Name: "public-url", Help: "URL recipients reach this server at, for unsubscribe links", DocDefault: "`http://<addr>`", Field: func(c *Config) any { return &c.PublicURL }},
	}},
}
