package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/agentry/agentry/internal/api"
	"github.com/danielgtaylor/huma/v2"
)

// inputSchema generates a tool's input schema from the input type of the
// API operation it mirrors (api.OperationInputs), with the generator the
// API itself uses, so that the limits, formats and descriptions a request
// is validated against are the ones the tool advertises: path and query
// parameters become properties, and the body's fields sit beside them.
func inputSchema(operationID string) (map[string]any, error) {
	t, ok := api.OperationInputs[operationID]
	if !ok {
		return nil, fmt.Errorf("no input type for operation %s", operationID)
	}
	reg := huma.NewMapRegistry("#/$defs/", huma.DefaultSchemaNamer)
	props := map[string]any{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch {
		case f.Tag.Get("path") != "":
			name := f.Tag.Get("path")
			props[name] = huma.SchemaFromField(reg, f, "")
			required = append(required, name)
		case f.Tag.Get("query") != "":
			name := f.Tag.Get("query")
			props[name] = huma.SchemaFromField(reg, f, "")
			if f.Tag.Get("required") == "true" {
				required = append(required, name)
			}
		case f.Name == "Body":
			body := reg.Schema(f.Type, false, operationID+"Body")
			for name, s := range body.Properties {
				props[name] = s
			}
			required = append(required, body.Required...)
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		out["required"] = required
	}
	if defs := reg.Map(); len(defs) > 0 {
		out["$defs"] = defs
	}
	// Round-trip through JSON: the SDK wants plain JSON values, and the
	// huma schemas marshal to exactly what /openapi.json shows.
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(raw, &m)
}

// mustInputSchema is inputSchema for the fixed tool table: a failure is a
// programming error caught by every test that builds a server.
func mustInputSchema(operationID string) map[string]any {
	s, err := inputSchema(operationID)
	if err != nil {
		panic(err)
	}
	return s
}

// splitArgs separates a tool call's arguments into the operation's path
// and query parameters and its body, as the input type declares them.
func splitArgs(operationID string, args map[string]any) (params map[string]any, body map[string]any) {
	t := api.OperationInputs[operationID]
	params, body = map[string]any{}, map[string]any{}
	names := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if n := f.Tag.Get("path"); n != "" {
			names[n] = true
		}
		if n := f.Tag.Get("query"); n != "" {
			names[n] = true
		}
	}
	for k, v := range args {
		if names[k] {
			params[k] = v
		} else {
			body[k] = v
		}
	}
	return params, body
}

var _ = reflect.TypeOf
