// Package mcptools lets a prompt_call offer its model the tools of remote
// MCP servers (streamable HTTP). A step names a server with a tool object
//
//	{"type": "mcp", "server_label": "weather", "server_url": "https://…",
//	 "headers": {"Authorization": "Bearer {{secrets.WEATHER_TOKEN}}"},
//	 "allowed_tools": ["forecast"]}
//
// and the model sees the server's tools as weather__forecast… . Header
// values take credentials from the run's account secrets only; the values
// are resolved when the step runs, sent to the server and to nothing else,
// and blanked out of anything the run records. Every request goes through
// the engine's outbound guard; tool lists are cached per run.
package mcptools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolType is the `type` of a step's tool object naming an MCP server.
const ToolType = "mcp"

// Bounds on what a tenant's definition, or the server it names, can make
// the engine hold or wait for.
//
// MaxMessageBytes caps every HTTP reply of an MCP server (a JSON message or
// a whole event stream), read as it arrives: past it the exchange fails,
// so a server answering with an endless or huge body costs at most that
// much memory (as the webhook step's 1 MiB and feeds' 10 MiB do). Every
// exchange is bounded in time too: the handshake by HandshakeTimeout, a
// listing by ListTimeout, a call by the tool object's timeout_seconds, and
// waiting for a reply's headers by HeaderTimeout.
const (
	MaxMessageBytes   = 4 << 20
	HandshakeTimeout  = 15 * time.Second
	ListTimeout       = 30 * time.Second
	MaxToolsPerServer = 64
	MaxListPages      = 8
	MaxSchemaBytes    = 64 << 10
	MaxResultBytes    = 256 << 10
	MaxHeaders        = 16
	cacheTTL          = 30 * time.Minute
	maxCacheEntries   = 4096
)

// headerTimeout is HeaderTimeout; a test shortens it.
var headerTimeout = HeaderTimeout

// HeaderTimeout bounds the wait for the headers of each reply.
const HeaderTimeout = 30 * time.Second

// Connector lists and calls MCP servers' tools for the engine.
type Connector struct {
	// Client makes every request; it must be the engine's guarded
	// outbound client, so that a server on a private address is refused
	// unless the operator allows it.
	Client *http.Client

	mu    sync.Mutex
	lists map[string]cachedList
}

type cachedList struct {
	tools   []*mcp.Tool
	fetched time.Time
}

// New returns a connector making its requests with client.
func New(client *http.Client) *Connector {
	return &Connector{Client: client, lists: map[string]cachedList{}}
}

// Register makes the engine's prompt_call steps accept tool objects of
// type "mcp".
func (c *Connector) Register(tools *engine.Tools) { tools.RegisterToolset(ToolType, c.toolset) }

// resolveHeaders replaces the secret references of the headers by the
// account's values; it returns the values too, to blank them out of what
// the run records, and their host bindings. A secret whose writer did not
// bind it to the server's host is refused before any connection.
func resolveHeaders(ctx context.Context, x *engine.Exec, serverURL string, hs map[string]string) (http.Header, []string, []outbound.SecretBinding, error) {
	out := http.Header{}
	var secrets []string
	var bindings []outbound.SecretBinding
	dest, err := url.Parse(serverURL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("server_url: %w", err)
	}
	for k, v := range hs {
		var b strings.Builder
		rest := v
		for _, r := range definition.HeaderSecretRefs(v) {
			i := strings.Index(rest, r.Text)
			b.WriteString(rest[:i])
			sec, err := x.Host().Secret(ctx, r.Name)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("headers.%s: %w", k, err)
			}
			if err := outbound.CheckSecretHosts([]outbound.SecretBinding{sec.Binding()}, dest); err != nil {
				return nil, nil, nil, fmt.Errorf("headers.%s: %w", k, err)
			}
			secrets = append(secrets, sec.Value)
			bindings = append(bindings, sec.Binding())
			b.WriteString(sec.Value)
			rest = rest[i+len(r.Text):]
		}
		b.WriteString(rest)
		out.Set(k, b.String())
	}
	return out, secrets, bindings, nil
}

// redact blanks secret values out of text a run records or a model reads.
func redact(s string, secrets []string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
	}
	return s
}

// toolset lists the server's tools (once per run) and offers them.
func (c *Connector) toolset(ctx context.Context, x *engine.Exec, cfg map[string]any) ([]engine.Tool, error) {
	srv, err := definition.ParseMCPServer(cfg)
	if err != nil {
		return nil, err
	}
	headers, secrets, bindings, err := resolveHeaders(ctx, x, srv.URL, srv.Headers)
	if err != nil {
		return nil, err
	}
	// Every request of the step's sessions carries the bindings, and the
	// outbound client refuses one to another host, redirects included.
	ctx = outbound.WithSecrets(ctx, bindings)
	list, err := c.list(ctx, x.Run.ID, srv, headers)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %s", srv.Label, redact(err.Error(), secrets))
	}
	var out []engine.Tool
	for _, t := range list {
		if len(srv.AllowedTools) > 0 && !slices.Contains(srv.AllowedTools, t.Name) {
			continue
		}
		params, err := json.Marshal(t.InputSchema)
		if err != nil || len(params) > MaxSchemaBytes || !json.Valid(params) || string(params) == "null" {
			params = json.RawMessage(`{"type":"object"}`)
		}
		remote := t.Name
		out = append(out, engine.Tool{
			Name:        ModelToolName(srv.Label, remote),
			Description: truncate(t.Description, 2048),
			Parameters:  params,
			Run: func(ctx context.Context, x *engine.Exec, _ map[string]any, args json.RawMessage) (string, error) {
				res, err := c.call(outbound.WithSecrets(ctx, bindings), srv, headers, remote, args)
				if err != nil {
					return "", errors.New(redact(err.Error(), secrets))
				}
				return redact(res, secrets), nil
			},
		})
	}
	return out, nil
}

var unsafeToolChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ModelToolName is the name the model calls a server's tool by: the
// server's label and the tool's name, joined by "__", in the characters
// and length model providers accept.
func ModelToolName(label, tool string) string {
	n := label + "__" + unsafeToolChars.ReplaceAllString(tool, "_")
	if len(n) > 64 {
		sum := sha256.Sum256([]byte(tool))
		n = n[:55] + "_" + hex.EncodeToString(sum[:4])
	}
	return n
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// list returns the server's tools, from the run's cache when this run
// listed them already with the same headers.
func (c *Connector) list(ctx context.Context, runID string, srv definition.MCPServer, headers http.Header) ([]*mcp.Tool, error) {
	key := cacheKey(runID, srv.URL, headers)
	c.mu.Lock()
	if e, ok := c.lists[key]; ok && time.Since(e.fetched) < cacheTTL {
		c.mu.Unlock()
		return e.tools, nil
	}
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, ListTimeout)
	defer cancel()
	var tools []*mcp.Tool
	err := c.withSession(ctx, srv.URL, headers, func(s *mcp.ClientSession) error {
		cursor := ""
		for page := 0; page < MaxListPages; page++ {
			res, err := s.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return err
			}
			tools = append(tools, res.Tools...)
			if len(tools) >= MaxToolsPerServer {
				tools = tools[:MaxToolsPerServer]
				return nil
			}
			if cursor = res.NextCursor; cursor == "" {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, timeoutError(ctx, err, "listing tools", ListTimeout)
	}
	c.mu.Lock()
	if len(c.lists) >= maxCacheEntries {
		for k, e := range c.lists {
			if time.Since(e.fetched) >= cacheTTL {
				delete(c.lists, k)
			}
		}
		if len(c.lists) >= maxCacheEntries {
			c.lists = map[string]cachedList{}
		}
	}
	c.lists[key] = cachedList{tools: tools, fetched: time.Now()}
	c.mu.Unlock()
	return tools, nil
}

// cacheKey identifies a run's view of a server; the headers are hashed so
// that secret values are not kept as map keys.
func cacheKey(runID, serverURL string, headers http.Header) string {
	h := sha256.New()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range headers {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(h, "%s\x00%s\x00", k, headers.Get(k))
	}
	return runID + "\x00" + serverURL + "\x00" + hex.EncodeToString(h.Sum(nil))
}

// call runs one tool and renders its result as text for the model.
func (c *Connector) call(ctx context.Context, srv definition.MCPServer, headers http.Header, tool string, args json.RawMessage) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, srv.Timeout)
	defer cancel()
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	var out string
	err := c.withSession(ctx, srv.URL, headers, func(s *mcp.ClientSession) error {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err
		}
		out = resultText(res)
		if res.IsError {
			return fmt.Errorf("the MCP tool %s reported an error: %s", tool, truncate(out, 2048))
		}
		return nil
	})
	if err != nil {
		return "", timeoutError(ctx, err, "calling "+tool, srv.Timeout)
	}
	return out, nil
}

func timeoutError(ctx context.Context, err error, what string, d time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s timed out after %s", what, d)
	}
	return err
}

// resultText joins the text of a result's content; other content kinds
// are named, not inlined. The text is bounded.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *mcp.TextContent:
			b.WriteString(v.Text)
		case *mcp.ImageContent:
			b.WriteString("[image " + v.MIMEType + "]")
		case *mcp.AudioContent:
			b.WriteString("[audio " + v.MIMEType + "]")
		case *mcp.ResourceLink:
			b.WriteString("[resource " + v.URI + "]")
		case *mcp.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				b.WriteString(v.Resource.Text)
			} else if v.Resource != nil {
				b.WriteString("[resource " + v.Resource.URI + "]")
			}
		}
		if b.Len() >= MaxResultBytes {
			break
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(raw)
		}
	}
	return truncate(b.String(), MaxResultBytes)
}

// withSession connects to the server, runs fn, and closes the session. A
// session per request keeps nothing open between a run's steps (a run may
// resume on another replica).
func (c *Connector) withSession(ctx context.Context, endpoint string, headers http.Header, fn func(*mcp.ClientSession) error) error {
	base := c.Client
	if base == nil {
		return errors.New("no outbound client configured")
	}
	hc := &http.Client{
		Transport: headerTransport{base: base.Transport, headers: headers},
		// Redirects are refused: they would carry the headers, secrets
		// included, to wherever the server points.
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the MCP server answered with a redirect; redirects are not followed")
		},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agentry", Version: "1"}, nil)
	hctx, cancel := context.WithTimeout(ctx, HandshakeTimeout)
	defer cancel()
	session, err := client.Connect(hctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: 1,
		DisableStandaloneSSE: true, MaxEventSize: MaxMessageBytes}, nil)
	if err != nil {
		if hctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("the MCP handshake timed out after %s", HandshakeTimeout)
		}
		return err
	}
	defer session.Close()
	return fn(session)
}

// headerTransport adds the step's headers to every request of a session,
// bounds the wait for each reply's headers and caps each reply's body.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	// The wait for the headers is bounded on its own; the body is read
	// under the exchange's deadline once they came.
	ctx, cancel := context.WithCancel(r.Context())
	timer := time.AfterFunc(headerTimeout, cancel)
	r = r.Clone(ctx)
	for k, vs := range t.headers {
		r.Header[k] = vs
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if !timer.Stop() && err != nil {
		cancel()
		return nil, fmt.Errorf("the MCP server sent no reply within %s", headerTimeout)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: MaxMessageBytes + 1, cancel: cancel}
	return resp, nil
}

// errReplyTooLarge ends the read of a reply past MaxMessageBytes: an error
// rather than an end of file, so that a truncated message is never decoded
// and an event stream is not taken for one that ended.
var errReplyTooLarge = fmt.Errorf("the MCP server's reply exceeds the %d MiB limit", MaxMessageBytes>>20)

// cappedBody reads a reply up to MaxMessageBytes: left starts one byte
// above the limit, so that reading that byte means the reply passed it.
type cappedBody struct {
	rc     io.ReadCloser
	left   int64
	cancel context.CancelFunc
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errReplyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left <= 0 {
		return n - 1, errReplyTooLarge
	}
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}
