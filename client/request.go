package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// CallOption adjusts one request.
type CallOption func(*callOptions)

type callOptions struct {
	headers []headerEntry
	query   url.Values
	resp    *ResponseInfo
	// reconnectFor: see WithReconnectFor (streams only).
	reconnectFor time.Duration
}

// WithRequestHeader sets a header on this request only. It is merged after
// the client's headers, case-insensitively, the last entry winning; a
// Service-Version set here is validated like one set on the client.
func WithRequestHeader(name, value string) CallOption {
	return func(o *callOptions) { o.headers = append(o.headers, headerEntry{name, value}) }
}

// WithRequestVersion sends Service-Version: v on this request only.
func WithRequestVersion(v string) CallOption { return WithRequestHeader(VersionHeader, v) }

// WithRequestAccount sends X-Account-Id: id on this request only.
func WithRequestAccount(id string) CallOption { return WithRequestHeader(AccountHeader, id) }

// WithQuery adds query parameters to this request.
func WithQuery(q url.Values) CallOption {
	return func(o *callOptions) {
		if o.query == nil {
			o.query = url.Values{}
		}
		for k, vs := range q {
			o.query[k] = append(o.query[k], vs...)
		}
	}
}

// ResponseInfo receives the status and headers of a response.
type ResponseInfo struct {
	StatusCode int
	Header     http.Header
}

// CaptureResponse fills r with the response's status and headers (for
// example Service-Version, the version the request resolved to).
func CaptureResponse(r *ResponseInfo) CallOption { return func(o *callOptions) { o.resp = r } }

// pathf builds a request path, escaping each argument as one path segment,
// so an id can never add segments or a query.
func pathf(format string, args ...string) string {
	esc := make([]any, len(args))
	for i, a := range args {
		esc[i] = url.PathEscape(a)
	}
	return fmt.Sprintf(format, esc...)
}

// newRequest builds a request with every convention applied: the merged
// headers (client defaults, then credentials, then call options), validated
// after the merge, and the query. Nothing is sent if any step fails.
func (c *Client) newRequest(ctx context.Context, method, path string, body io.Reader, contentType string, opts []CallOption) (*http.Request, *callOptions, error) {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u, err := url.Parse(c.baseURL.String() + path)
	if err != nil {
		return nil, nil, fmt.Errorf("request path %q: %w", path, err)
	}
	if len(co.query) > 0 {
		q := u.Query()
		for k, vs := range co.query {
			q[k] = append(q[k], vs...)
		}
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, nil, err
	}
	h := c.headers.Clone()
	h.Set("User-Agent", c.userAgent)
	h.Set("Accept", "application/json")
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	for _, e := range co.headers {
		if !validHeaderName(e.name) {
			return nil, nil, fmt.Errorf("header name %q is not valid", e.name)
		}
	}
	if err := c.cred.apply(ctx, h); err != nil {
		return nil, nil, err
	}
	mergeHeaders(h, co.headers)
	if err := validateHeaders(h, c.allowUnknown); err != nil {
		return nil, nil, err
	}
	req.Header = h
	return req, &co, nil
}

// send sends req and turns any status of 400 or more into a typed error,
// after retrying a 429 or 503 as the client's RetryPolicy says. On success
// the caller owns the response body.
func (c *Client) send(req *http.Request, co *callOptions) (*http.Response, error) {
	for n := 0; ; n++ {
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, err
		}
		if co != nil && co.resp != nil {
			co.resp.StatusCode, co.resp.Header = resp.StatusCode, resp.Header.Clone()
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		apiErr := decodeError(req, resp)
		resp.Body.Close()
		if !retryableStatus(resp.StatusCode) || !rewindable(req) {
			return nil, apiErr
		}
		d, retry := c.retry.delay(n, resp.Header.Get("Retry-After"), time.Now())
		if !retry {
			return nil, apiErr
		}
		if err := sleep(req.Context(), d); err != nil {
			return nil, fmt.Errorf("%w (gave up waiting %v to retry: %w)", apiErr, d, err)
		}
		if req.GetBody != nil {
			if req.Body, err = req.GetBody(); err != nil {
				return nil, fmt.Errorf("%w (could not rewind the body to retry: %w)", apiErr, err)
			}
		}
	}
}

// Do sends a JSON request and decodes the JSON response into out (nil
// discards it). in is marshalled as JSON unless it is nil, an io.Reader, or
// a []byte / json.RawMessage sent as is. Every operation method is built on
// it; it also reaches operations this version of the client does not wrap.
func (c *Client) Do(ctx context.Context, method, path string, in, out any, opts ...CallOption) error {
	var body io.Reader
	contentType := ""
	switch v := in.(type) {
	case nil:
	case io.Reader:
		body, contentType = v, "application/json"
	case []byte:
		body, contentType = bytes.NewReader(v), "application/json"
	case json.RawMessage:
		body, contentType = bytes.NewReader(v), "application/json"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode %s %s body: %w", method, path, err)
		}
		body, contentType = bytes.NewReader(b), "application/json"
	}
	req, co, err := c.newRequest(ctx, method, path, body, contentType, opts)
	if err != nil {
		return err
	}
	resp, err := c.send(req, co)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, resp.Body) // lets the connection be reused
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s %s response: %w", method, path, err)
	}
	return nil
}
