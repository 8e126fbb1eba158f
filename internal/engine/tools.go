package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

// Tool is a function a prompt_call may offer its model. Areas register
// theirs (retrieval over a knowledge base, memory search…); a step names
// them in `tools` by name, or by an object whose `type` is the name and
// whose other keys configure it.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments
	// Run executes a call; cfg is the step's tool object (nil for a name).
	Run func(ctx context.Context, x *Exec, cfg map[string]any, args json.RawMessage) (string, error)
}

// Tools is an engine's tool registry (Engine.Tools), filled by the areas
// that offer tools when the server is assembled.
type Tools struct {
	mu sync.RWMutex
	m  map[string]Tool
}

// NewTools returns a registry holding the built-in current_datetime tool.
func NewTools() *Tools {
	t := &Tools{m: map[string]Tool{}}
	t.Register(Tool{
		Name:        "current_datetime",
		Description: "Returns the current date and time in UTC (RFC 3339).",
		Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
		Run: func(context.Context, *Exec, map[string]any, json.RawMessage) (string, error) {
			return time.Now().UTC().Format(time.RFC3339), nil
		},
	})
	return t
}

// Register makes a tool available to every prompt_call of the engine
// holding the registry (replacing one of the same name).
func (t *Tools) Register(tool Tool) {
	t.mu.Lock()
	t.m[tool.Name] = tool
	t.mu.Unlock()
}

// Tool returns the tool registered under name.
func (t *Tools) Tool(name string) (Tool, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	tool, ok := t.m[name]
	return tool, ok
}

// stepTools resolves a step's `tools` into the model's tool list and the
// implementations behind it.
func (t *Tools) stepTools(raw any) ([]llm.Tool, map[string]boundTool, error) {
	list, _ := raw.([]any)
	var specs []llm.Tool
	bound := map[string]boundTool{}
	for i, item := range list {
		var (
			name string
			cfg  map[string]any
		)
		switch t := item.(type) {
		case string:
			name = t
		case map[string]any:
			cfg = t
			name, _ = t["type"].(string)
			if n, ok := t["name"].(string); ok && name == "" {
				name = n
			}
		}
		tool, ok := t.Tool(name)
		if !ok {
			return nil, nil, fmt.Errorf("tools[%d]: tool %q is not available on this server", i, name)
		}
		specs = append(specs, llm.Tool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
		bound[tool.Name] = boundTool{tool: tool, cfg: cfg}
	}
	return specs, bound, nil
}

type boundTool struct {
	tool Tool
	cfg  map[string]any
}
