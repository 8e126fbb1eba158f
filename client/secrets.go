package client

import (
	"context"
	"iter"
	"net/http"
)

// Account secrets (an Agentry extension): write-only values an account
// stores on the server, which agent definitions name as {{secrets.NAME}}
// instead of holding them (S3 credentials of write_aws_s3_object, MCP
// headers, alert webhook keys). Each is bound to the hosts it may be sent
// to. The server never answers a value: these methods store, bind, list
// and delete.

// Secret describes an account secret; it never carries the value.
type Secret struct {
	Name string `json:"name"`
	// Hosts are the hosts the secret may be sent to; empty for a secret
	// stored before secrets were bound to hosts (sent nowhere until bound).
	Hosts     []string `json:"hosts"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
	// Created is set by SetSecret: true when the name was new, false when
	// the call replaced a value.
	Created bool `json:"-"`
}

// SecretListOptions page GET /secrets.
type SecretListOptions struct {
	Page  int // 1-based; 1 when zero
	Limit int // 1–200; the server's default (100) when zero
}

const maxSecretPage = 200

func (o SecretListOptions) query() ListQuery {
	return ListQuery{Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, maxSecretPage), Key: "secrets"}
}

// ListSecrets returns one page of the account's secrets, by name.
func (c *Client) ListSecrets(ctx context.Context, o SecretListOptions, opts ...CallOption) (*Page[Secret], error) {
	return ListPage[Secret](ctx, c, "/secrets", o.query(), opts...)
}

// Secrets iterates over all of the account's secrets, by name.
func (c *Client) Secrets(ctx context.Context, opts ...CallOption) iter.Seq2[Secret, error] {
	return ListAll[Secret](ctx, c, "/secrets", SecretListOptions{Limit: maxSecretPage}.query(), opts...)
}

// SetSecret stores value under name, creating the secret or replacing its
// value (PUT /secrets/{name}); it needs the owner or admin role. hosts
// are the hosts the secret may be sent to (api.example.com,
// minio.internal:9000, *.example.com): required for a new secret, and nil
// keeps an existing secret's hosts. Names are a letter or underscore, then
// up to 63 letters, digits or underscores; values are 1 byte to 16 KiB of
// UTF-8.
func (c *Client) SetSecret(ctx context.Context, name, value string, hosts []string, opts ...CallOption) (*Secret, error) {
	return c.putSecret(ctx, name, &value, hosts, opts)
}

// BindSecret replaces the hosts an existing secret may be sent to, keeping
// its value (PUT /secrets/{name} without a value).
func (c *Client) BindSecret(ctx context.Context, name string, hosts []string, opts ...CallOption) (*Secret, error) {
	if hosts == nil {
		hosts = []string{}
	}
	return c.putSecret(ctx, name, nil, hosts, opts)
}

func (c *Client) putSecret(ctx context.Context, name string, value *string, hosts []string, opts []CallOption) (*Secret, error) {
	var info ResponseInfo
	var out Secret
	body := struct {
		Value *string   `json:"value,omitempty"`
		Hosts *[]string `json:"hosts,omitempty"`
	}{Value: value}
	if hosts != nil {
		body.Hosts = &hosts
	}
	if err := c.Do(ctx, http.MethodPut, pathf("/secrets/%s", name), body, &out, append(opts, CaptureResponse(&info))...); err != nil {
		return nil, err
	}
	out.Created = info.StatusCode == http.StatusCreated
	return &out, nil
}

// DeleteSecret deletes a secret (DELETE /secrets/{name}); steps naming it
// fail until it is stored again.
func (c *Client) DeleteSecret(ctx context.Context, name string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/secrets/%s", name), nil, nil, opts...)
}
