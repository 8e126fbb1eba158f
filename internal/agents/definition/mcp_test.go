package definition

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseMCPServer(t *testing.T) {
	ok := map[string]any{"type": "mcp", "server_label": "orders", "server_url": "https://mcp.example.com/mcp",
		"headers": map[string]any{"Authorization": "Bearer {{secrets.ORDERS}}", "X-Region": "eu"}, "allowed_tools": []any{"lookup"}, "timeout_seconds": 5.0}
	s, err := ParseMCPServer(ok)
	if err != nil || s.Label != "orders" || s.Timeout.Seconds() != 5 || len(s.AllowedTools) != 1 || s.Headers["X-Region"] != "eu" {
		t.Fatalf("%+v %v", s, err)
	}
	for name, mutate := range map[string]func(m map[string]any){
		"literal credential":   func(m map[string]any) { m["headers"] = map[string]any{"Authorization": "Bearer abc"} },
		"literal api key":      func(m map[string]any) { m["headers"] = map[string]any{"X-Api-Key": "abc"} },
		"bad reference":        func(m map[string]any) { m["headers"] = map[string]any{"Authorization": "Bearer {{secret.X}}"} },
		"unclosed reference":   func(m map[string]any) { m["headers"] = map[string]any{"X-Region": "{{secrets.X"} },
		"header line break":    func(m map[string]any) { m["headers"] = map[string]any{"X-Region": "a\r\nX-Evil: 1"} },
		"bad header name":      func(m map[string]any) { m["headers"] = map[string]any{"Bad Name": "x"} },
		"placeholder in url":   func(m map[string]any) { m["server_url"] = "https://{{secrets.X}}.example.com/" },
		"credentials in url":   func(m map[string]any) { m["server_url"] = "https://u:p@example.com/" },
		"not http":             func(m map[string]any) { m["server_url"] = "file:///etc/passwd" },
		"bad label":            func(m map[string]any) { m["server_label"] = "has space" },
		"timeout too long":     func(m map[string]any) { m["timeout_seconds"] = 3600.0 },
		"timeout not a number": func(m map[string]any) { m["timeout_seconds"] = "5" },
		"allowed not a list":   func(m map[string]any) { m["allowed_tools"] = "lookup" },
	} {
		m := map[string]any{}
		raw, _ := json.Marshal(ok)
		_ = json.Unmarshal(raw, &m)
		mutate(m)
		if _, err := ParseMCPServer(m); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "abc") {
			t.Errorf("%s: the error repeats the value: %v", name, err)
		}
	}
}

// FuzzParseMCPServer feeds arbitrary tool objects (as a definition holds
// them after decoding) to the parser: it never panics, and what it accepts
// holds only valid secret references in its headers.
func FuzzParseMCPServer(f *testing.F) {
	f.Add(`{"type":"mcp","server_label":"a","server_url":"https://x.example/mcp","headers":{"Authorization":"Bearer {{secrets.T}}"}}`)
	f.Add(`{"server_label":"a","server_url":"http://x","headers":{"X":"{{ secrets.T }} and {{secrets.U}}"},"timeout_seconds":1e308}`)
	f.Add(`{"server_label":"a","server_url":"http://x","allowed_tools":[1,"b"],"headers":[]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var m map[string]any
		if json.Unmarshal([]byte(raw), &m) != nil {
			return
		}
		s, err := ParseMCPServer(m)
		if err != nil {
			return
		}
		for k, v := range s.Headers {
			for _, r := range HeaderSecretRefs(v) {
				if r.Name == "" {
					t.Fatalf("accepted an invalid reference in %s: %q", k, v)
				}
			}
		}
		if s.Timeout <= 0 || s.Timeout > MaxMCPCallTimeout {
			t.Fatalf("timeout %s out of bounds", s.Timeout)
		}
	})
}
