package definition

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// MCPToolType is the type of a prompt_call tool object naming an MCP
// server (an extension): its tools are offered to the model when the step
// runs (internal/mcptools).
const MCPToolType = "mcp"

// Bounds of an MCP tool object.
const (
	DefaultMCPCallTimeout = 60 * time.Second
	MaxMCPCallTimeout     = 5 * time.Minute
	MaxMCPHeaders         = 16
)

// MCPServer is a step's tool object naming an MCP server, as parsed.
type MCPServer struct {
	Label        string
	URL          string
	Headers      map[string]string // values may hold {{secrets.NAME}}
	AllowedTools []string          // empty: every tool of the server
	Timeout      time.Duration
}

var mcpLabelPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// ParseMCPServer reads a tool object. Its errors name the field at fault and
// never quote a header value.
func ParseMCPServer(cfg map[string]any) (MCPServer, error) {
	var s MCPServer
	label, _ := cfg["server_label"].(string)
	if !mcpLabelPattern.MatchString(label) {
		return s, errors.New("server_label must be 1–32 letters, digits, _ or -, starting with a letter")
	}
	s.Label = label
	raw, _ := cfg["server_url"].(string)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return s, errors.New("server_url must be an http(s) URL without credentials in it")
	}
	if strings.Contains(raw, "{{") {
		return s, errors.New("server_url must not hold placeholders; account secrets go in headers only")
	}
	s.URL = raw
	if h, ok := cfg["headers"]; ok && h != nil {
		m, ok := h.(map[string]any)
		if !ok {
			return s, errors.New("headers must be an object of header names to string values")
		}
		if len(m) > MaxMCPHeaders {
			return s, fmt.Errorf("headers: at most %d", MaxMCPHeaders)
		}
		s.Headers = map[string]string{}
		for k, v := range m {
			str, ok := v.(string)
			if !ok {
				return s, fmt.Errorf("headers.%s must be a string", k)
			}
			if err := CheckMCPHeader(k, str); err != nil {
				return s, err
			}
			s.Headers[k] = str
		}
	}
	if a, ok := cfg["allowed_tools"]; ok && a != nil {
		list, ok := a.([]any)
		if !ok {
			return s, errors.New("allowed_tools must be a list of tool names")
		}
		for _, v := range list {
			name, ok := v.(string)
			if !ok || name == "" {
				return s, errors.New("allowed_tools must be a list of tool names")
			}
			s.AllowedTools = append(s.AllowedTools, name)
		}
	}
	s.Timeout = DefaultMCPCallTimeout
	if raw, ok := cfg["timeout_seconds"]; ok && raw != nil {
		t, ok := number(raw)
		if !ok {
			return s, errors.New("timeout_seconds must be a number")
		}
		if !(t > 0 && t <= MaxMCPCallTimeout.Seconds()) { // compared in seconds: a huge value would overflow a Duration
			return s, fmt.Errorf("timeout_seconds must be above 0 and at most %d", int(MaxMCPCallTimeout.Seconds()))
		}
		s.Timeout = time.Duration(t * float64(time.Second))
	}
	return s, nil
}

var mcpHeaderName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")

// mcpCredentialHeaders carry credentials: their value must come from an
// account secret, never from the definition, which is exported in clear.
var mcpCredentialHeaders = []string{"authorization", "proxy-authorization", "cookie"}

// CheckMCPHeader validates one header of a tool object: a valid name, a value
// of at most 4 KiB without line breaks, a reference to an account secret
// wherever a credential goes.
func CheckMCPHeader(name, value string) error {
	if !mcpHeaderName.MatchString(name) {
		return fmt.Errorf("headers: %q is not a valid header name", name)
	}
	if len(value) > 4096 || strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("headers.%s: a value is one line of at most 4096 bytes", name)
	}
	refs := HeaderSecretRefs(value)
	for _, r := range refs {
		if r.Name == "" {
			return fmt.Errorf("headers.%s: %q is not a valid secret reference, write {{secrets.NAME}}", name, r.Text)
		}
	}
	if len(refs) == 0 && mcpCredentialLike(name) {
		return fmt.Errorf("headers.%s carries a credential: reference an account secret, e.g. \"Bearer {{secrets.NAME}}\"; "+
			"values written into the definition are not sent", name)
	}
	return nil
}

func mcpCredentialLike(name string) bool {
	n := strings.ToLower(name)
	if slices.Contains(mcpCredentialHeaders, n) {
		return true
	}
	for _, w := range []string{"key", "token", "secret", "auth", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// HeaderSecretRef is one {{…}} placeholder of a header value; Name is empty
// when it is not a valid {{secrets.NAME}}.
type HeaderSecretRef struct{ Text, Name string }

// HeaderSecretRefs finds the {{…}} placeholders of a header value.
func HeaderSecretRefs(v string) []HeaderSecretRef {
	var out []HeaderSecretRef
	for {
		i := strings.Index(v, "{{")
		if i < 0 {
			return out
		}
		j := strings.Index(v[i:], "}}")
		if j < 0 {
			return append(out, HeaderSecretRef{Text: v[i:]})
		}
		text := v[i : i+j+2]
		name, _ := SecretRef(text)
		out = append(out, HeaderSecretRef{Text: text, Name: name})
		v = v[i+j+2:]
	}
}

// checkMCPTool reports what is wrong with an mcp tool object; a credential
// written into a header is its own code, so that an import can say why.
func checkMCPTool(c *checker, tool map[string]any, path string) {
	if _, err := ParseMCPServer(tool); err != nil {
		code := CodeInvalidValue
		if strings.Contains(err.Error(), "carries a credential") {
			code = CodeLiteralCredential
		}
		c.errorf(code, path, "%s", err.Error())
	}
	for k := range tool {
		switch k {
		case "type", "server_label", "server_url", "headers", "allowed_tools", "timeout_seconds", "server_description":
		default:
			c.warnf(CodeUnknownField, fieldPath(path, k), "unknown mcp tool field %q is ignored", k)
		}
	}
}

// mcpToolSchema describes the mcp tool object in the published JSON Schema.
func mcpToolSchema() map[string]any {
	type obj = map[string]any
	return obj{
		"description": "Extension: offers the model the tools of an MCP server (streamable HTTP), named <server_label>__<tool>. " +
			"Header values take credentials from account secrets only, as {{secrets.NAME}}.",
		"type":     "object",
		"required": []any{"type", "server_label", "server_url"},
		"properties": obj{
			"type":         obj{"const": MCPToolType},
			"server_label": obj{"type": "string", "pattern": mcpLabelPattern.String(), "description": "Prefix of the tools' names for the model."},
			"server_url":   obj{"type": "string", "pattern": "^https?://", "description": "The server's streamable HTTP endpoint; no placeholders."},
			"headers": obj{"type": "object", "maxProperties": MaxMCPHeaders,
				"additionalProperties": obj{"type": "string", "maxLength": 4096},
				"description":          "Sent with every request. Authorization, Cookie and any header whose name holds key, token, secret, auth or password must reference an account secret, e.g. \"Bearer {{secrets.NAME}}\"."},
			"allowed_tools":   obj{"type": "array", "items": obj{"type": "string", "minLength": 1}, "description": "Only these tools of the server; all when omitted."},
			"timeout_seconds": obj{"type": "number", "exclusiveMinimum": 0, "maximum": MaxMCPCallTimeout.Seconds(), "description": "Bound of one tool call (default 60)."},
		},
	}
}

// number reads a JSON number however the definition was decoded.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
