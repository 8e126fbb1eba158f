// Package mcpserver is Agentry as a Model Context Protocol server: the
// tools an MCP client (a desktop assistant, an IDE, another agent) calls
// to list, create and run agents, read and cancel runs, search runs and
// knowledge bases, and run the agents an account exposes as tools of their
// own.
//
// Every tool calls the HTTP API through the public Go client, with the
// caller's own credentials, so that authentication, rate limits, versions,
// tenancy and error messages are the API's, whichever transport carries
// MCP: streamable HTTP at /mcp of `agentry serve` (Handler, where the
// client reaches the API in-process) or stdio (`agentry mcp`, where it
// reaches a server over the network).
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits on what one tool call hands back or waits for.
const (
	maxResultBytes   = 1 << 20
	maxProgressBytes = 4 << 10
	// maxAgentTools bounds the agents one account exposes as tools.
	maxAgentTools = 100
)

// New builds a server whose tools call the API through c. The agents the
// account exposes as tools are listed now, once: a server lives for one
// HTTP request, or for one stdio session.
func New(ctx context.Context, c *client.Client, version string) (*mcp.Server, error) {
	return build(ctx, c, version, false)
}

func build(ctx context.Context, c *client.Client, version string, live bool) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "agentry", Title: "Agentry", Version: version},
		&mcp.ServerOptions{Instructions: "Agentry runs AI agents. List agents with list_agents, run one with run_agent " +
			"(it waits for the run and reports its events as progress), read runs with get_agent_run."})
	b := builder{s: s, c: c, agents: &agentToolSet{names: map[string]string{}}}
	b.add("list_agents", "List the account's agents, a page at a time.", b.listAgents)
	b.add("get_agent", "Get one agent's settings by id.", b.getAgent)
	b.add("create_agent", "Create an agent from a template or an agent_definition (as GET /agents/{agent_id}/export produces it).", b.createAgent)
	b.add("run_agent", "Run an agent and wait for it to finish; progress notifications carry the run's events as they happen. Returns the final run with its output.", b.runAgent)
	b.add("get_agent_run", "Get a run's status and output; include_step_outputs adds each step's input, output and tool calls.", b.getRun)
	b.add("cancel_agent_run", "Cancel a run that has not finished.", b.cancelRun)
	b.add("search_agent_traces", "Search the account's runs: rank step inputs and outputs by similarity to a query.", b.searchTraces)
	b.add("get_agent_attachment_references", "What files a run of the agent needs: the attachment-reference contract of its workflow.", b.attachmentRefs)
	b.add("search_knowledge_base", "Search a knowledge base: ranked passages for a query.", b.searchKnowledgeBase)
	b.add("search_resources", "Search every kind of resource of the account (agents, knowledge bases, sources, contents, solutions, memory banks, alerts, …) by name and description, or find one by its id.", b.searchResources)
	if err := b.syncAgentTools(ctx); err != nil {
		return nil, err
	}
	if live {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					// A failure keeps the tools listed last time.
					_ = b.syncAgentTools(ctx)
				}
				return next(ctx, method, req)
			}
		})
	}
	return s, nil
}

// NewLive is New for a long-lived session (stdio): the exposed agents are
// listed again whenever the client lists the tools, so exposing or hiding
// one shows without a restart (the SDK tells the client the list changed).
func NewLive(ctx context.Context, c *client.Client, version string) (*mcp.Server, error) {
	return build(ctx, c, version, true)
}

type builder struct {
	s      *mcp.Server
	c      *client.Client
	agents *agentToolSet
}

// handler answers one tool call from the arguments split into the
// operation's parameters and its body.
type handler func(ctx context.Context, req *mcp.CallToolRequest, params, body map[string]any) (any, error)

func (b builder) add(operationID, description string, h handler) {
	b.s.AddTool(&mcp.Tool{Name: operationID, Description: description, InputSchema: mustInputSchema(operationID)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := map[string]any{}
			if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &args); err != nil {
					return toolError(fmt.Errorf("the arguments must be a JSON object: %v", err)), nil
				}
			}
			params, body := splitArgs(operationID, args)
			out, err := h(ctx, req, params, body)
			if err != nil {
				return toolError(err), nil
			}
			return toolResult(out)
		})
}

// toolResult answers a value as JSON text, and as structured content
// when it is an object.
func toolResult(v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxResultBytes {
		return toolError(fmt.Errorf("the result is %d bytes, more than the %d a tool answers; narrow the request", len(raw), maxResultBytes)), nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
	if len(raw) > 0 && raw[0] == '{' {
		res.StructuredContent = json.RawMessage(raw)
	}
	return res, nil
}

// toolError is a failed call the model can read: the API's own message
// (with its status, and a validation error's items), not a protocol error.
func toolError(err error) *mcp.CallToolResult {
	msg := err.Error()
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		msg = fmt.Sprintf("%d %s: %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode), apiErr.Message)
		if apiErr.StatusCode == http.StatusUnprocessableEntity && len(apiErr.Body) <= 8<<10 {
			msg += "\n" + string(apiErr.Body)
		}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// decode turns a body map into the client's request type.
func decode(body map[string]any, v any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func decodeRaw(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func str(params map[string]any, name string) (string, error) {
	s, ok := params[name].(string)
	if !ok || s == "" {
		return "", fmt.Errorf("%s is required", name)
	}
	return s, nil
}

func intParam(params map[string]any, name string) int {
	if f, ok := params[name].(float64); ok {
		return int(f)
	}
	return 0
}

func (b builder) listAgents(ctx context.Context, _ *mcp.CallToolRequest, params, _ map[string]any) (any, error) {
	q := url.Values{}
	for _, name := range []string{"page", "limit"} {
		if n := intParam(params, name); n != 0 {
			q.Set(name, strconv.Itoa(n))
		}
	}
	// The API's page as it is: {data, pagination}.
	var out json.RawMessage
	return out, b.c.Do(ctx, http.MethodGet, "/agents", nil, &out, client.WithQuery(q))
}

func (b builder) getAgent(ctx context.Context, _ *mcp.CallToolRequest, params, _ map[string]any) (any, error) {
	id, err := str(params, "agent_id")
	if err != nil {
		return nil, err
	}
	return b.c.GetAgent(ctx, id)
}

func (b builder) createAgent(ctx context.Context, _ *mcp.CallToolRequest, _, body map[string]any) (any, error) {
	var in client.CreateAgentRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	return b.c.CreateAgent(ctx, in)
}

func (b builder) runAgent(ctx context.Context, req *mcp.CallToolRequest, params, body map[string]any) (any, error) {
	id, err := str(params, "agent_id")
	if err != nil {
		return nil, err
	}
	var in client.AgentRunRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	return runAndReport(ctx, b.c, req, id, in)
}

// runAndReport runs an agent on its event stream, relaying each event as
// a progress notification when the caller asked for progress, and returns
// the final run. A stream that breaks once the run started is replaced by
// polling, so a started run is always waited for.
func runAndReport(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, agentID string, in client.AgentRunRequest) (*client.AgentRunResponse, error) {
	token := req.Params.GetProgressToken()
	runID, n := "", 0
	for ev, err := range c.StreamRun(ctx, agentID, in) {
		if err != nil {
			if runID != "" && ctx.Err() == nil {
				return c.PollRun(ctx, runID, time.Second, 0)
			}
			return nil, err
		}
		if ev.RunID != "" {
			runID = ev.RunID
		}
		if token != nil && req.Session != nil {
			n++
			msg := ev.Type + " " + string(ev.Data)
			if len(msg) > maxProgressBytes {
				msg = msg[:maxProgressBytes]
			}
			// A client that went away only loses its notifications; the
			// run goes on and the result is still returned.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
		}
		if ev.Type == client.EventDone && ev.Snapshot != nil {
			return ev.Snapshot, nil
		}
	}
	if runID != "" && ctx.Err() == nil {
		return c.PollRun(ctx, runID, time.Second, 0)
	}
	return nil, errors.New("the run's event stream ended before the run did")
}

func (b builder) getRun(ctx context.Context, _ *mcp.CallToolRequest, params, _ map[string]any) (any, error) {
	id, err := str(params, "run_id")
	if err != nil {
		return nil, err
	}
	steps, _ := params["include_step_outputs"].(bool)
	return b.c.GetRun(ctx, id, steps)
}

func (b builder) cancelRun(ctx context.Context, _ *mcp.CallToolRequest, params, _ map[string]any) (any, error) {
	id, err := str(params, "run_id")
	if err != nil {
		return nil, err
	}
	return b.c.CancelRun(ctx, id)
}

func (b builder) searchTraces(ctx context.Context, _ *mcp.CallToolRequest, _, body map[string]any) (any, error) {
	var in client.AgentTraceSearchRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	return b.c.SearchTraces(ctx, in)
}

func (b builder) attachmentRefs(ctx context.Context, _ *mcp.CallToolRequest, params, _ map[string]any) (any, error) {
	id, err := str(params, "agent_id")
	if err != nil {
		return nil, err
	}
	// The API's answer as it is, so the tool shows exactly what
	// GET /agents/{agent_id}/attachment-references shows.
	var out json.RawMessage
	return out, b.c.Do(ctx, http.MethodGet, "/agents/"+url.PathEscape(id)+"/attachment-references", nil, &out)
}

func (b builder) searchKnowledgeBase(ctx context.Context, _ *mcp.CallToolRequest, params, body map[string]any) (any, error) {
	id, err := str(params, "knowledge_base_id")
	if err != nil {
		return nil, err
	}
	var in client.KnowledgeSearchRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	return b.c.SearchKnowledgeBase(ctx, id, in)
}

func (b builder) searchResources(ctx context.Context, _ *mcp.CallToolRequest, params, _ map[string]any) (any, error) {
	q, err := str(params, "q")
	if err != nil {
		return nil, err
	}
	entityType, _ := params["entity_type"].(string)
	results, err := b.c.Search(ctx, q, entityType, intParam(params, "limit"))
	if err != nil {
		return nil, err
	}
	// The API's answer as it is: {"results": [...]}.
	return map[string]any{"results": results}, nil
}
