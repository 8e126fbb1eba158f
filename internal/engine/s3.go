package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/s3"
)

// ErrServerCredentials is a write that would sign with the server's own
// credentials for a bucket the operator has not allowed.
var ErrServerCredentials = errors.New("write_aws_s3_object needs credentials of the account: set access_key_id and " +
	"secret_access_key to account secrets ({{secrets.NAME}}); the server's own credentials only write to the buckets " +
	"its operator allows (SERVICE_S3_ALLOWED_BUCKETS), at the server's endpoint")

// stepWriteS3Object writes the rendered content to bucket/key on S3 or any
// S3-compatible store. It signs with the account's secrets named in the
// step; only a bucket the operator allows is written with the server's
// own credentials. Validation refuses anything else when a definition is
// saved; the checks here hold for definitions saved before, or under
// another allowlist.
func stepWriteS3Object(ctx context.Context, x *Exec) (Result, error) {
	bucket, _ := x.Step.String("bucket")
	key, err := x.Field("key", "")
	if err != nil {
		return Result{}, err
	}
	if bucket == "" || strings.TrimSpace(key) == "" {
		return Result{}, fmt.Errorf("write_aws_s3_object needs bucket and key")
	}
	content, err := x.Field("content", "{{input}}")
	if err != nil {
		return Result{}, err
	}
	ct, _ := x.Step.String("content_type")
	if ct == "" {
		ct = "text/plain"
	}
	region, _ := x.Step.String("region")
	if region == "" {
		region = "us-east-1"
	}
	endpoint, _ := x.Step.String("endpoint_url")
	if endpoint != "" {
		if err := checkEndpoint(endpoint); err != nil {
			return Result{}, err
		}
	}
	pathStyle, _ := x.Step.Bool("force_path_style")
	client, secrets, err := s3Client(ctx, x, bucket, endpoint, region)
	if err != nil {
		return Result{}, err
	}
	client.PathStyle = pathStyle
	if err := client.PutObject(ctx, bucket, key, []byte(content), s3.PutOptions{ContentType: ct}); err != nil {
		return Result{}, redacted(fmt.Errorf("write s3://%s/%s: %w", bucket, key, err), secrets)
	}
	loc := "s3://" + bucket + "/" + key
	if endpoint != "" {
		u, _ := url.Parse(strings.TrimRight(endpoint, "/"))
		if u != nil {
			loc = u.String() + "/" + bucket + "/" + key
		}
	}
	return Result{Output: loc}, nil
}

// s3Client returns the client to write with and the secret values it
// holds (to keep them out of error messages). With the account's secrets
// it is built from them alone: no environment, shared files or instance
// metadata are consulted, and its requests — redirects included — may go
// only to the hosts the secrets are bound to, whichever host the bucket
// and endpoint make. The server's own credentials (the environment and
// shared files) are loaded only for a bucket the operator allows, at the
// server's endpoint. Either way the requests go through the webhook
// client, which refuses private and loopback addresses unless the
// operator allows them.
func s3Client(ctx context.Context, x *Exec, bucket, endpoint, region string) (*s3.Client, []string, error) {
	var refs [2]string
	given := 0
	for i, f := range []string{"access_key_id", "secret_access_key"} {
		s, _ := x.Step.String(f)
		if s == "" {
			continue
		}
		given++
		name, ok := definition.SecretRef(s)
		if !ok {
			return nil, nil, fmt.Errorf("%s must name an account secret, as {{secrets.NAME}}; keys written into the definition are not used", f)
		}
		refs[i] = name
	}
	client := &s3.Client{Endpoint: endpoint, Region: region, HTTP: x.Engine().webhooks.client(),
		// The step writes one rendered string: a minute is ample.
		Timeout: time.Minute}
	switch given {
	case 2:
		id, err := x.Host().Secret(ctx, refs[0])
		if err != nil {
			return nil, nil, fmt.Errorf("access_key_id: %w", err)
		}
		secret, err := x.Host().Secret(ctx, refs[1])
		if err != nil {
			return nil, nil, fmt.Errorf("secret_access_key: %w", err)
		}
		client.Credentials = s3.Credentials{AccessKeyID: id.Value, SecretAccessKey: secret.Value}
		client.HTTP = outbound.GuardSecrets(client.HTTP, []outbound.SecretBinding{id.Binding(), secret.Binding()})
		return client, []string{id.Value, secret.Value}, nil
	case 1:
		return nil, nil, errors.New("access_key_id and secret_access_key go together")
	}
	if !slices.Contains(x.Engine().s3AllowedBuckets, bucket) || endpoint != "" {
		return nil, nil, ErrServerCredentials
	}
	settings, err := s3.LoadSettings("")
	if err != nil {
		return nil, nil, err
	}
	client.Credentials = settings.Credentials
	client.Endpoint = settings.Endpoint
	return client, nil, nil
}

// redactedError is an error whose message has secret values blanked out;
// it still unwraps to the original for classification.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redacted keeps secret values out of an error's message, whatever a
// library chose to put there.
func redacted(err error, secrets []string) error {
	msg := err.Error()
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[secret]")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// checkEndpoint refuses an endpoint URL that is not http(s).
func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint_url %q: want an http(s) URL", endpoint)
	}
	return nil
}
