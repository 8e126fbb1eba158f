package client

// Environment variables the client reads when the matching option is not
// given. The SSO variables (SERVICE_SSO_DOMAIN, …) are read by package sso.
const (
	EnvAPIURL  = "SERVICE_API_URL"
	EnvAPIKey  = "SERVICE_API_KEY"
	EnvProfile = "SERVICE_PROFILE"
	// EnvConfigDir moves ~/.service (the configuration file and token cache).
	EnvConfigDir = "SERVICE_CONFIG_DIR"
)

// DefaultBaseURL is where `agentry serve` listens by default.
const DefaultBaseURL = "http://127.0.0.1:8080"

// Header names of the API's own conventions.
const (
	VersionHeader = "Service-Version"
	AccountHeader = "X-Account-Id"
	APIKeyHeader  = "X-API-Key"
)
