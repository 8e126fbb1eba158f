// Package api is the HTTP layer: the route table, the error model, and the
// middleware every operation runs through (request ids, panics, metrics,
// authentication, rate limits, versions, undeclared parameters). It holds no
// SQL and makes no model calls; handlers call the area services.
package api

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/agentry/agentry/internal/accounts"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/exports"
	"github.com/agentry/agentry/internal/mail/dmarc"
	"github.com/agentry/agentry/internal/mail/domains"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/mcpexpose"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/defaults"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/playground"
	"github.com/agentry/agentry/internal/regressions"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/solutions"
	"github.com/agentry/agentry/internal/version"
	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Deps are what the handlers need. Handlers reach the database only
// through the area services here, never directly.
//
// Every area is always served: the services marked required must be set
// (New panics naming the missing ones, a wiring error of the program), so
// a route is never silently absent. internal/server assembles them all;
// tests build servers through internal/testserver, which uses that assembly.
type Deps struct {
	Auth            *auth.Authenticator // required
	SoftwareVersion string
	// RateLimit is requests per second per credential (0 turns it off);
	// RateBurst the bucket size.
	RateLimit float64
	RateBurst int
	// AuthFailureRate is failed authentication attempts per second allowed
	// per client address (0 turns the limit off); AuthFailureBurst the
	// bucket size.
	AuthFailureRate  float64
	AuthFailureBurst int
	// VersionHeaders are other header names accepted exactly like
	// Service-Version (canonical form, see version.ParseHeaderNames).
	VersionHeaders []string
	// MaxBodyBytes bounds JSON request bodies (413 above).
	MaxBodyBytes int64
	// MaxStreamsPerCredential and MaxStreamsPerAccount cap the event
	// streams open at once on this process (429 above; 0: no cap).
	MaxStreamsPerCredential int
	MaxStreamsPerAccount    int
	// Metrics registers the API's collectors; nil uses a private registry.
	Metrics *prometheus.Registry
	// Accounts answers the caller's identity, the account's version pin
	// and its model usage (identity.go, versions.go, models*.go). Required.
	Accounts *accounts.Service
	// Runs executes agent runs; Blobs holds their files. Required.
	Runs  *runs.Service
	Blobs *blob.Store
	// Agents is the agents area. Required.
	Agents *agents.Service
	// Regressions replays recorded runs on a workflow version
	// (regressions.go). Optional: without it those operations are not served.
	Regressions *regressions.Service
	// Models area (models*.go, playground.go): the catalog, lifecycle
	// alerts and the playground. Required.
	Catalog     *catalog.Catalog
	ModelAlerts *modelalerts.Service
	Playground  *playground.Service
	// DefaultModels answers and sets accounts' default models
	// (models_default.go). Optional: without it those operations are not
	// served. RefreshModels, when set, is called before GET /models lists
	// the catalog (a local Ollama's models, cached a minute).
	DefaultModels *defaults.Service
	RefreshModels func(context.Context)
	// Inbound mail (mail_inbound.go): trigger email settings, the
	// blocklist, rejections and the overload breaker. Required.
	MailInbound *inbound.Service
	MailProtect *protect.Service
	// Secrets holds the accounts' write-only secrets (secrets.go). Required.
	Secrets *secrets.Service
	// SourceExports writes sources' contents to files (source_exports.go). Required.
	SourceExports *exports.Service
	// Knowledge is the knowledge area: sources, contents, knowledge bases
	// (knowledge_*.go). Required.
	Knowledge *knowledge.Service
	// Memory is the memory area: banks, compaction, the assistant
	// (memory_banks.go). Optional: without it the memory operations are
	// not served.
	Memory *memory.Service
	// Mail area, outbound side (email_domains.go, email_optouts.go):
	// sending and opt-outs, email domains, DMARC summaries. Required.
	Mail         *sending.Service
	EmailDomains *domains.Service
	DMARC        *dmarc.Service
	// Evals and Governance (evals.go, governance.go). Required.
	Evals      *evals.Service
	Governance *governance.Service
	// Alerts is the alerts area (alerts.go). Required.
	Alerts *alerts.Service
	// MCPExpose is which agents are tools of the MCP server
	// (agents_mcp_tools.go). Required.
	MCPExpose *mcpexpose.Service
	// Solutions is the solutions area and its assistants (solutions*.go,
	// agents_assistant.go, assistant_feedback.go). Required.
	Solutions *solutions.Service
	// Ready reports whether the process can serve (database reachable…);
	// /readyz answers 503 with its error. Required.
	Ready func(context.Context) error
}

// missing names the required dependencies d lacks.
func (d Deps) missing() []string {
	var out []string
	for name, ok := range map[string]bool{"Auth": d.Auth != nil, "Accounts": d.Accounts != nil, "Runs": d.Runs != nil,
		"Blobs": d.Blobs != nil, "Agents": d.Agents != nil, "Catalog": d.Catalog != nil, "ModelAlerts": d.ModelAlerts != nil,
		"Playground": d.Playground != nil, "Secrets": d.Secrets != nil, "Ready": d.Ready != nil,
		"SourceExports": d.SourceExports != nil, "Knowledge": d.Knowledge != nil,
		"MailInbound": d.MailInbound != nil, "MailProtect": d.MailProtect != nil,
		"Mail": d.Mail != nil, "EmailDomains": d.EmailDomains != nil, "DMARC": d.DMARC != nil,
		"Evals": d.Evals != nil, "Governance": d.Governance != nil,
		"Alerts": d.Alerts != nil, "MCPExpose": d.MCPExpose != nil, "Solutions": d.Solutions != nil} {
		if !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Server is the API's handler.
type Server struct {
	deps    Deps
	mux     *chi.Mux
	api     huma.API
	limiter *limiter
	pins    *pinCache
	streams *streams
	handler http.Handler

	// authFailures limits failed authentication per client address.
	authFailures *limiter
}

func init() { installErrorModel() }

// New builds the API. It panics when a required dependency is missing.
func New(d Deps) *Server {
	if m := d.missing(); len(m) > 0 {
		panic("api.New: missing required dependencies: " + strings.Join(m, ", "))
	}
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = 1 << 20
	}
	if d.Metrics == nil {
		d.Metrics = prometheus.NewRegistry()
	}
	s := &Server{deps: d, mux: chi.NewMux(), limiter: newLimiter(d.RateLimit, d.RateBurst),
		pins:    &pinCache{accounts: d.Accounts, m: map[string]pinEntry{}},
		streams: newStreams(d.MaxStreamsPerCredential, d.MaxStreamsPerAccount)}
	s.authFailures = newLimiter(d.AuthFailureRate, d.AuthFailureBurst)

	cfg := huma.DefaultConfig("Agentry API", d.SoftwareVersion)
	cfg.Info.Description = "Agentry: build, run and govern AI agents. Version dated behaviour with the " + version.Header + " header."
	cfg.OpenAPIPath = "/openapi"
	cfg.DocsPath = "" // our own page, with its assets in the binary (docs_page.go)
	cfg.SchemasPath = "/schemas"
	// No $schema links in bodies: responses must carry exactly the
	// contract's fields.
	cfg.CreateHooks = nil
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"ApiKeyAuth": {Type: "apiKey", In: "header", Name: "X-API-Key", Description: "API key issued by the service."},
		"BearerAuth": {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Description: "An API key, or an access token from the configured OIDC identity provider."},
	}
	// chi, not http.ServeMux: the contract has paths such as
	// /agents/{agent_id}/runs beside /agents/runs/{run_id} that ServeMux
	// refuses as ambiguous; chi prefers the literal segment.
	s.api = humachi.New(s.mux, cfg)
	s.api.UseMiddleware(s.authenticate, s.authorize) // roles.go: the roles the table declares

	s.routes()
	allowExtraFields(s.api)
	markExtensionFields(s.api)
	s.mux.Get("/docs", serveDocs)
	s.mux.Get(docsAssetsPrefix+"*", serveDocsAsset)
	s.mux.Get("/healthz", s.healthz)
	s.mux.Get("/readyz", s.readyz)
	s.mux.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(d.Metrics, promhttp.HandlerOpts{}))
	s.mux.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	})
	s.mux.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		// HTTP requires a 405 to list what the path does allow; chi's own
		// handler would, but without our JSON body, so ask the router.
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if s.mux.Match(chi.NewRouteContext(), m, r.URL.Path) {
				w.Header().Add("Allow", m)
			}
		}
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
	})

	m := newMetrics(d.Metrics)
	s.handler = withRequestID(withRecover(m.wrap(withMediaType(s.mux))))
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// OpenAPI returns the generated document (the conformance test reads it).
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

// HumaAPI exposes the huma API so tests can register extra operations.
func (s *Server) HumaAPI() huma.API { return s.api }

// routes is the whole API surface at a glance: one line per operation,
// grouped by area; each handler lives in its area's file.
func (s *Server) routes() {
	// Identity and versions (identity.go, versions.go).
	register(s, op("get_me", http.MethodGet, "/me", "Get current user identity", "identity"), s.getMe)
	register(s, op("get_api_version", http.MethodGet, "/version", "Get the account's API version", "version"), s.getVersion)
	register(s, admin(op("update_api_version", http.MethodPut, "/version", "Pin (or clear) the account's API version", "version"), "change its API version"), s.putVersion)

	// Runs (runs.go, streams.go) and human reviews, an extension (reviews.go).
	register(s, op("run_agent", http.MethodPost, "/agents/{agent_id}/runs", "Run an agent", "agents"), s.startRun)
	register(s, op("run_agent_stream", http.MethodPost, "/agents/{agent_id}/runs/stream", "Run an agent (stream events)", "agents"), s.streamRun)
	register(s, op("get_agent_run", http.MethodGet, "/agents/runs/{run_id}", "Get an agent run", "agents"), s.getRun)
	register(s, op("list_agent_runs", http.MethodGet, "/agents/{agent_id}/runs", "List agent runs", "agents"), s.listRuns)
	register(s, withDesc(op("search_agent_traces", http.MethodPost, "/agents/runs/search", "Search agent traces", "agents"), runs.SearchDescription), s.searchTraces)
	register(s, op("cancel_agent_run", http.MethodDelete, "/agents/runs/{run_id}", "Cancel an agent run", "agents"), s.cancelRun)
	register(s, withStatus(extension(withDesc(op("rerun_agent_run", http.MethodPost, "/agents/runs/{run_id}/rerun", "Rerun a run from a step", "agents"), rerunDoc)), http.StatusAccepted), s.rerunRun)
	register(s, extension(withDesc(op("list_pending_run_reviews", http.MethodGet, "/agents/runs/reviews", "List pending human reviews", "agents"), listPendingReviewsDoc)), s.listPendingReviews)
	register(s, extension(withDesc(op("decide_run_review", http.MethodPost, "/agents/runs/{run_id}/reviews/decision", "Approve or reject a human review", "agents"), decideReviewDoc)), s.decideReview)
	// The account-wide run views, extensions (runs_account.go).
	register(s, extension(withDesc(op("list_account_runs", http.MethodGet, "/runs", "List the account's runs", "agents"), listAccountRunsDoc)), s.listAccountRuns)
	register(s, extension(withDesc(op("get_runs_summary", http.MethodGet, "/runs/summary", "Summarise the account's recent runs", "agents"), runsSummaryDoc)), s.runsSummary)
	register(s, extension(withDesc(op("get_run_details", http.MethodGet, "/runs/{run_id}", "Get a run's details", "agents"), runDetailsDoc)), s.runDetails)
	register(s, op("download_run_attachment", http.MethodGet, "/v2/agent-runs/{run_id}/attachments/{attachment_id}", "Download an agent-run attachment", "agent_run_attachments"), s.downloadAttachment)

	// The account's API keys, members and credits, extensions (account_settings.go).
	register(s, extension(withDesc(op("list_api_keys", http.MethodGet, "/account/api-keys", "List the account's API keys", "account"), listAPIKeysDoc)), s.listAPIKeys)
	register(s, extension(withStatus(withDesc(op("create_api_key", http.MethodPost, "/account/api-keys", "Issue an API key (its secret shown once)", "account"), createAPIKeyDoc), http.StatusCreated)), s.createAPIKey)
	register(s, extension(withDesc(op("revoke_api_key", http.MethodDelete, "/account/api-keys/{key_id}", "Revoke an API key", "account"), revokeAPIKeyDoc)), s.revokeAPIKey)
	register(s, extension(withDesc(op("list_account_members", http.MethodGet, "/account/members", "List the account's members", "account"), listMembersDoc)), s.listMembers)
	register(s, admin(extension(withDesc(op("set_account_member_role", http.MethodPut, "/account/members/{user_id}", "Change a member's role", "account"), setMemberRoleDoc)), "change members' roles"), s.setMemberRole)
	register(s, extension(withDesc(op("get_account_credits", http.MethodGet, "/account/credits", "Get the account's credits, ledger and daily spending", "account"), getCreditsDoc)), s.getCredits)

	// Account secrets, an extension (secrets.go).
	register(s, extension(withDesc(op("list_secrets", http.MethodGet, "/secrets", "List account secrets", "secrets"), listSecretsDoc)), s.listSecrets)
	register(s, admin(extension(withDesc(op("put_secret", http.MethodPut, "/secrets/{name}", "Create or replace an account secret", "secrets"), putSecretDoc)), "store secrets"), s.putSecret)
	register(s, admin(withStatus(extension(withDesc(op("delete_secret", http.MethodDelete, "/secrets/{name}", "Delete an account secret", "secrets"), deleteSecretDoc)), http.StatusNoContent), "delete secrets"), s.deleteSecret)

	// Embedding migrations of sources (knowledge_migrations.go).
	register(s, op("start_source_embedding_migration", http.MethodPost, "/sources/{source_connection_id}/embedding-migration", "Start Source Embedding Migration", "sources"), s.startEmbeddingMigration)
	register(s, op("get_source_embedding_migration", http.MethodGet, "/sources/{source_connection_id}/embedding-migration", "Get Source Embedding Migration", "sources"), s.getEmbeddingMigration)
	register(s, op("cancel_source_embedding_migration", http.MethodPost, "/sources/{source_connection_id}/embedding-migration/cancel", "Cancel Source Embedding Migration", "sources"), s.cancelEmbeddingMigration)

	// Source exports (source_exports.go).
	register(s, op("list_source_exports", http.MethodGet, "/sources/{source_connection_id}/exports", "List exports", "source-exports"), s.listSourceExports)
	register(s, withStatus(op("create_source_export", http.MethodPost, "/sources/{source_connection_id}/exports", "Create export", "source-exports"), http.StatusAccepted), s.createSourceExport)
	register(s, op("estimate_source_export", http.MethodPost, "/sources/{source_connection_id}/exports/estimate", "Estimate export size", "source-exports"), s.estimateSourceExport)
	register(s, op("get_source_export", http.MethodGet, "/sources/{source_connection_id}/exports/{export_id}", "Get export status", "source-exports"), s.getSourceExport)
	register(s, op("cancel_source_export", http.MethodPost, "/sources/{source_connection_id}/exports/{export_id}/cancel", "Cancel export", "source-exports"), s.cancelSourceExport)
	register(s, withStatus(op("delete_source_export", http.MethodDelete, "/sources/{source_connection_id}/exports/{export_id}", "Delete export", "source-exports"), http.StatusNoContent), s.deleteSourceExport)
	register(s, op("download_source_export", http.MethodGet, "/sources/{source_connection_id}/exports/{export_id}/download", "Download export", "source-exports"), s.downloadSourceExport)

	// Models: catalog and usage (models.go, models_usage.go), lifecycle
	// alerts (models_alerts.go), playground (playground.go).
	register(s, op("list_models", http.MethodGet, "/models", "List Models", "models"), s.listModels)
	register(s, op("get_model", http.MethodGet, "/models/{model_id}/details", "Get Model", "models"), s.getModel)
	register(s, op("get_model_recommendations", http.MethodGet, "/models/{model_id}/recommendations", "Get Recommendations", "models"), s.getRecommendations)
	register(s, op("get_generation_tiers", http.MethodGet, "/models/generation-tiers", "Get Generation Tiers", "models"), s.getGenerationTiers)
	register(s, extension(withDesc(op("get_model_usage", http.MethodGet, "/models/{model_id}/usage", "Get the account's use of a model", "models"), modelUsageDoc)), s.getModelUsage)
	if s.deps.DefaultModels != nil {
		register(s, extension(withDesc(op("get_default_model", http.MethodGet, "/models/default", "Get the account's default model", "models"), getDefaultModelDoc)), s.getDefaultModel)
		register(s, admin(extension(withDesc(op("set_default_model", http.MethodPut, "/models/default", "Set the account's default model", "models"), setDefaultModelDoc)), "set the account's default model"), s.setDefaultModel)
	}
	register(s, op("list_model_alerts", http.MethodGet, "/models/alerts", "List Alerts", "models"), s.listModelAlerts)
	register(s, op("get_model_alert_unread_count", http.MethodGet, "/models/alerts/unread-count", "Get Alert Unread Count", "models"), s.modelAlertUnreadCount)
	register(s, withStatus(op("mark_model_alert_read", http.MethodPatch, "/models/alerts/{alert_id}/read", "Mark Read", "models"), http.StatusNoContent), s.markModelAlertRead)
	register(s, withStatus(op("mark_all_model_alerts_read", http.MethodPost, "/models/alerts/mark-all-read", "Mark All Read", "models"), http.StatusNoContent), s.markAllModelAlertsRead)
	register(s, op("list_playground_experiments", http.MethodGet, "/models/playground/experiments", "List Experiments", "models"), s.listExperiments)
	register(s, op("create_playground_experiment", http.MethodPost, "/models/playground/experiments", "Create Experiment", "models"), s.createExperiment)
	register(s, op("get_playground_experiment", http.MethodGet, "/models/playground/experiments/{experiment_id}", "Get Experiment", "models"), s.getExperiment)
	register(s, op("cancel_playground_experiment", http.MethodPost, "/models/playground/experiments/{experiment_id}/cancel", "Cancel Experiment", "models"), s.cancelExperiment)
	register(s, withStatus(op("delete_playground_experiment", http.MethodDelete, "/models/playground/experiments/{experiment_id}", "Delete Experiment", "models"), http.StatusNoContent), s.deleteExperiment)

	// Knowledge: sources (knowledge_sources.go), contents
	// (knowledge_contents.go), knowledge bases and their search, an
	// extension (knowledge_bases.go).
	register(s, op("list_sources", http.MethodGet, "/sources", "List sources", "sources"), s.listSources)
	register(s, withStatus(op("create_source", http.MethodPost, "/sources", "Create Source", "sources"), http.StatusCreated), s.createSource)
	register(s, op("get_source", http.MethodGet, "/sources/{source_connection_id}", "Get Source", "sources"), s.getSource)
	register(s, op("update_source", http.MethodPut, "/sources/{source_connection_id}", "Update Source", "sources"), s.updateSource)
	register(s, withStatus(op("delete_source", http.MethodDelete, "/sources/{source_connection_id}", "Delete Source", "sources"), http.StatusNoContent), s.deleteSource)
	register(s, op("upload_inline_text_to_source", http.MethodPost, "/sources/{source_connection_id}", "Upload inline text to a content source", "sources"), s.uploadSourceText)
	register(s, op("upload_file_to_source", http.MethodPost, "/sources/{source_connection_id}/upload", "Upload a file to a content source", "sources"), s.uploadSourceFile)
	register(s, extension(withDesc(op("list_source_contents", http.MethodGet, "/sources/{source_connection_id}/contents", "List a source's contents", "sources"), listSourceContentsDoc)), s.listSourceContents)
	s.multipartDoc("/sources/{source_connection_id}/upload", http.MethodPost)
	register(s, op("get_content_detail", http.MethodGet, "/contents/{source_connection_content_version}", "Get content details", "contents"), s.getContent)
	register(s, withStatus(op("delete_content", http.MethodDelete, "/contents/{source_connection_content_version}", "Delete content", "contents"), http.StatusNoContent), s.deleteContent)
	register(s, op("replace_content_with_inline_text", http.MethodPut, "/contents/{source_connection_content_version}", "Replace a content version with inline text", "contents"), s.replaceContentText)
	register(s, op("list_content_embeddings", http.MethodGet, "/contents/{source_connection_content_version}/embeddings", "List content embeddings", "contents"), s.listContentEmbeddings)
	register(s, op("upload_file_to_content", http.MethodPost, "/contents/{source_connection_content_version}/upload", "Replace a content version with a new upload", "contents"), s.replaceContentFile)
	s.multipartDoc("/contents/{source_connection_content_version}/upload", http.MethodPost)
	register(s, op("list_knowledge_bases", http.MethodGet, "/knowledge_bases", "List Knowledge Bases", "knowledge_bases"), s.listKnowledgeBases)
	register(s, withStatus(op("create_knowledge_base", http.MethodPost, "/knowledge_bases", "Create Knowledge Base", "knowledge_bases"), http.StatusCreated), s.createKnowledgeBase)
	register(s, op("get_knowledge_base", http.MethodGet, "/knowledge_bases/{knowledge_base_id}", "Get Knowledge Base", "knowledge_bases"), s.getKnowledgeBase)
	register(s, op("update_knowledge_base", http.MethodPut, "/knowledge_bases/{knowledge_base_id}", "Update Knowledge Base", "knowledge_bases"), s.updateKnowledgeBase)
	register(s, withStatus(op("delete_knowledge_base", http.MethodDelete, "/knowledge_bases/{knowledge_base_id}", "Delete Knowledge Base", "knowledge_bases"), http.StatusNoContent), s.deleteKnowledgeBase)
	register(s, extension(withDesc(op("search_knowledge_base", http.MethodPost, "/knowledge_bases/{knowledge_base_id}/search", "Search a knowledge base", "knowledge_bases"), searchKBDoc)), s.searchKnowledgeBase)
	register(s, extension(withDesc(op("get_knowledge_base_search_settings", http.MethodGet, "/knowledge_bases/{knowledge_base_id}/search-settings", "Get a knowledge base's search settings", "knowledge_bases"), searchSettingsDoc)), s.getSearchSettings)
	register(s, extension(withDesc(op("update_knowledge_base_search_settings", http.MethodPut, "/knowledge_bases/{knowledge_base_id}/search-settings", "Change a knowledge base's search settings", "knowledge_bases"), searchSettingsDoc)), s.updateSearchSettings)
	// Memory banks (memory_banks.go), when the memory area is wired.
	if s.deps.Memory != nil {
		const tag = "memory_banks"
		register(s, op("list_memory_banks", http.MethodGet, "/memory_banks", "List Memory Banks", tag), s.listMemoryBanks)
		register(s, withStatus(op("create_memory_bank", http.MethodPost, "/memory_banks", "Create Memory Bank", tag), http.StatusCreated), s.createMemoryBank)
		register(s, op("list_memory_bank_templates", http.MethodGet, "/memory_banks/templates", "List Templates", tag), s.listMemoryBankTemplates)
		register(s, op("test_compaction_standalone", http.MethodPost, "/memory_banks/test-compaction", "Test Compaction Prompt Standalone", tag), s.testMemoryCompactionStandalone)
		register(s, op("memory_bank_ai_generate", http.MethodPost, "/memory_banks/ai-assistant", "Generate a memory bank configuration", tag), s.memoryAssistant)
		register(s, op("memory_bank_ai_last_conversation", http.MethodGet, "/memory_banks/ai-assistant/last-conversation", "Fetch memory bank AI conversation history", tag), s.memoryAssistantConversation)
		register(s, op("memory_bank_ai_accept", http.MethodPatch, "/memory_banks/ai-assistant/{conversation_id}", "Accept or decline a memory bank AI suggestion", tag), s.memoryAssistantDecide)
		register(s, op("get_memory_bank", http.MethodGet, "/memory_banks/{memory_bank_id}", "Get Memory Bank", tag), s.getMemoryBank)
		register(s, op("update_memory_bank", http.MethodPut, "/memory_banks/{memory_bank_id}", "Update Memory Bank", tag), s.updateMemoryBank)
		register(s, withStatus(op("delete_memory_bank", http.MethodDelete, "/memory_banks/{memory_bank_id}", "Delete Memory Bank", tag), http.StatusNoContent), s.deleteMemoryBank)
		register(s, op("get_memory_bank_agents", http.MethodGet, "/memory_banks/{memory_bank_id}/agents", "Get Agents Using Bank", tag), s.memoryBankAgents)
		register(s, withStatus(op("compact_memory_bank", http.MethodPost, "/memory_banks/{memory_bank_id}/compact", "Compact Memory Bank", tag), http.StatusAccepted), s.compactMemoryBank)
		register(s, withStatus(op("delete_memory_bank_source", http.MethodDelete, "/memory_banks/{memory_bank_id}/source", "Delete Memory Bank Source", tag), http.StatusNoContent), s.deleteMemoryBankSource)
		register(s, op("get_memory_bank_stats", http.MethodGet, "/memory_banks/{memory_bank_id}/stats", "Get Memory Bank Entry Stats", tag), s.memoryBankStats)
		register(s, op("test_compaction", http.MethodPost, "/memory_banks/{memory_bank_id}/test-compaction", "Test Compaction Prompt", tag), s.testMemoryCompaction)
		// Browsing a bank's entries and keys, extensions (memory_entries.go).
		register(s, extension(withDesc(op("list_memory_bank_entries", http.MethodGet, "/memory_banks/{memory_bank_id}/entries", "List a memory bank's entries", tag), listMemoryEntriesDoc)), s.listMemoryEntries)
		register(s, extension(withDesc(op("list_memory_bank_keys", http.MethodGet, "/memory_banks/{memory_bank_id}/keys", "List a memory bank's keys", tag), listMemoryKeysDoc)), s.listMemoryKeys)
		// The same assistant, standalone.
		register(s, op("memory_bank_ai_generate_standalone", http.MethodPost, "/ai-assistant/memory-bank", "Generate a memory bank configuration (standalone)", "ai-assistant"), s.memoryAssistant)
		register(s, op("memory_bank_ai_last_conversation_standalone", http.MethodGet, "/ai-assistant/memory-bank/last-conversation", "Fetch memory bank AI conversation history", "ai-assistant"), s.memoryAssistantConversation)
		register(s, op("memory_bank_ai_accept_standalone", http.MethodPatch, "/ai-assistant/memory-bank/{conversation_id}", "Accept or decline a memory bank AI suggestion", "ai-assistant"), s.memoryAssistantDecide)
	}
	// Evaluations (evals.go): criteria, results, summaries, drafts.
	register(s, withStatus(op("create_evaluation_criteria", http.MethodPost, "/agents/{agent_id}/evaluation-criteria", "Create Evaluation Criteria", "agent-evaluations"), http.StatusCreated), s.createEvaluationCriteria)
	register(s, op("list_evaluation_criteria", http.MethodGet, "/agents/{agent_id}/evaluation-criteria", "List Evaluation Criteria", "agent-evaluations"), s.listEvaluationCriteria)
	register(s, op("test_draft_evaluation", http.MethodPost, "/agents/{agent_id}/evaluation-criteria/test-draft", "Test Draft Evaluation", "agent-evaluations"), s.testDraftEvaluation)
	register(s, op("get_evaluation_criteria", http.MethodGet, "/agents/evaluation-criteria/{criteria_id}", "Get Evaluation Criteria", "agent-evaluations"), s.getEvaluationCriteria)
	register(s, op("update_evaluation_criteria", http.MethodPatch, "/agents/evaluation-criteria/{criteria_id}", "Update Evaluation Criteria", "agent-evaluations"), s.updateEvaluationCriteria)
	register(s, withStatus(op("delete_evaluation_criteria", http.MethodDelete, "/agents/evaluation-criteria/{criteria_id}", "Delete Evaluation Criteria", "agent-evaluations"), http.StatusNoContent), s.deleteEvaluationCriteria)
	register(s, op("list_compatible_runs", http.MethodGet, "/agents/evaluation-criteria/{criteria_id}/compatible-runs", "List Compatible Runs", "agent-evaluations"), s.listCompatibleRuns)
	register(s, op("list_evaluation_results", http.MethodGet, "/agents/evaluation-criteria/{criteria_id}/results", "List Evaluation Results", "agent-evaluations"), s.listCriteriaResults)
	register(s, withStatus(op("create_evaluation_result", http.MethodPost, "/agents/evaluation-criteria/{criteria_id}/results", "Create Evaluation Result", "agent-evaluations"), http.StatusCreated), s.createEvaluationResult)
	register(s, op("get_evaluation_summary", http.MethodGet, "/agents/evaluation-criteria/{criteria_id}/summary", "Get Evaluation Summary", "agent-evaluations"), s.getEvaluationSummary)
	register(s, op("get_non_manual_evaluation_summary", http.MethodGet, "/agents/evaluation-results/non-manual-summary", "Get Non Manual Evaluation Summary", "agent-evaluations"), s.getNonManualSummary)
	register(s, op("list_agent_evaluation_results", http.MethodGet, "/agents/{agent_id}/evaluation-results", "List Agent Evaluation Results", "agent-evaluations"), s.listAgentEvaluationResults)
	register(s, op("list_evaluation_runs", http.MethodGet, "/agents/{agent_id}/evaluation-runs", "List Evaluation Runs", "agent-evaluations"), s.listEvaluationRuns)
	register(s, op("list_run_evaluation_results", http.MethodGet, "/agents/{agent_id}/runs/{run_id}/evaluation-results", "List Run Evaluation Results", "agent-evaluations"), s.listRunEvaluationResults)
	// An agent's results per day, an extension (evals_daily.go).
	register(s, extension(withDesc(op("get_agent_evaluation_daily", http.MethodGet, "/agents/{agent_id}/evaluation-results/daily", "Daily pass rates of an agent's evaluation results", "agent-evaluations"), evaluationDailyDoc)), s.getEvaluationDaily)

	// Governance (governance.go): the assistant, and policies and checks (extensions).
	register(s, admin(op("governance_ai_generate", http.MethodPost, "/governance/ai-assistant", "Generate a governance plan", "governance"), "use governance"), s.governanceAssistant)
	register(s, admin(op("list_governance_ai_conversations", http.MethodGet, "/governance/ai-assistant/conversations", "List AI assistant conversations", "governance"), "use governance"), s.listGovernanceConversations)
	register(s, admin(op("governance_ai_accept", http.MethodPost, "/governance/ai-assistant/{conversation_id}/accept", "Accept a governance plan", "governance"), "use governance"), s.acceptGovernancePlan)
	register(s, admin(withStatus(op("governance_ai_decline", http.MethodPost, "/governance/ai-assistant/{conversation_id}/decline", "Decline a governance plan", "governance"), http.StatusNoContent), "use governance"), s.declineGovernancePlan)
	register(s, extension(withDesc(op("list_governance_policies", http.MethodGet, "/governance/policies", "List governance policies", "governance"), governancePoliciesDoc)), s.listGovernancePolicies)
	register(s, admin(extension(withStatus(withDesc(op("create_governance_policy", http.MethodPost, "/governance/policies", "Create a governance policy", "governance"), governancePoliciesDoc), http.StatusCreated)), "use governance"), s.createGovernancePolicy)
	register(s, extension(withDesc(op("get_governance_policy", http.MethodGet, "/governance/policies/{policy_id}", "Get a governance policy", "governance"), governancePoliciesDoc)), s.getGovernancePolicy)
	register(s, admin(extension(withDesc(op("update_governance_policy", http.MethodPatch, "/governance/policies/{policy_id}", "Change a governance policy", "governance"), governancePoliciesDoc)), "use governance"), s.updateGovernancePolicy)
	register(s, admin(extension(withStatus(withDesc(op("delete_governance_policy", http.MethodDelete, "/governance/policies/{policy_id}", "Delete a governance policy", "governance"), governancePoliciesDoc), http.StatusNoContent)), "use governance"), s.deleteGovernancePolicy)
	register(s, extension(withDesc(op("list_governance_violations", http.MethodGet, "/governance/violations", "List recorded governance flags and blocks", "governance"), governanceViolationsDoc)), s.listGovernanceViolations)
	register(s, extension(withDesc(op("check_governance", http.MethodPost, "/governance/check", "Check text against governance policies", "governance"), governanceCheckDoc)), s.checkGovernance)
	// Alerts (alerts.go); a config's webhook and delivery log are extensions.
	register(s, op("list_alerts", http.MethodGet, "/alerts", "List alerts", "alerts"), s.listAlerts)
	register(s, op("list_alert_configs", http.MethodGet, "/alerts/configs", "List alert configs", "alerts"), s.listAlertConfigs)
	register(s, withStatus(op("create_alert_config", http.MethodPost, "/alerts/configs", "Create alert config", "alerts"), http.StatusCreated), s.createAlertConfig)
	register(s, op("get_alert_config", http.MethodGet, "/alerts/configs/{config_id}", "Get alert config", "alerts"), s.getAlertConfig)
	register(s, op("update_alert_config", http.MethodPatch, "/alerts/configs/{config_id}", "Update alert config", "alerts"), s.updateAlertConfig)
	register(s, withStatus(op("delete_alert_config", http.MethodDelete, "/alerts/configs/{config_id}", "Delete alert config", "alerts"), http.StatusNoContent), s.deleteAlertConfig)
	register(s, extension(withDesc(op("get_alert_config_webhook", http.MethodGet, "/alerts/configs/{config_id}/webhook", "Get an alert config's webhook", "alerts"), getAlertWebhookDoc)), s.getAlertWebhook)
	register(s, admin(extension(withDesc(op("set_alert_config_webhook", http.MethodPut, "/alerts/configs/{config_id}/webhook", "Send an alert config's alerts to a signed webhook", "alerts"), setAlertWebhookDoc)), "set where alerts are sent"), s.setAlertWebhook)
	register(s, admin(extension(withStatus(withDesc(op("delete_alert_config_webhook", http.MethodDelete, "/alerts/configs/{config_id}/webhook", "Stop an alert config's webhook", "alerts"), deleteAlertWebhookDoc), http.StatusNoContent)), "change where alerts are sent"), s.deleteAlertWebhook)
	register(s, extension(withDesc(op("list_alert_config_deliveries", http.MethodGet, "/alerts/configs/{config_id}/deliveries", "List an alert config's deliveries", "alerts"), listDeliveriesDoc)), s.listAlertDeliveries)
	register(s, op("list_organization_alert_preferences", http.MethodGet, "/alerts/organization-preferences/list", "List organization alert delivery preferences", "alerts"), s.listOrgAlertPreferences)
	register(s, op("update_organization_alert_preference", http.MethodPatch, "/alerts/organization-preferences/{organization_id}/{alert_type}", "Update organization alert delivery preference", "alerts"), s.updateOrgAlertPreference)
	register(s, op("get_alert_detail", http.MethodGet, "/alerts/{alert_id}", "Get alert detail", "alerts"), s.getAlertDetail)
	register(s, op("add_alert_comment", http.MethodPost, "/alerts/{alert_id}/comments", "Add alert comment", "alerts"), s.addAlertComment)
	register(s, op("change_alert_status", http.MethodPost, "/alerts/{alert_id}/status", "Change alert status", "alerts"), s.changeAlertStatus)
	register(s, op("subscribe_to_alert", http.MethodPost, "/alerts/{alert_id}/subscribe", "Subscribe to alert", "alerts"), s.subscribeToAlert)
	register(s, op("unsubscribe_from_alert", http.MethodPost, "/alerts/{alert_id}/unsubscribe", "Unsubscribe from alert", "alerts"), s.unsubscribeFromAlert)

	// Agents (agents*.go), their templates and schedules (extensions).
	register(s, op("list_agents", http.MethodGet, "/agents", "List agents", "agents"), s.listAgents)
	register(s, withStatus(op("create_agent", http.MethodPost, "/agents", "Create an agent", "agents"), http.StatusCreated), s.createAgent)
	register(s, extension(withDesc(op("list_agent_templates", http.MethodGet, "/agents/templates", "List agent templates", "agents"), listTemplatesDoc)), s.listAgentTemplates)
	register(s, op("preview_import_agent", http.MethodPost, "/agents/preview-import", "Preview an agent_definition import", "agents"), s.previewImportAgent)
	register(s, op("get_agent", http.MethodGet, "/agents/{agent_id}", "Get an agent", "agents"), s.getAgent)
	register(s, op("update_agent", http.MethodPut, "/agents/{agent_id}", "Update agent metadata", "agents"), s.updateAgent)
	register(s, withStatus(op("delete_agent", http.MethodDelete, "/agents/{agent_id}", "Delete an agent", "agents"), http.StatusNoContent), s.deleteAgent)
	register(s, op("get_agent_definition", http.MethodGet, "/agents/{agent_id}/definition", "Get agent definition", "agents"), s.getAgentDefinition)
	register(s, op("update_agent_definition", http.MethodPut, "/agents/{agent_id}/definition", "Update agent definition", "agents"), s.putAgentDefinition)
	register(s, op("export_agent", http.MethodGet, "/agents/{agent_id}/export", "Export agent definition", "agents"), s.exportAgent)
	// Workflow versions, an extension (agents_versions.go).
	register(s, extension(withDesc(op("list_agent_versions", http.MethodGet, "/agents/{agent_id}/versions", "List an agent's workflow versions", "agents"), listVersionsDoc)), s.listAgentVersions)
	register(s, extension(withDesc(op("get_agent_version", http.MethodGet, "/agents/{agent_id}/versions/{change_id}", "Get a workflow version", "agents"), getVersionDoc)), s.getAgentVersion)
	register(s, extension(withDesc(op("diff_agent_version", http.MethodGet, "/agents/{agent_id}/versions/{change_id}/diff", "Compare two workflow versions", "agents"), diffVersionDoc)), s.diffAgentVersion)
	register(s, extension(withDesc(op("restore_agent_version", http.MethodPost, "/agents/{agent_id}/versions/{change_id}/restore", "Restore a workflow version", "agents"), restoreVersionDoc)), s.restoreAgentVersion)
	// Regression runs, an extension (regressions.go).
	if s.deps.Regressions != nil {
		register(s, withStatus(extension(withDesc(op("create_agent_regression", http.MethodPost, "/agents/{agent_id}/regressions", "Start a regression run", "agents"), createRegressionDoc)), http.StatusAccepted), s.createRegression)
		register(s, extension(withDesc(op("list_agent_regressions", http.MethodGet, "/agents/{agent_id}/regressions", "List an agent's regression runs", "agents"), listRegressionsDoc)), s.listRegressions)
		register(s, extension(withDesc(op("get_agent_regression", http.MethodGet, "/agents/{agent_id}/regressions/{regression_id}", "Get a regression run and its report", "agents"), getRegressionDoc)), s.getRegression)
		register(s, extension(withDesc(op("cancel_agent_regression", http.MethodPost, "/agents/{agent_id}/regressions/{regression_id}/cancel", "Cancel a regression run", "agents"), cancelRegressionDoc)), s.cancelRegression)
	}
	register(s, op("disable_agent", http.MethodPost, "/agents/{agent_id}/disable", "Pause (disable) an agent", "agents"), s.disableAgent)
	register(s, op("enable_agent", http.MethodPost, "/agents/{agent_id}/enable", "Resume (enable) a paused agent", "agents"), s.enableAgent)
	register(s, op("get_agent_callers", http.MethodGet, "/agents/{agent_id}/callers", "List agents that call this agent", "agents"), s.getAgentCallers)
	register(s, extension(withDesc(op("list_agent_mcp_tools", http.MethodGet, "/agents/mcp-tools", "List the agents exposed as MCP tools", "agents"), agentMCPToolDoc)), s.listAgentMCPTools)
	register(s, extension(withDesc(op("get_agent_mcp_tool", http.MethodGet, "/agents/{agent_id}/mcp-tool", "Get how an agent is exposed as an MCP tool", "agents"), agentMCPToolDoc)), s.getAgentMCPTool)
	register(s, extension(withDesc(op("put_agent_mcp_tool", http.MethodPut, "/agents/{agent_id}/mcp-tool", "Expose an agent as an MCP tool, or stop", "agents"), agentMCPToolDoc)), s.putAgentMCPTool)
	register(s, op("get_agent_attachment_references", http.MethodGet, "/agents/{agent_id}/attachment-references", "Get agent attachment-reference contract", "agents"), s.getAgentAttachmentReferences)
	s.registerUploadInput(op("upload_agent_input", http.MethodPost, uploadPath, "Upload file input", "agents"))
	register(s, op("get_agent_input_upload", http.MethodGet, "/agents/{agent_id}/input-uploads/{upload_id}", "Get upload status", "agents"), s.getAgentInputUpload)
	register(s, extension(withDesc(op("list_agent_schedules", http.MethodGet, "/agents/{agent_id}/schedules", "List an agent's schedules", "agents"), schedulesDoc)), s.listAgentSchedules)
	register(s, extension(withStatus(withDesc(op("create_agent_schedule", http.MethodPost, "/agents/{agent_id}/schedules", "Add a schedule to an agent", "agents"), schedulesDoc), http.StatusCreated)), s.createAgentSchedule)
	register(s, extension(withDesc(op("update_agent_schedule", http.MethodPut, "/agents/{agent_id}/schedules/{schedule_id}", "Change an agent's schedule", "agents"), schedulesDoc)), s.updateAgentSchedule)
	register(s, extension(withStatus(withDesc(op("delete_agent_schedule", http.MethodDelete, "/agents/{agent_id}/schedules/{schedule_id}", "Remove an agent's schedule", "agents"), schedulesDoc), http.StatusNoContent)), s.deleteAgentSchedule)

	// Solutions (solutions.go), their planning assistants and the
	// standalone ones (solutions_assistant.go), the agent assistant
	// (agents_assistant.go), feedback (assistant_feedback.go), account and
	// documentation search (search.go).
	register(s, op("list_solutions", http.MethodGet, "/solutions", "List solutions", "solutions"), s.listSolutions)
	register(s, withStatus(op("create_solution", http.MethodPost, "/solutions", "Create a solution", "solutions"), http.StatusCreated), s.createSolution)
	register(s, op("get_solution", http.MethodGet, "/solutions/{solution_id}", "Get a solution", "solutions"), s.getSolution)
	register(s, op("update_solution", http.MethodPatch, "/solutions/{solution_id}", "Update a solution", "solutions"), s.updateSolution)
	register(s, withStatus(op("delete_solution", http.MethodDelete, "/solutions/{solution_id}", "Delete a solution", "solutions"), http.StatusNoContent), s.deleteSolution)
	register(s, op("link_agents", http.MethodPost, "/solutions/{solution_id}/agents", "Link agents", "solutions"), s.linker(solutions.LinkAgents, true))
	register(s, op("unlink_agents", http.MethodDelete, "/solutions/{solution_id}/agents", "Unlink agents", "solutions"), s.linker(solutions.LinkAgents, false))
	register(s, op("link_knowledge_bases", http.MethodPost, "/solutions/{solution_id}/knowledge-bases", "Link knowledge bases", "solutions"), s.linker(solutions.LinkKnowledgeBases, true))
	register(s, op("unlink_knowledge_bases", http.MethodDelete, "/solutions/{solution_id}/knowledge-bases", "Unlink knowledge bases", "solutions"), s.linker(solutions.LinkKnowledgeBases, false))
	register(s, op("link_source_connections", http.MethodPost, "/solutions/{solution_id}/source-connections", "Link source connections", "solutions"), s.linker(solutions.LinkSources, true))
	register(s, op("unlink_source_connections", http.MethodDelete, "/solutions/{solution_id}/source-connections", "Unlink source connections", "solutions"), s.linker(solutions.LinkSources, false))
	register(s, op("list_solution_conversations", http.MethodGet, "/solutions/{solution_id}/conversations", "List conversations", "solutions"), s.listSolutionConversations)
	register(s, withStatus(op("add_solution_conversation_turn", http.MethodPost, "/solutions/{solution_id}/conversations", "Add conversation turn", "solutions"), http.StatusCreated), s.addSolutionConversation)
	register(s, withStatus(op("mark_solution_conversation_turn", http.MethodPatch, "/solutions/{solution_id}/conversations/{conversation_id}", "Mark conversation turn", "solutions"), http.StatusNoContent), s.markSolutionConversation)
	register(s, op("solution_ai_generate", http.MethodPost, "/solutions/{solution_id}/ai-assistant/generate", "Generate solution plan", "solutions"), s.planner(solutions.KindSolution))
	register(s, op("solution_ai_knowledge_base", http.MethodPost, "/solutions/{solution_id}/ai-assistant/knowledge-base", "Generate knowledge base plan", "solutions"), s.planner(solutions.KindKnowledgeBase))
	register(s, op("solution_ai_source", http.MethodPost, "/solutions/{solution_id}/ai-assistant/source", "Generate source plan", "solutions"), s.planner(solutions.KindSource))
	register(s, op("solution_ai_accept", http.MethodPost, "/solutions/{solution_id}/ai-assistant/{conversation_id}/accept", "Accept plan", "solutions"), s.acceptPlan)
	register(s, withStatus(op("solution_ai_decline", http.MethodPost, "/solutions/{solution_id}/ai-assistant/{conversation_id}/decline", "Decline plan", "solutions"), http.StatusNoContent), s.declinePlan)
	register(s, op("ai_assistant_solution", http.MethodPost, "/ai-assistant/solution", "Generate a solution plan (standalone)", "ai-assistant"), s.standalonePlanner(solutions.KindSolution))
	register(s, op("ai_assistant_knowledge_base", http.MethodPost, "/ai-assistant/knowledge-base", "Generate a knowledge base plan (standalone)", "ai-assistant"), s.standalonePlanner(solutions.KindKnowledgeBase))
	register(s, op("ai_assistant_source", http.MethodPost, "/ai-assistant/source", "Generate a source plan (standalone)", "ai-assistant"), s.standalonePlanner(solutions.KindSource))
	register(s, op("ai_assistant_accept", http.MethodPost, "/ai-assistant/{conversation_id}/accept", "Accept and execute a standalone plan", "ai-assistant"), s.acceptStandalonePlan)
	register(s, withStatus(op("ai_assistant_decline", http.MethodPost, "/ai-assistant/{conversation_id}/decline", "Decline a standalone plan", "ai-assistant"), http.StatusNoContent), s.declineStandalonePlan)
	register(s, op("ai_assistant_feedback", http.MethodPost, "/ai-assistant/feedback", "Submit AI assistant feedback", "ai-assistant"), s.assistantFeedback)
	register(s, op("generate_agent_steps", http.MethodPost, "/agents/{agent_id}/ai-assistant/generate-steps", "Generate agent workflow", "agents"), s.generateAgentSteps)
	register(s, op("generate_step_config", http.MethodPost, "/agents/{agent_id}/ai-assistant/step-config", "Generate step configuration", "agents"), s.generateStepConfig)
	register(s, op("get_ai_conversation_history", http.MethodGet, "/agents/{agent_id}/ai-assistant/conversations", "Get AI conversation history", "agents"), s.agentAssistantHistory)
	register(s, op("mark_ai_suggestion", http.MethodPatch, "/agents/{agent_id}/ai-assistant/{conversation_id}", "Accept or decline suggestion", "agents"), s.markAgentSuggestion)
	register(s, op("search_resources", http.MethodGet, "/search", "Search resources", "search"), s.searchAccount)
	register(s, op("docs_search", http.MethodGet, "/docs-search", "Search documentation", "search"), s.searchDocs)

	// Inbound mail (mail_inbound.go): trigger email settings, blocklist,
	// rejections and the overload breaker.
	register(s, op("set_email_trigger_config", http.MethodPut, "/agents/{agent_id}/triggers/{trigger_id}/email-config", "Configure an EMAIL_RECEIVED trigger", "agents"), s.setEmailTriggerConfig)
	register(s, op("list_blocked_email_senders", http.MethodGet, "/agents/blocked-email-senders", "List blocked inbound email senders + the auto-block mode", "agents"), s.listBlockedSenders)
	register(s, admin(withStatus(op("block_email_sender", http.MethodPost, "/agents/blocked-email-senders", "Block an inbound email sender or domain", "agents"), http.StatusCreated), "change the blocklist"), s.blockSender)
	register(s, admin(op("set_auto_block_mode", http.MethodPut, "/agents/blocked-email-senders/mode", "Set the governance auto-block mode", "agents"), "change the auto-block mode"), s.setAutoBlockMode)
	register(s, admin(withStatus(op("unblock_email_sender", http.MethodDelete, "/agents/blocked-email-senders/{blocked_id}", "Unblock an inbound email sender", "agents"), http.StatusNoContent), "change the blocklist"), s.unblockSender)
	register(s, op("list_inbound_email_rejections", http.MethodGet, "/agents/inbound-email-rejections", "List discarded inbound emails", "agents"), s.listInboundRejections)
	register(s, op("get_inbound_email_status", http.MethodGet, "/agents/inbound-email-status", "Account inbound-email overload status", "agents"), s.inboundEmailStatus)
	register(s, admin(op("cancel_queued_email_runs", http.MethodPost, "/agents/inbound-email-status/cancel-queued", "Cancel all queued inbound-email runs", "agents"), "cancel queued runs"), s.cancelQueuedEmailRuns)
	register(s, admin(op("resume_inbound_email", http.MethodPost, "/agents/inbound-email-status/resume", "Manually resume paused inbound email", "agents"), "resume inbound email"), s.resumeInboundEmail)
	// Mail, outbound side: opt-outs and the unsubscribe link
	// (email_optouts.go), email domains (email_domains.go).
	register(s, op("list_agent_email_optouts", http.MethodGet, "/agents/agent-email-optouts", "List agent-email opt-outs", "agents"), s.listAgentEmailOptOuts)
	register(s, withStatus(op("remove_agent_email_optout", http.MethodDelete, "/agents/agent-email-optouts/{optout_id}", "Revoke an agent-email opt-out", "agents"), http.StatusNoContent), s.removeAgentEmailOptOut)
	register(s, public(extension(withDesc(op("unsubscribe_page", http.MethodGet, "/email/unsubscribe", "Confirm an unsubscribe link", "email"), unsubscribeDoc))), s.unsubscribePage)
	register(s, public(extension(withDesc(op("unsubscribe", http.MethodPost, "/email/unsubscribe", "One-click unsubscribe (RFC 8058)", "email"), unsubscribeDoc))), s.unsubscribe)
	register(s, userBound(op("list_email_domains", http.MethodGet, "/email-domains", "List the account's email domains + plan capabilities", "email-domains"), "Email domains"), s.listEmailDomains)
	register(s, admin(userBound(op("add_email_domain", http.MethodPost, "/email-domains", "Add + provision an email domain", "email-domains"), "Email domains"), "change its email domains"), s.addEmailDomain)
	register(s, admin(userBound(withStatus(op("use_shared_domain", http.MethodPost, "/email-domains/use-shared-domain", "Revert to the shared sending domain", "email-domains"), http.StatusNoContent), "Email domains"), "change its email domains"), s.useSharedEmailDomain)
	register(s, admin(userBound(op("remove_email_domain", http.MethodDelete, "/email-domains/{domain_id}", "Remove an email domain", "email-domains"), "Email domains"), "change its email domains"), s.removeEmailDomain)
	register(s, userBound(op("get_dmarc_summary", http.MethodGet, "/email-domains/{domain_id}/dmarc", "DMARC aggregate-report summary for a domain", "email-domains"), "Email domains"), s.getDMARCSummary)
	register(s, admin(userBound(op("set_primary_email_domain", http.MethodPost, "/email-domains/{domain_id}/primary", "Make a verified domain the account's primary sending/inbound domain", "email-domains"), "Email domains"), "change its email domains"), s.setPrimaryEmailDomain)
	register(s, admin(userBound(op("send_test_email", http.MethodPost, "/email-domains/{domain_id}/test-email", "Send a test email from a verified domain to the account owner", "email-domains"), "Email domains"), "change its email domains"), s.sendTestEmail)
	register(s, admin(userBound(op("verify_email_domain", http.MethodPost, "/email-domains/{domain_id}/verify", "Run a verification check immediately ('Check now')", "email-domains"), "Email domains"), "change its email domains"), s.verifyEmailDomain)
}

// public marks o as needing no credentials (the token in its query is the
// authority).
func public(o huma.Operation) huma.Operation {
	if o.Metadata == nil {
		o.Metadata = map[string]any{}
	}
	o.Metadata[metaPublic] = true
	o.Security = []map[string][]string{}
	return o
}

// op describes an operation with the defaults every operation shares.
func op(id, method, path, summary, tag string) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{tag}}
}

// ExtensionKey marks, in /openapi.json, an operation of ours that the Agent
// Platform API lacks (human review decisions, schedules, account secrets,
// knowledge-base search…), so users and the conformance suite can tell them
// apart. Extensions only add paths; they never change a reference operation.
const ExtensionKey = "x-agentry-extension"

// extension marks o as one of our extensions, in its OpenAPI extensions and
// at the head of its description.
func extension(o huma.Operation) huma.Operation {
	if o.Extensions == nil {
		o.Extensions = map[string]any{}
	}
	o.Extensions[ExtensionKey] = true
	o.Description = strings.TrimSpace("Extension: Agentry adds this operation; the Agent Platform API does not have it.\n\n" + o.Description)
	return o
}

// register adds an operation with the shared defaults: authentication, the
// body limit, and the two headers every operation accepts.
func register[I, O any](s *Server, o huma.Operation, h func(context.Context, *I) (*O, error)) {
	if o.Security == nil {
		o.Security = []map[string][]string{{"ApiKeyAuth": {}}, {"BearerAuth": {}}}
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = s.deps.MaxBodyBytes
	}
	o.Parameters = append(o.Parameters,
		&huma.Param{Name: "X-Account-Id", In: "header", Description: "Target an organization account (OAuth only); ignored for API keys.", Schema: &huma.Schema{Type: "string", Format: "uuid"}},
		&huma.Param{Name: version.Header, In: "header", Description: "Opt into dated API changes (YYYY-MM-DD).", Schema: &huma.Schema{Type: "string", Pattern: `^\d{4}-\d{2}-\d{2}$`}},
	)
	huma.Register(s.api, o, func(ctx context.Context, in *I) (*O, error) {
		if err := nulInInput(in); err != nil {
			return nil, err
		}
		return h(ctx, in)
	})
}

// principal returns the caller; every authenticated handler has one.
func principal(ctx context.Context) auth.Principal {
	p, _ := auth.FromContext(ctx)
	return p
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.deps.Ready(r.Context()); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "detail": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// allowExtraFields lets request bodies carry fields an operation does not
// declare, as the contract's schemas do (they never close an object): a
// client built against a newer version keeps working. huma closes objects
// by default and checks the flag at validation time, so opening the
// registered schemas after registration is enough.
// extensionFields are the response fields of ours that the Agent Platform
// API's schemas lack, by the schema that carries them. Each is optional,
// documented, and marked with ExtensionKey in /openapi.json, where the
// conformance suite reads which fields it lets through.
var extensionFields = map[string][]string{
	"RunResponse": {"trace_id", // the run's OpenTelemetry trace (docs/observability.md)
		"change_id", "rerun_of", "rerun_from_step", "reruns"}, // workflow versions and reruns (docs/versions.md)
	"StepView":              {"reused"},
	"AgentRunRequest":       {"change_id"},
	"AgentRunStreamRequest": {"change_id"},
	// the agent's trigger ids, which email-config takes (docs/email.md)
	"AgentSummaryResponse": {"triggers"},
	// the auto-block mode beside the strict-version blocklist (docs/versioning.md)
	"BlockedEmailSenderEnvelope": {"auto_block_mode"},
}

// versionedSchemas are answers of operations whose body depends on the
// version (Body any), so huma cannot derive them: they are added to the
// document's components, where their fields are documented and marked.
var versionedSchemas = []reflect.Type{reflect.TypeFor[BlockedEmailSenderEnvelope]()}

// markExtensionFields marks the extension fields in the generated schemas.
func markExtensionFields(a huma.API) {
	for _, t := range versionedSchemas {
		a.OpenAPI().Components.Schemas.Schema(t, true, "")
	}
	schemas := a.OpenAPI().Components.Schemas.Map()
	for name, fields := range extensionFields {
		sc, ok := schemas[name]
		if !ok {
			panic("api: extension fields of unknown schema " + name)
		}
		for _, f := range fields {
			p, ok := sc.Properties[f]
			if !ok {
				panic("api: schema " + name + " has no extension field " + f)
			}
			if p.Extensions == nil {
				p.Extensions = map[string]any{}
			}
			p.Extensions[ExtensionKey] = true
		}
	}
}

func allowExtraFields(a huma.API) {
	for _, sc := range a.OpenAPI().Components.Schemas.Map() {
		if sc.Type == "object" {
			if closed, ok := sc.AdditionalProperties.(bool); ok && !closed {
				sc.AdditionalProperties = true
			}
		}
	}
}
