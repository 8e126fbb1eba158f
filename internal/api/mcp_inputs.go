package api

import "reflect"

// OperationInputs are the input types of the operations the MCP server
// (internal/mcpserver) offers as tools, by operation id, so that each
// tool's input schema is generated from the very types the HTTP API
// validates: path and query parameters become properties, the body's
// fields are merged beside them.
var OperationInputs = map[string]reflect.Type{
	"list_agents":                     reflect.TypeFor[listAgentsInput](),
	"get_agent":                       reflect.TypeFor[agentIDPath](),
	"create_agent":                    reflect.TypeFor[createAgentInput](),
	"run_agent":                       reflect.TypeFor[startRunInput](),
	"get_agent_run":                   reflect.TypeFor[getRunInput](),
	"cancel_agent_run":                reflect.TypeFor[runIDInput](),
	"search_agent_traces":             reflect.TypeFor[searchInput](),
	"get_agent_attachment_references": reflect.TypeFor[agentIDPath](),
	"search_knowledge_base":           reflect.TypeFor[searchKBInput](),
	"search_resources":                reflect.TypeFor[accountSearchInput](),
}
