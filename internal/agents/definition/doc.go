// Package definition owns the agent definition format: the tree of steps an
// agent runs, its per-step-type configuration spec, structural validation,
// the export/import payload (export_version "2") with entity remapping and
// line/column-anchored errors, the import preview, the built-in templates,
// the attachment-reference contract, and the lists of entities a definition
// references (for dependency manifests, remaps and the callers endpoint).
//
// It is a pure library: no HTTP, no SQL, no model calls. Whatever needs the
// account's data comes in through small interfaces (Resolver, Describer) so
// handlers and the store plug in their own lookups.
//
// The JSON shape follows the definitions the reference platform exports: a
// root object {name, description, tags, child_steps} and steps whose
// type-specific configuration sits flat beside id, name and step_type, e.g.
//
//	{"id": "answer", "name": "Answer", "step_type": "prompt_call",
//	 "model": "…", "prompt_template": "{{input}}",
//	 "child_steps": [{"id": "out", "name": "Stream", "step_type": "streaming_result"}]}
//
// docs/agent-definitions.md describes the format for users; its step
// reference section and docs/agent-definition.schema.json are generated from
// the spec tables in this package (see TestDocsUpToDate).
package definition
