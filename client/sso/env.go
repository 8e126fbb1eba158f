package sso

// Environment variables this package reads. They override what the
// configuration file says, so one machine can switch identity providers
// without editing the file.
const (
	EnvConfigDir    = "SERVICE_CONFIG_DIR"
	EnvProfile      = "SERVICE_PROFILE"
	EnvDomain       = "SERVICE_SSO_DOMAIN"
	EnvClientID     = "SERVICE_SSO_CLIENT_ID"
	EnvRegion       = "SERVICE_SSO_REGION"
	EnvClientSecret = "SERVICE_SSO_CLIENT_SECRET"
)

// Getenv looks up an environment variable; os.Getenv fits. Functions take it
// as a parameter so tests and embedding programs can supply their own.
type Getenv func(string) string

func (g Getenv) get(name string) string {
	if g == nil {
		return ""
	}
	return g(name)
}
