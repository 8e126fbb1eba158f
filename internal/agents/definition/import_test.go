package definition

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

const (
	fullKB      = "0190a000-0000-7000-8000-0000000000c1"
	fullTrigKB  = "0190a000-0000-7000-8000-0000000000c2"
	fullAgent   = "0190a000-0000-7000-8000-0000000000a7"
	fullUser    = "0190a000-0000-7000-8000-0000000000d1"
	targetKB    = "0190b000-0000-7000-8000-0000000000c1"
	targetAgent = "0190b000-0000-7000-8000-0000000000a7"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustImport(t *testing.T, payload []byte, opts ImportOptions) *Imported {
	t.Helper()
	im, err := Import(context.Background(), payload, opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return im
}

func mustFail(t *testing.T, payload []byte, opts ImportOptions) *ImportError {
	t.Helper()
	_, err := Import(context.Background(), payload, opts)
	ie, ok := AsImportError(err)
	if !ok {
		t.Fatalf("want *ImportError, got %v", err)
	}
	return ie
}

// checkPositions verifies every error position independently of the
// position index: the text of Source at (line, column) must begin with the
// canonical rendering of the value at the error's path, or of the nearest
// enclosing value that exists.
func checkPositions(t *testing.T, ie *ImportError) {
	t.Helper()
	tree, _, err := canonjson.Parse([]byte(ie.Source))
	if err != nil {
		t.Fatalf("source is not JSON: %v", err)
	}
	lines := strings.Split(ie.Source, "\n")
	for _, fe := range ie.Errors {
		v, ok := valueAt(tree, fe.Path)
		for p := fe.Path; !ok; {
			p, _ = canonjson.Parent(p)
			v, ok = valueAt(tree, p)
		}
		text, _ := canonjson.Print(v)
		first := strings.SplitN(text, "\n", 2)[0]
		if fe.Line < 1 || fe.Line > len(lines) {
			t.Fatalf("%s: line %d outside source", fe.Path, fe.Line)
		}
		rest := []rune(lines[fe.Line-1])
		if fe.Column < 1 || fe.Column > len(rest) || !strings.HasPrefix(string(rest[fe.Column-1:]), first) {
			t.Errorf("%s: source at %d:%d is %q, want it to start with %q", fe.Path, fe.Line, fe.Column, string(rest[min(fe.Column-1, len(rest)):]), first)
		}
	}
}

func valueAt(v any, path string) (any, bool) {
	segs, err := canonjson.Split(path)
	if err != nil {
		return nil, false
	}
	for _, s := range segs {
		switch t := v.(type) {
		case map[string]any:
			if s.IsIndex {
				return nil, false
			}
			var ok bool
			if v, ok = t[s.Key]; !ok {
				return nil, false
			}
		case []any:
			if !s.IsIndex || s.Index >= len(t) {
				return nil, false
			}
			v = t[s.Index]
		default:
			return nil, false
		}
	}
	return v, true
}

func TestImportReferenceShapedExport(t *testing.T) {
	raw := readFixture(t, "export_streaming.json")
	im := mustImport(t, raw, ImportOptions{Resolver: acceptAll})
	if len(im.Warnings) != 0 || len(im.Skips) != 0 {
		t.Errorf("warnings %v skips %v", dump(im.Warnings), im.Skips)
	}
	if im.Shape != ShapeExport || *im.PayloadVersion != "2" || im.Trigger != TriggerDynamicInput {
		t.Errorf("shape %s version %v trigger %s", im.Shape, im.PayloadVersion, im.Trigger)
	}
	if im.Source != canonical(t, raw) {
		t.Error("Source must be the canonical echo of the payload")
	}
	// Re-marshalling the imported export gives back the payload.
	out, err := json.Marshal(im.Export)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := canonical(t, raw), canonical(t, out); a != b {
		t.Errorf("export changed on the way through:\n%s\n---\n%s", a, b)
	}
	p := im.Preview()
	if !p.OK || *p.AgentName != "Ticket Triage (Staging)" || p.StepCount != 2 || *p.PayloadExportVersion != "2" || p.SupportedExportVersion != "2" || len(p.UnresolvedRefs) != 0 {
		t.Errorf("preview %+v", p)
	}
}

func TestImportFullExportCreate(t *testing.T) {
	raw := readFixture(t, "export_full.json")
	im := mustImport(t, raw, ImportOptions{Mode: ModeCreate, Resolver: acceptAll})
	if len(im.Warnings) != 0 || len(im.Skips) != 0 {
		t.Fatalf("warnings %v skips %+v", dump(im.Warnings), im.Skips)
	}
	x := im.Extras
	if len(x.Schedules) != 1 || len(x.AlertConfigs) != 1 || len(x.EvaluationCriteria) != 1 || len(x.GovernancePolicies) != 1 || !reflect.DeepEqual(x.Solutions, []string{"Compliance"}) {
		t.Errorf("extras %+v", x)
	}
	if im.Trigger != TriggerNewContent {
		t.Errorf("trigger %s", im.Trigger)
	}
	p := im.Preview()
	want := Preview{OK: true, StepCount: 8, Schedules: 1, AlertConfigs: 1, EvaluationCriteria: 1, GovernancePolicies: 1, Solutions: 1, SupportedExportVersion: "2", UnresolvedRefs: []UnresolvedRef{}}
	want.AgentName, want.Description, want.PayloadExportVersion = p.AgentName, p.Description, p.PayloadExportVersion
	if !reflect.DeepEqual(p, want) || *p.AgentName != "Policy Watcher" {
		t.Errorf("preview\n%+v\nwant\n%+v", p, want)
	}
	refs := ExportRefs(im.Export)
	ids := RefIDs(refs)
	if !reflect.DeepEqual(ids[RefKnowledgeBase], []string{fullKB, fullTrigKB}) || !reflect.DeepEqual(ids[RefUser], []string{fullUser}) {
		t.Errorf("export refs %v", ids)
	}
}

func TestImportUnresolvedRefs(t *testing.T) {
	raw := readFixture(t, "export_full.json")
	account := accountWith(fullTrigKB, fullAgent) // the library KB is missing

	ie := mustFail(t, raw, ImportOptions{Resolver: account})
	if len(ie.Errors) != 1 || ie.Errors[0].Path != "agent.definition.child_steps[0].child_steps[0].knowledge_base_id" {
		t.Fatalf("errors %+v", ie.Errors)
	}
	checkPositions(t, ie)

	im := mustImport(t, raw, ImportOptions{Mode: ModePreview, Resolver: accountWith(fullTrigKB)})
	p := im.Preview()
	if len(p.UnresolvedRefs) != 2 {
		t.Fatalf("unresolved %+v", p.UnresolvedRefs)
	}
	u := p.UnresolvedRefs[0]
	if u.Category != RefKnowledgeBase || u.RefID != fullKB || *u.RefName != "Policy library" || !reflect.DeepEqual(u.Locations, []string{"step:context"}) || u.Alternatives == nil {
		t.Errorf("first unresolved %+v", u)
	}
	if a := p.UnresolvedRefs[1]; a.Category != RefAgent || *a.RefName != "Compliance escalation" {
		t.Errorf("second unresolved %+v", a)
	}
	b, _ := json.Marshal(p)
	if !strings.Contains(string(b), `"unresolved_refs":[{"category":"knowledge_base","ref_id":"`+fullKB+`","ref_name":"Policy library","locations":["step:context"],"alternatives":[]}`) {
		t.Errorf("wire form %s", b)
	}

	// The trigger's knowledge base is checked too.
	im = mustImport(t, raw, ImportOptions{Mode: ModePreview, Resolver: accountWith(fullKB, fullAgent)})
	if got := im.Preview().UnresolvedRefs; len(got) != 1 || got[0].Locations[0] != "trigger" {
		t.Errorf("trigger ref %+v", got)
	}
}

func TestImportRemapAppliesBeforeValidation(t *testing.T) {
	raw := readFixture(t, "export_full.json")
	account := accountWith(targetKB, targetAgent, fullTrigKB)
	mustFail(t, raw, ImportOptions{Resolver: account})
	im := mustImport(t, raw, ImportOptions{Resolver: account, EntityRemap: map[string]string{fullKB: targetKB, fullAgent: targetAgent, "stale": "x"}})
	if len(im.Substitutions) != 2 || !reflect.DeepEqual(im.UnusedRemap, []string{"stale"}) {
		t.Errorf("subs %+v unused %v", im.Substitutions, im.UnusedRemap)
	}
	if got := RefIDs(im.Definition.Refs(""))[RefKnowledgeBase]; !reflect.DeepEqual(got, []string{targetKB}) {
		t.Errorf("definition kb %v", got)
	}
	if !im.Definition.Calls(targetAgent) {
		t.Error("call_agent not remapped")
	}
	// The echo is of the payload as submitted, before the remap.
	if !strings.Contains(im.Source, fullKB) {
		t.Error("source must show the submitted ids")
	}
	im = mustImport(t, raw, ImportOptions{Resolver: accountWith(fullKB, fullAgent, targetKB), EntityRemap: map[string]string{fullTrigKB: targetKB}})
	if *im.Export.Trigger.KnowledgeBaseID != targetKB {
		t.Error("trigger knowledge base not remapped")
	}
}

func TestImportUpdateSkipsExtras(t *testing.T) {
	raw := readFixture(t, "export_full.json")
	im := mustImport(t, raw, ImportOptions{Mode: ModeUpdate, Trigger: TriggerNewContent, Resolver: acceptAll})
	var cats []SkipCategory
	for _, s := range im.Skips {
		cats = append(cats, s.Category)
	}
	want := []SkipCategory{SkipSchedule, SkipAlertConfig, SkipEvaluationCriteria, SkipGovernancePolicy, SkipSolutionLink}
	if !reflect.DeepEqual(cats, want) {
		t.Errorf("skips %v", cats)
	}
	if im.Skips[2].Details["step_id"] != "assess" || im.Skips[1].Details["alert_type"] != "agent_run_failed" {
		t.Errorf("details %+v", im.Skips)
	}
	if !reflect.DeepEqual(im.Extras, Extras{}) {
		t.Errorf("update applies no extras: %+v", im.Extras)
	}
}

func TestImportCreateSkipsBadExtras(t *testing.T) {
	var env map[string]any
	if err := json.Unmarshal(readFixture(t, "export_full.json"), &env); err != nil {
		t.Fatal(err)
	}
	env["evaluation_criteria"] = []any{map[string]any{"step_id": "gone"}, map[string]any{"step_id": "assess"}, "junk"}
	env["alert_configs"] = []any{map[string]any{"threshold": 1}}
	env["solutions"] = []any{"Compliance", 7}
	raw, _ := json.Marshal(env)
	im := mustImport(t, raw, ImportOptions{Resolver: acceptAll})
	got := map[SkipCategory]int{}
	for _, s := range im.Skips {
		got[s.Category]++
	}
	if !reflect.DeepEqual(got, map[SkipCategory]int{SkipEvaluationCriteria: 2, SkipAlertConfig: 1, SkipSolutionLink: 1}) {
		t.Errorf("skips %+v", im.Skips)
	}
	if len(im.Extras.EvaluationCriteria) != 1 || len(im.Extras.Solutions) != 1 {
		t.Errorf("extras %+v", im.Extras)
	}
	p := im.Preview()
	if p.EvaluationCriteria != 3 || p.AlertConfigs != 1 {
		t.Errorf("preview counts what was supplied: %+v", p)
	}
	var crit ImportSkip
	for _, s := range im.Skips {
		if s.Category == SkipEvaluationCriteria {
			crit = s
			break
		}
	}
	b, _ := json.Marshal(crit)
	if !strings.HasPrefix(string(b), `{"category":"evaluation_criteria","message":`) || !strings.Contains(string(b), `"details":{"index":0,"step_id":"gone"}`) {
		t.Errorf("skip wire form %s", b)
	}
}

func TestImportErrorsArePositioned(t *testing.T) {
	payload := `{"export_version":"2","agent":{"name":"x","evaluation_mode":"sometimes","max_retries":"3",
	  "definition":{"child_steps":[
	    {"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"{{input}}","temperature":9,
	     "child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]},
	    {"id":"p","name":"Dup","step_type":"retrieval"},
	    {"id":"é-step","name":"Ünïcode","step_type":"display_result","template":{"not":"a string"}}]}},
	  "trigger":{"trigger_type":"schedule","schedules":[{"cron_expression":"0 * * * *"}]}}`
	ie := mustFail(t, []byte(payload), ImportOptions{Resolver: acceptAll})
	var paths []string
	for _, e := range ie.Errors {
		paths = append(paths, e.Path)
	}
	want := []string{
		"agent.definition.child_steps[0].child_steps[0]",    // streaming_result on a schedule trigger
		"agent.definition.child_steps[0].temperature",       // out of range
		"agent.definition.child_steps[1].id",                // duplicate id
		"agent.definition.child_steps[1].knowledge_base_id", // missing: positioned at the step
		"agent.definition.child_steps[2].template",          // wrong type
		"agent.evaluation_mode",                             // enum
		"agent.max_retries",                                 // type
	}
	sortedPaths := append([]string(nil), paths...)
	sortStrings(sortedPaths)
	if !reflect.DeepEqual(sortedPaths, want) {
		t.Fatalf("error paths %v\nwant %v\n%s", sortedPaths, want, ie.Source)
	}
	checkPositions(t, ie)
	if ie.Code != "invalid_agent_definition" || !strings.Contains(ie.Message, "7 errors") {
		t.Errorf("code %q message %q", ie.Code, ie.Message)
	}
	for i := 1; i < len(ie.Errors); i++ {
		a, b := ie.Errors[i-1], ie.Errors[i]
		if a.Line > b.Line || (a.Line == b.Line && a.Column > b.Column) {
			t.Errorf("errors not in source order: %+v before %+v", a, b)
		}
	}
	body, _ := json.Marshal(ie)
	var decoded map[string]any
	_ = json.Unmarshal(body, &decoded)
	for _, k := range []string{"error", "message", "errors", "source"} {
		if _, ok := decoded[k]; !ok {
			t.Errorf("422 body lacks %q: %s", k, body)
		}
	}

	// Same payload, other formatting and key order: the same body.
	var v any
	_ = json.Unmarshal([]byte(payload), &v)
	compact, _ := json.Marshal(v)
	ie2 := mustFail(t, compact, ImportOptions{Resolver: acceptAll})
	b2, _ := json.Marshal(ie2)
	if string(body) != string(b2) {
		t.Errorf("not deterministic:\n%s\n%s", body, b2)
	}
}

func TestImportSyntaxErrorPointsIntoRawInput(t *testing.T) {
	raw := "{\n  \"agent\": {\n    \"definition\": {\"child_steps\": [,]}\n  }\n}"
	ie := mustFail(t, []byte(raw), ImportOptions{})
	if ie.Source != raw || len(ie.Errors) != 1 {
		t.Fatalf("source/errors: %+v", ie)
	}
	e := ie.Errors[0]
	if e.Line != 3 || e.Column != 36 || e.Path != "" || !strings.Contains(ie.Message, "not valid JSON") {
		t.Errorf("syntax error %+v %q (line 3: %q)", e, ie.Message, strings.Split(raw, "\n")[2])
	}
}

func TestImportBareDefinitionAndLegacy(t *testing.T) {
	bare := `{"name":"Bare","child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"{{input}}","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}]}`
	im := mustImport(t, []byte(bare), ImportOptions{})
	if im.Shape != ShapeDefinition || im.PayloadVersion != nil || im.Trigger != DefaultTrigger || im.Export.Agent.Name != "Bare" {
		t.Errorf("bare: %+v", im)
	}
	if p := im.Preview(); p.PayloadExportVersion != nil || p.StepCount != 2 {
		t.Errorf("bare preview %+v", p)
	}
	// An explicit trigger of the request applies to a bare definition.
	ie := mustFail(t, []byte(bare), ImportOptions{Trigger: TriggerEmailReceived})
	if ie.Errors[0].Path != "child_steps[0].child_steps[0]" {
		t.Errorf("bare paths are relative to the payload: %+v", ie.Errors)
	}

	legacy := `{"agent":{"name":"Old","definition":{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]}}}`
	im = mustImport(t, []byte(legacy), ImportOptions{})
	if im.PayloadVersion != nil || im.Shape != ShapeExport {
		t.Errorf("legacy: version %v", im.PayloadVersion)
	}

	future := `{"export_version":"3","agent":{"definition":{"child_steps":[]}},"hologram":{}}`
	im = mustImport(t, []byte(future), ImportOptions{})
	if !hasProblem(im.Warnings, SeverityWarning, CodeUnsupportedVersion, "export_version") || !hasProblem(im.Warnings, SeverityWarning, CodeUnknownField, "hologram") {
		t.Errorf("future version warnings:%s", dump(im.Warnings))
	}
	if im.Warnings[0].Line == 0 {
		t.Error("warnings are positioned too")
	}

	for _, bad := range []string{`[]`, `"x"`, `{"hello":1}`, `{"agent":{}}`, `{"agent":{"definition":[]}}`} {
		ie := mustFail(t, []byte(bad), ImportOptions{})
		checkPositions(t, ie)
	}

	// The exporting account's trigger id is read and ignored, never an
	// unknown field.
	withID := `{"export_version":"2","agent":{"definition":{"child_steps":[]}},"trigger":{"id":"0190f2a4-7b7e-7c1e-9d2e-3f4a5b6c7d8e","trigger_type":"email_received"}}`
	im = mustImport(t, []byte(withID), ImportOptions{})
	if hasProblem(im.Warnings, SeverityWarning, CodeUnknownField, "trigger.id") || im.Trigger != TriggerEmailReceived {
		t.Errorf("trigger id on import:%s", dump(im.Warnings))
	}
}

func TestImportTriggerOverrideAndWarnings(t *testing.T) {
	raw := readFixture(t, "export_streaming.json")
	ie := mustFail(t, raw, ImportOptions{Trigger: TriggerSchedule})
	if !hasProblem(ie.Problems, SeverityError, CodeStreamingTrigger, "") {
		t.Errorf("explicit trigger must override the payload's:%s", dump(ie.Problems))
	}
	tpl := `{"agent":{"definition":{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]}},"trigger":{"trigger_type":"template_input","input":null}}`
	im := mustImport(t, []byte(tpl), ImportOptions{})
	if !hasProblem(im.Warnings, SeverityWarning, CodeTriggerIncomplete, "trigger.input") || im.Trigger != TriggerTemplateInput {
		t.Errorf("template trigger:%s", dump(im.Warnings))
	}
	bad := `{"agent":{"definition":{"child_steps":[]}},"trigger":{"trigger_type":"webhook"}}`
	mustFail(t, []byte(bad), ImportOptions{})
}

func TestImportResolverFailure(t *testing.T) {
	raw := readFixture(t, "export_full.json")
	_, err := Import(context.Background(), raw, ImportOptions{Resolver: ResolverFunc(func(context.Context, RefKind, string) (bool, error) {
		return false, context.DeadlineExceeded
	})})
	if _, isImport := AsImportError(err); err == nil || isImport {
		t.Fatalf("resolver failure must not be a 422: %v", err)
	}
}

func TestImportDuplicateKeysWarn(t *testing.T) {
	im := mustImport(t, []byte(`{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"a","text":"b"}]}`), ImportOptions{})
	if !hasProblem(im.Warnings, SeverityWarning, CodeDuplicateKey, "child_steps[0].text") {
		t.Errorf("warnings:%s", dump(im.Warnings))
	}
	if s, _ := im.Definition.Steps[0].String("text"); s != "b" {
		t.Errorf("last value wins, got %q", s)
	}
}
