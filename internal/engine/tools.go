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
	mu   sync.RWMutex
	m    map[string]Tool
	sets map[string]Toolset
}

// Toolset expands one tool object of a step into the tools it stands for,
// found only when the step runs (the tools of an MCP server). cfg is the
// step's tool object. The tools it returns are offered to the model beside
// the registered ones, and their calls are recorded like theirs.
type Toolset func(ctx context.Context, x *Exec, cfg map[string]any) ([]Tool, error)

// RegisterToolset makes tool objects whose type is typ expand through fn.
func (t *Tools) RegisterToolset(typ string, fn Toolset) {
	t.mu.Lock()
	if t.sets == nil {
		t.sets = map[string]Toolset{}
	}
	t.sets[typ] = fn
	t.mu.Unlock()
}

func (t *Tools) toolset(typ string) (Toolset, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	fn, ok := t.sets[typ]
	return fn, ok
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
// implementations behind it; toolsets are expanded here, when the step runs.
func (t *Tools) stepTools(ctx context.Context, x *Exec, raw any) ([]llm.Tool, map[string]boundTool, error) {
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
		if set, ok := t.toolset(name); ok && cfg != nil {
			tools, err := set(ctx, x, cfg)
			if err != nil {
				return nil, nil, fmt.Errorf("tools[%d]: %w", i, err)
			}
			for _, tool := range tools {
				if _, dup := bound[tool.Name]; dup {
					return nil, nil, fmt.Errorf("tools[%d]: two tools of the step are named %q", i, tool.Name)
				}
				specs = append(specs, llm.Tool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
				bound[tool.Name] = boundTool{tool: tool, cfg: cfg, fromSet: true}
			}
			continue
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
	// fromSet: the tool came from a toolset (an MCP server's tools).
	fromSet bool
}

// kind is the tool's gen_ai.tool.type for its span: extension for a
// toolset's (an MCP server's), datastore for retrieval, else function.
func (b boundTool) kind() string {
	switch {
	case b.fromSet:
		return "extension"
	case b.tool.Name == "retrieval":
		return "datastore"
	}
	return "function"
}
