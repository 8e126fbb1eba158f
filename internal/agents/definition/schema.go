package definition

import (
	"encoding/json"
	"strings"
)

// JSONSchema returns the JSON Schema (draft 2020-12) of import payloads: an
// export envelope or a bare definition. It is generated from the same spec
// tables the validator uses and checked in as
// docs/agent-definition.schema.json (TestSchemaFileUpToDate keeps the two
// equal). The schema covers shapes, types, enums, ranges and which sub-trees
// each step type may have; rules that span the tree (unique ids, retry
// targets being ancestors, streaming_result placement, branches without
// display_result, trigger-dependent steps, entities existing) are the
// validator's alone and are described in docs/agent-definitions.md.
func JSONSchema() []byte {
	defs := obj{
		"export":          exportSchema(),
		"agent":           agentSchema(),
		"trigger":         triggerSchema(),
		"dependencies":    dependenciesSchema(),
		"entity":          entitySchema(),
		"definition":      definitionSchema(),
		"steps":           obj{"type": "array", "items": ref("step")},
		"step":            stepSchema(),
		"switch_case":     switchCaseSchema(),
		"conditions":      conditionsSchema(),
		"condition":       obj{"anyOf": []any{ref("condition_group"), ref("condition_rule")}},
		"condition_group": conditionGroupSchema(),
		"condition_rule":  conditionRuleSchema(),
		"regex_rule":      regexRuleSchema(),
		"tool": obj{"anyOf": []any{
			obj{"type": "string", "minLength": 1},
			obj{"type": "object", "properties": obj{"type": obj{"type": "string", "minLength": 1}},
				"if": obj{"properties": obj{"type": obj{"const": MCPToolType}}, "required": []any{"type"}}, "then": ref("mcp_tool")},
		}},
		"mcp_tool": mcpToolSchema(),
		"scalar":   obj{"type": []any{"string", "number", "boolean"}},
	}
	for _, s := range specList {
		defs["step_"+string(s.Type)] = stepTypeSchema(s)
	}
	root := obj{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"title":       "Agentry agent definition",
		"description": "An agent export (export_version \"2\", as produced by GET /agents/{agent_id}/export) or a bare agent definition. Accepted as agent_definition by POST /agents, PUT /agents/{agent_id} and POST /agents/preview-import.",
		"anyOf":       []any{ref("export"), ref("definition")},
		"$defs":       defs,
	}
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err) // only maps, slices and strings: cannot fail
	}
	return append(b, '\n')
}

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/$defs/" + name} }

// nullable lets an optional member be null, which the importer reads as
// absent.
func nullable(s obj) obj {
	if t, ok := s["type"].(string); ok {
		c := obj{}
		for k, v := range s {
			c[k] = v
		}
		c["type"] = []any{t, "null"}
		if enum, ok := c["enum"].([]any); ok {
			c["enum"] = append(append([]any{}, enum...), nil)
		}
		return c
	}
	return obj{"anyOf": []any{s, obj{"type": "null"}}}
}

func strEnum(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

func objectOf(props obj, required ...string) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = strEnum(required)
	}
	return o
}

func exportSchema() obj {
	list := nullable(obj{"type": "array", "items": obj{"type": "object"}})
	o := objectOf(obj{
		"export_version":      obj{"type": "string", "description": "Export format version; \"2\". Absent in legacy payloads."},
		"exported_at":         obj{"type": "string", "description": "RFC 3339 time of the export."},
		"software_version":    obj{"type": "string", "description": "Version of the server that exported."},
		"agent":               ref("agent"),
		"trigger":             nullable(ref("trigger")),
		"alert_configs":       list,
		"evaluation_criteria": nullable(obj{"type": "array", "items": objectOf(obj{"step_id": obj{"type": "string"}}, "step_id")}),
		"governance_policies": list,
		"dependencies":        nullable(ref("dependencies")),
		"solutions":           nullable(obj{"type": "array", "items": obj{"anyOf": []any{obj{"type": "string"}, obj{"type": "object"}}}}),
	}, "agent")
	o["description"] = "Portable snapshot of an agent (AgentExportResponse)."
	return o
}

func agentSchema() obj {
	return objectOf(obj{
		"name":                               obj{"type": "string"},
		"description":                        nullable(obj{"type": "string"}),
		"schema_version":                     obj{"type": "string", "enum": strEnum(SupportedSchemaVersions)},
		"definition":                         ref("definition"),
		"default_evaluation_tier":            nullable(obj{"type": "string", "enum": strEnum(EvaluationTiers)}),
		"evaluation_mode":                    nullable(obj{"type": "string", "enum": strEnum(EvaluationModes)}),
		"sampling_config":                    nullable(obj{"type": "object"}),
		"max_retries":                        nullable(obj{"type": "integer", "minimum": 1, "maximum": 10}),
		"retry_on_failure":                   nullable(obj{"type": "boolean"}),
		"prompt_model_auto_upgrade_strategy": nullable(obj{"type": "string", "enum": strEnum(ModelUpgradeStrategies)}),
		"prompt_model_auto_rollback_enabled": nullable(obj{"type": "boolean"}),
		"prompt_model_auto_rollback_triggers": nullable(obj{"type": "array",
			"items": obj{"type": "string", "enum": strEnum(ModelRollbackTriggers)}}),
		"created_at": nullable(obj{"type": "string"}),
		"updated_at": nullable(obj{"type": "string"}),
	}, "definition")
}

func triggerSchema() obj {
	str := nullable(obj{"type": "string"})
	return objectOf(obj{
		"id":                 obj{"type": "string", "description": "The exporting account's trigger id; ignored on import."},
		"trigger_type":       obj{"type": "string", "enum": strEnum(triggerStrings(TriggerTypes()))},
		"name":               str,
		"input":              nullable(obj{"type": "string", "description": "Input template of template_input triggers."}),
		"input_content_type": str,
		"allow_empty_input":  nullable(obj{"type": "boolean"}),
		"default_input":      str,
		"metadata_":          nullable(obj{"type": "object"}),
		"knowledge_base_id":  nullable(obj{"type": "string", "description": "Knowledge base the trigger watches; remapped by entity_remap."}),
		"schedules":          nullable(obj{"type": "array", "items": obj{"type": "object"}}),
	})
}

func dependenciesSchema() obj {
	props := obj{}
	for _, k := range RefKinds() {
		props[manifestKey[k]] = obj{"type": "array", "items": ref("entity")}
	}
	o := objectOf(props)
	o["description"] = "Names of every referenced entity, for matching on import."
	return o
}

func entitySchema() obj {
	return objectOf(obj{
		"id":          obj{"type": "string"},
		"name":        obj{"type": "string"},
		"description": nullable(obj{"type": "string"}),
	}, "id")
}

func definitionSchema() obj {
	o := objectOf(obj{
		"name":        obj{"type": "string"},
		"description": obj{"type": "string"},
		"tags":        obj{"type": "array", "items": obj{"type": "string"}},
		keyChildSteps: ref("steps"),
	}, keyChildSteps)
	o["description"] = "The workflow: a tree of steps rooted in child_steps."
	return o
}

func stepSchema() obj {
	props := obj{}
	for _, f := range CommonFields {
		props[f.Name] = fieldSchema(f)
	}
	props["id"] = obj{"type": "string", "minLength": 1, "maxLength": maxIDLength, "description": CommonFields[0].Doc}
	props["step_type"] = obj{"type": "string", "enum": strEnum(stepTypeStrings())}
	// then_steps, else_steps, cases and body are described by the step
	// types that have them ("body" is also the text of send_email).
	var branches []any
	for _, s := range specList {
		branches = append(branches, obj{
			"if":   obj{"properties": obj{"step_type": obj{"const": string(s.Type)}}, "required": []any{"step_type"}},
			"then": ref("step_" + string(s.Type)),
		})
	}
	o := objectOf(props, "id", "step_type")
	o["allOf"] = branches
	return o
}

func stepTypeStrings() []string {
	var out []string
	for _, t := range StepTypes() {
		out = append(out, string(t))
	}
	return out
}

func stepTypeSchema(s *StepSpec) obj {
	props := obj{}
	var required []string
	for _, f := range s.Fields {
		props[f.Name] = fieldSchema(f)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	if s.Leaf {
		props[keyChildSteps] = obj{"type": "array", "maxItems": 0}
	}
	for _, key := range []string{keyThenSteps, keyElseSteps, keyCases, keyBody} {
		if _, isField := props[key]; !isField && !contains(s.Subtrees, key) {
			props[key] = false
		}
	}
	o := objectOf(props, required...)
	desc := s.Summary
	if s.ContentOnly {
		desc += " Content-triggered (new_content) agents only."
	}
	o["description"] = desc
	return o
}

func fieldSchema(f Field) obj {
	var s obj
	switch f.Kind {
	case KindString, KindTemplate:
		s = obj{"type": "string"}
		if f.Required {
			s["minLength"] = 1
		}
		if len(f.Enum) > 0 {
			s["enum"] = strEnum(f.Enum)
		}
	case KindStepID, KindRef:
		s = obj{"type": "string", "minLength": 1}
	case KindInteger, KindNumber:
		s = obj{"type": string(f.Kind)}
		if f.Min != nil {
			s["minimum"] = *f.Min
		}
		if f.Max != nil {
			s["maximum"] = *f.Max
		}
	case KindBoolean:
		s = obj{"type": "boolean"}
	case KindObject:
		s = obj{"type": "object"}
	case KindAny:
		s = obj{}
	case KindStringList:
		s = obj{"type": "array", "items": obj{"type": "string"}}
	case KindRefList:
		s = obj{"type": "array", "items": obj{"type": "string", "minLength": 1}}
	case KindStringOrList:
		s = obj{"anyOf": []any{obj{"type": "string"}, obj{"type": "array", "items": obj{"type": "string"}}}}
	case KindConditions:
		s = ref("conditions")
	case KindRegexRules:
		s = obj{"type": "array", "items": ref("regex_rule")}
	case KindTools:
		s = obj{"type": "array", "items": ref("tool")}
	case KindSteps:
		s = ref("steps")
	case KindCases:
		s = obj{"type": "array", "minItems": 1, "items": ref("switch_case")}
	}
	if f.Default != nil {
		s["default"] = f.Default
	}
	if f.Kind == KindSteps || f.Kind == KindCases {
		if f.Doc != "" {
			s = obj{"allOf": []any{s}, "description": f.Doc}
		}
		return s
	}
	if !f.Required {
		s = nullable(s)
	}
	if f.Doc != "" {
		s["description"] = strings.ReplaceAll(f.Doc, "`", "")
	}
	return s
}

func switchCaseSchema() obj {
	return objectOf(obj{
		keyCaseMatch: obj{"anyOf": []any{ref("scalar"), obj{"type": "array", "items": ref("scalar")}},
			"description": "Value compared with the rendered discriminator; a list matches any of its elements."},
		keyCaseSteps: ref("steps"),
	}, keyCaseMatch, keyCaseSteps)
}

func conditionsSchema() obj {
	return obj{"anyOf": []any{
		obj{"type": "array", "minItems": 1, "items": ref("condition")},
		ref("condition"),
	}, "description": "A list of rules that must all hold, or one rule or group."}
}

func conditionGroupSchema() obj {
	return objectOf(obj{
		"combinator": obj{"type": "string", "enum": []any{"and", "or"}, "default": "and"},
		"rules":      obj{"type": "array", "minItems": 1, "items": ref("condition")},
	}, "rules")
}

func conditionRuleSchema() obj {
	return objectOf(obj{
		"input":     obj{"type": "string", "default": "{{input}}", "description": "Template rendered and tested."},
		"json_path": obj{"type": "string", "pattern": "^\\$", "description": "JSONPath into the rendered input, read as JSON."},
		"operator":  obj{"type": "string", "enum": strEnum(ConditionOperators())},
		"value":     obj{"description": "Right operand; a number for gt/gte/lt/lte, a list for in/not_in, a regular expression for matches/not_matches, absent for the unary operators."},
	}, "operator")
}

func regexRuleSchema() obj {
	return objectOf(obj{
		"pattern":     obj{"type": "string", "description": "RE2 regular expression."},
		"replacement": obj{"type": "string", "default": ""},
		"flags":       obj{"type": "string", "pattern": "^[imsU]*$"},
	}, "pattern")
}
