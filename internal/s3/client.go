package s3

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Client speaks to one S3 endpoint. The zero values of its optional
// fields are safe: Amazon S3 in Region, virtual-hosted addressing, the
// default time and byte caps.
type Client struct {
	// Endpoint is the store's base URL ("https://minio.internal:9000",
	// with an optional base path); empty means Amazon S3 in Region.
	Endpoint string
	// Region names the signing scope ("us-east-1" when empty).
	Region string
	// PathStyle addresses buckets as endpoint/bucket/key rather than
	// bucket.endpoint/key. A bucket name that cannot be a host name label
	// is always addressed path-style.
	PathStyle bool
	// Credentials sign every request; without an AccessKeyID requests go
	// unsigned.
	Credentials Credentials
	// HTTP sends the requests (http.DefaultClient when nil); it carries
	// whatever outbound rules the caller applies (address guards, secret
	// host bindings, redirect policy).
	HTTP *http.Client
	// Timeout bounds each call until its response headers, including
	// sending its body (2 minutes when zero).
	Timeout time.Duration
	// ReadIdleTimeout bounds each read of a GetObject body, so a store that
	// stops sending mid-object cannot hold a reader forever (1 minute when
	// zero). Time the caller spends between reads does not count.
	ReadIdleTimeout time.Duration
	// Attempts is how many times a call that failed in a way worth
	// repeating (a 5xx, 429 or SlowDown answer, a reset connection, a
	// timeout) is made in all (3 when zero; 1 turns retries off).
	Attempts int

	now func() time.Time // tests
}

// Byte caps on what is read of the store's answers other than object
// bodies: an error document, a listing page, a multipart answer.
const (
	maxErrorBody   = 64 << 10
	maxListBody    = 16 << 20
	maxAnswerBody  = 1 << 20
	defaultTimeout = 2 * time.Minute
)

// ErrNotFound is a missing object (NoSuchKey, or a 404 to a HEAD).
var ErrNotFound = errors.New("s3: object not found")

// ErrTimeout is a call that outlasted its time cap.
var ErrTimeout = errors.New("s3: call timed out")

// ErrTooLarge is an object body longer than the caller's cap.
var ErrTooLarge = errors.New("s3: object larger than the allowed size")

// Error is a request the store answered with an error status.
type Error struct {
	Op         string // "PutObject", "GetObject", …
	Bucket     string
	Key        string
	StatusCode int
	Code       string // the store's error code ("NoSuchKey", "AccessDenied", …) when it sent one
	Message    string
	RequestID  string
	Location   string // of a redirect
}

func (e *Error) Error() string {
	where := e.Bucket
	if e.Key != "" {
		where += "/" + e.Key
	}
	msg := fmt.Sprintf("s3 %s %s: %d %s", e.Op, where, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Location != "" {
		msg += " (redirected to " + e.Location + ")"
	}
	if e.RequestID != "" {
		msg += " (request id " + e.RequestID + ")"
	}
	return msg
}

// Is makes a missing key match ErrNotFound.
func (e *Error) Is(target error) bool {
	if target != ErrNotFound || e.StatusCode != http.StatusNotFound {
		return false
	}
	return e.Code == "NoSuchKey" || e.Code == "NotFound" || e.Code == ""
}

// retryable reports whether the store's answer says to try again.
func (e *Error) retryable() bool {
	switch e.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout,
		http.StatusTooManyRequests:
		return true
	}
	return e.Code == "SlowDown" || e.Code == "RequestTimeout" || e.Code == "InternalError"
}

// request is one call to the store.
type request struct {
	op, method  string
	bucket, key string
	query       url.Values
	header      http.Header
	body        []byte // nil: no body
	// payloadHash overrides the body's SHA-256 (UnsignedPayload).
	payloadHash string
	// stream: the caller reads a body of any length after the call; the
	// call's time cap ends with its headers.
	stream bool
}

// objectURL is the URL of bucket/key on the client's endpoint, its path
// and query already in SigV4's canonical encoding.
func (c *Client) objectURL(bucket, key string, query url.Values) (*url.URL, error) {
	if !validBucket(bucket) {
		return nil, fmt.Errorf("s3: invalid bucket name %q", bucket)
	}
	// A "." or ".." segment could be resolved by a server or proxy on
	// the way into another key, or another bucket's path.
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return nil, fmt.Errorf("s3: key %q has a %q segment, which could name another path", key, seg)
		}
	}
	var base *url.URL
	if c.Endpoint == "" {
		base = &url.URL{Scheme: "https", Host: "s3." + c.region() + ".amazonaws.com"}
	} else {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return nil, fmt.Errorf("s3: endpoint %q: want an http(s) URL", c.Endpoint)
		}
		base = &url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimRight(u.Path, "/")}
	}
	u := &url.URL{Scheme: base.Scheme, Host: base.Host}
	path := base.Path
	// Virtual-hosted addressing puts the bucket in the host name, which
	// only a DNS label can be (with TLS, a single one: a dotted bucket
	// would not match the store's wildcard certificate).
	if !c.PathStyle && hostLabelBucket(bucket, base.Scheme == "https") {
		u.Host = bucket + "." + base.Host
		path += "/" + key
	} else {
		path += "/" + bucket
		if key != "" {
			path += "/" + key
		}
	}
	setPath(u, path)
	u.RawQuery = encodeQuery(query)
	return u, nil
}

// setPath sets u's path so that it goes on the wire in SigV4's encoding.
func setPath(u *url.URL, path string) {
	u.Path = path
	u.RawPath = uriEncode(path, true)
}

// encodeQuery encodes a query as SigV4 canonicalises it, so the request
// carries exactly what was signed.
func encodeQuery(q url.Values) string {
	var parts []string
	for k, vs := range q {
		for _, v := range vs {
			if v == "" && (k == "uploads" || k == "delete") {
				parts = append(parts, uriEncode(k, false))
				continue
			}
			parts = append(parts, uriEncode(k, false)+"="+uriEncode(v, false))
		}
	}
	return strings.Join(parts, "&")
}

// validBucket accepts the bucket names S3-compatible stores use: letters,
// digits, dots, hyphens and underscores, 1 to 255 of them; nothing that
// could change the request's host or path.
func validBucket(b string) bool {
	if b == "" || len(b) > 255 || b == "." || b == ".." {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// hostLabelBucket reports whether bucket can go in a host name: 3 to 63
// lower-case letters, digits, hyphens (and dots, without TLS), starting
// and ending with a letter or digit, not an IP address.
func hostLabelBucket(b string, tls bool) bool {
	if len(b) < 3 || len(b) > 63 || net.ParseIP(b) != nil {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && i > 0 && i < len(b)-1:
		case c == '.' && !tls && i > 0 && i < len(b)-1 && b[i-1] != '.':
		default:
			return false
		}
	}
	return true
}

func (c *Client) region() string {
	if c.Region == "" {
		return "us-east-1"
	}
	return c.Region
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

func (c *Client) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// do sends req, repeating it while the failure is worth repeating, and
// returns a response with a success status (the caller closes its body)
// and the cancel of its time cap, which the caller calls once done with
// the body. An error status comes back as *Error.
func (c *Client) do(ctx context.Context, req request) (*http.Response, context.CancelFunc, error) {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	u, err := c.objectURL(req.bucket, req.key, req.query)
	if err != nil {
		return nil, nil, err
	}
	hash := req.payloadHash
	if hash == "" {
		hash = hexSHA256(req.body)
		if req.body == nil {
			hash = emptyPayloadHash
		}
	}
	for attempt := 1; ; attempt++ {
		resp, cancel, err := c.once(ctx, req, u, hash, timeout)
		if err == nil {
			return resp, cancel, nil
		}
		if attempt >= attempts || !worthRepeating(ctx, err) {
			return nil, nil, err
		}
		// Back off 100 ms, 200 ms, 400 ms … (at most 5 s), with jitter.
		wait := min(5*time.Second, 100*time.Millisecond<<(attempt-1))
		wait = wait/2 + rand.N(wait/2+1)
		select {
		case <-ctx.Done():
			return nil, nil, err
		case <-time.After(wait):
		}
	}
}

func (c *Client) once(ctx context.Context, req request, u *url.URL, hash string, timeout time.Duration) (*http.Response, context.CancelFunc, error) {
	// The time cap ends the call by cancelling it; a streamed body is
	// exempt once its headers are in (ReadIdleTimeout guards it instead).
	cctx, cancel := context.WithCancel(ctx)
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() { timedOut.Store(true); cancel() })
	done := func() { timer.Stop(); cancel() }
	fail := func(err error) (*http.Response, context.CancelFunc, error) {
		done()
		if timedOut.Load() {
			err = fmt.Errorf("%w (%s): %w", ErrTimeout, timeout, err)
		}
		return nil, nil, err
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(cctx, req.method, u.String(), body)
	if err != nil {
		return fail(err)
	}
	// NewRequest re-parses the URL: keep the exact encoding that is signed.
	hr.URL = u
	for k, vs := range req.header {
		hr.Header[k] = vs
	}
	if req.body != nil {
		hr.ContentLength = int64(len(req.body))
	}
	if c.Credentials.AccessKeyID != "" {
		sign(hr, c.Credentials, c.region(), "s3", hash, c.clock())
	}
	resp, err := c.httpClient().Do(hr)
	if err != nil {
		return fail(fmt.Errorf("s3 %s %s: %w", req.op, req.bucket+"/"+req.key, err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if req.stream {
			timer.Stop()
		}
		return resp, done, nil
	}
	defer resp.Body.Close()
	return fail(readError(req, resp))
}

// readError turns an error answer into *Error, reading at most
// maxErrorBody of its document.
func readError(req request, resp *http.Response) error {
	e := &Error{Op: req.op, Bucket: req.bucket, Key: req.key, StatusCode: resp.StatusCode,
		RequestID: resp.Header.Get("X-Amz-Request-Id"), Location: resp.Header.Get("Location")}
	if req.method != http.MethodHead {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		var doc struct {
			Code      string `xml:"Code"`
			Message   string `xml:"Message"`
			RequestID string `xml:"RequestId"`
		}
		if xml.Unmarshal(b, &doc) == nil {
			e.Code, e.Message = doc.Code, doc.Message
			if e.RequestID == "" {
				e.RequestID = doc.RequestID
			}
		}
	}
	return e
}

// worthRepeating reports whether a failed call may pass if made again:
// the store said so (5xx, 429, SlowDown), or the connection broke or
// timed out. A refused destination, a bad request, or the caller's own
// context ending are final.
func worthRepeating(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var se *Error
	if errors.As(err, &se) {
		return se.retryable()
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrTimeout) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readAnswer reads a success answer's XML document, at most limit bytes.
func readAnswer(resp *http.Response, limit int64, op string, into any) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fmt.Errorf("s3 %s: reading the answer: %w", op, err)
	}
	if int64(len(b)) > limit {
		return fmt.Errorf("s3 %s: the answer is larger than %d bytes", op, limit)
	}
	if err := xml.Unmarshal(b, into); err != nil {
		return fmt.Errorf("s3 %s: malformed answer: %w", op, err)
	}
	return nil
}
