package definition

import (
	"reflect"
	"testing"
)

const refsDef = `{"child_steps":[
  {"id":"r","name":"R","step_type":"retrieval","knowledge_base_id":"` + kbID + `","source_connection_ids":["` + srcID + `"],
   "child_steps":[
     {"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"{{input}} mentions ` + kbID + `",
      "tools":[{"type":"retrieval","knowledge_base_id":"` + kb2ID + `"}]},
     {"id":"c","name":"C","step_type":"call_agent","agent_id":"` + agentID + `"},
     {"id":"c2","name":"C2","step_type":"call_agent","agent_id":"{{metadata.agent}}"}]},
  {"id":"w","name":"W","step_type":"switch","cases":[{"match":"x","steps":[
     {"id":"m","name":"M","step_type":"search_memory","memory_bank_id":"` + bankID + `"},
     {"id":"c3","name":"C3","step_type":"call_agent","agent_id":"` + agentID + `"}]}]},
  {"id":"h","name":"H","step_type":"human_in_the_loop","instructions":"ok?","assignee_user_ids":["` + userID + `"]}]}`

func TestRefs(t *testing.T) {
	d := mustParse(t, refsDef)
	refs := d.Refs("agent.definition")
	var got []string
	for _, r := range refs {
		got = append(got, string(r.Kind)+" "+r.ID+" "+r.Path+" "+r.Location())
	}
	want := []string{
		"knowledge_base " + kbID + " agent.definition.child_steps[0].knowledge_base_id step:r",
		"source_connection " + srcID + " agent.definition.child_steps[0].source_connection_ids[0] step:r",
		"knowledge_base " + kb2ID + " agent.definition.child_steps[0].child_steps[0].tools[0].knowledge_base_id step:p",
		"agent " + agentID + " agent.definition.child_steps[0].child_steps[1].agent_id step:c",
		"memory_bank " + bankID + " agent.definition.child_steps[1].cases[0].steps[0].memory_bank_id step:m",
		"agent " + agentID + " agent.definition.child_steps[1].cases[0].steps[1].agent_id step:c3",
		"user " + userID + " agent.definition.child_steps[2].assignee_user_ids[0] step:h",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("refs:\n%v\nwant\n%v", got, want)
	}
	ids := RefIDs(refs)
	if !reflect.DeepEqual(ids[RefKnowledgeBase], []string{kbID, kb2ID}) || !reflect.DeepEqual(ids[RefAgent], []string{agentID}) {
		t.Errorf("RefIDs = %v", ids)
	}
	if got := d.CallTargets(); !reflect.DeepEqual(got, []string{agentID}) {
		t.Errorf("CallTargets = %v", got)
	}
	if !d.Calls(agentID) || d.Calls(kbID) {
		t.Error("Calls")
	}
}

func TestRemapTouchesOnlyReferenceFields(t *testing.T) {
	d := mustParse(t, refsDef)
	orig := d.Clone()
	newKB, newAgent := "kb-new", "agent-new"
	subs := d.Remap("", map[string]string{kbID: newKB, agentID: newAgent, "unused": "x", bankID: ""})
	if len(subs) != 3 {
		t.Fatalf("substitutions = %+v", subs)
	}
	if s, _ := d.Steps[0].String("knowledge_base_id"); s != newKB {
		t.Errorf("kb not remapped: %s", s)
	}
	if s, _ := d.Steps[0].Children[0].String("prompt_template"); s != "{{input}} mentions "+kbID {
		t.Errorf("text must not be rewritten: %s", s)
	}
	if s, _ := d.Steps[1].Cases[0].Steps[1].String("agent_id"); s != newAgent {
		t.Errorf("agent in case not remapped: %s", s)
	}
	if s, _ := d.Steps[1].Cases[0].Steps[0].String("memory_bank_id"); s != bankID {
		t.Errorf("empty target must be ignored: %s", s)
	}
	if s, _ := orig.Steps[0].String("knowledge_base_id"); s != kbID {
		t.Errorf("Clone shares state with the original")
	}
	if subs[0].Path != "child_steps[0].knowledge_base_id" || subs[0].ID != kbID || subs[0].NewID != newKB {
		t.Errorf("first substitution %+v", subs[0])
	}
}
