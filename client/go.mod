module github.com/agentry/agentry/client

go 1.24

require (
	github.com/coreos/go-oidc/v3 v3.14.1
	github.com/oauth2-proxy/mockoidc v0.0.0-20240214162133-caebfff84d25
	golang.org/x/oauth2 v0.30.0
	gopkg.in/ini.v1 v1.67.3
)

require (
	github.com/go-jose/go-jose/v3 v3.0.1 // indirect
	github.com/go-jose/go-jose/v4 v4.0.5 // indirect
	github.com/golang-jwt/jwt/v5 v5.2.0 // indirect
	golang.org/x/crypto v0.36.0 // indirect
)
