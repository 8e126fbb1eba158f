package api

import (
	"context"
	"net/http"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/secrets"
)

// Account secrets, an extension: write-only values that definitions name
// as {{secrets.NAME}} (S3 credentials, MCP headers, webhook signing keys),
// each bound by its writer to the hosts it may be sent to. No operation
// ever answers a value.

// Descriptions of the secrets operations (routes in api.go).
const (
	listSecretsDoc = "Names and times of the account's secrets; values are write-only and never answered."
	putSecretDoc   = "Stores a value under a name, sealed at rest, bound to the hosts it may be sent to; 201 when the name is new, " +
		"200 when it replaces a value or hosts. A new secret needs value and hosts; an existing one takes either (the other is kept). " +
		"Every request carrying the secret, or a signature made with it, goes to one of its hosts or is refused. " +
		"Owner or admin only. The value is never answered, logged or exported."
	deleteSecretDoc = "Owner or admin only. Steps naming the secret fail until it is stored again."
)

// SecretResponse describes a secret; it never carries the value.
type SecretResponse struct {
	Name      string   `json:"name" doc:"The secret's name, as definitions reference it: {{secrets.NAME}}."`
	Hosts     []string `json:"hosts" doc:"The hosts the secret may be sent to; empty for a secret stored before secrets were bound to hosts, which is sent nowhere until it is bound."`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

// SecretListResponse is the list's shape before Service-Version 2026-07-27.
type SecretListResponse struct {
	Secrets []SecretResponse `json:"secrets"`
	Total   int              `json:"total"`
}

// PutSecretRequest is the body of PUT /secrets/{name}.
type PutSecretRequest struct {
	Value *string  `json:"value,omitempty" required:"false" minLength:"1" maxLength:"16384" doc:"The secret value (UTF-8, at most 16 KiB). Write-only. Required for a new secret; omit it to change only the hosts."`
	Hosts []string `json:"hosts,omitempty" required:"false" nullable:"true" maxItems:"16" doc:"The hosts the secret may be sent to (1 to 16): api.example.com, minio.internal:9000, *.example.com, 203.0.113.7. Without a port only the scheme's default port matches. Required for a new secret; omit it to keep the stored hosts."`
}

func secretResponse(i secrets.Info) SecretResponse {
	hosts := i.Hosts
	if hosts == nil {
		hosts = []string{}
	}
	return SecretResponse{Name: i.Name, Hosts: hosts, CreatedAt: modelsTimestamp(i.CreatedAt), UpdatedAt: modelsTimestamp(i.UpdatedAt)}
}

type listSecretsInput struct {
	Page  int `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number (1-based)."`
	Limit int `query:"limit" default:"100" minimum:"1" maximum:"200" doc:"Secrets per page (1-200)."`
}

type secretsAnyOutput struct{ Body any }

func (s *Server) listSecrets(ctx context.Context, in *listSecretsInput) (*secretsAnyOutput, error) {
	all, err := s.deps.Secrets.List(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	from := min(paging.Offset(in.Page, in.Limit), len(all))
	to := min(from+in.Limit, len(all))
	items := make([]SecretResponse, 0, to-from)
	for _, i := range all[from:to] {
		items = append(items, secretResponse(i))
	}
	return &secretsAnyOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, len(all)),
		func(items []SecretResponse, p Pagination) any {
			return SecretListResponse{Secrets: items, Total: p.Total}
		})}, nil
}

type secretNameInput struct {
	Name string `path:"name" maxLength:"64" doc:"Secret name: a letter or underscore, then up to 63 letters, digits or underscores."`
}

type putSecretInput struct {
	Name string `path:"name" maxLength:"64" doc:"Secret name: a letter or underscore, then up to 63 letters, digits or underscores."`
	Body PutSecretRequest
}

type putSecretOutput struct {
	Status int
	Body   SecretResponse
}

func (s *Server) putSecret(ctx context.Context, in *putSecretInput) (*putSecretOutput, error) {
	p := principal(ctx)
	info, created, err := s.deps.Secrets.Put(ctx, p.AccountID, in.Name, in.Body.Value, in.Body.Hosts)
	if err != nil {
		return nil, err
	}
	out := &putSecretOutput{Status: http.StatusOK, Body: secretResponse(info)}
	if created {
		out.Status = http.StatusCreated
	}
	return out, nil
}

func (s *Server) deleteSecret(ctx context.Context, in *secretNameInput) (*struct{}, error) {
	p := principal(ctx)
	if err := s.deps.Secrets.Delete(ctx, p.AccountID, in.Name); err != nil {
		return nil, fault.Name(err, "Secret")
	}
	return nil, nil
}
