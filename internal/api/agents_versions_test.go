package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// versionedDef is a two-step workflow whose first step says which version
// it is, so a run shows the version it ran.
func versionedDef(label string, extra ...map[string]any) map[string]any {
	greet := map[string]any{"id": "greet", "step_type": "text", "text": label + " {{input}}", "child_steps": []any{
		map[string]any{"id": "show", "step_type": "display_result", "template": "{{input}}!"}}}
	steps := []any{greet}
	for _, e := range extra {
		steps = append(steps, e)
	}
	return map[string]any{"name": "versioned", "child_steps": steps}
}

type versionList struct {
	Data       []api.AgentVersionResponse `json:"data"`
	Pagination map[string]any             `json:"pagination"`
}

func putDef(t *testing.T, s *testserver.Server, agent, expected string, d map[string]any) string {
	t.Helper()
	r := s.Do(t, "PUT", "/agents/"+agent+"/definition", s.Key, map[string]any{"expected_change_id": expected, "definition": d})
	wantStatus(t, r, http.StatusOK)
	var out definitionBody
	r.JSON(t, &out)
	return out.ChangeID
}

func TestAgentVersions(t *testing.T) {
	t.Parallel()
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		a := createAgent(t, s, s.Key, map[string]any{"name": "versioned", "agent_template": "simple_qa"})
		first := getDefinition(t, s, s.Key, a.ID).ChangeID

		// Three saves: a fourth version after the first.
		v1 := putDef(t, s, a.ID, first, versionedDef("v1"))
		v2 := putDef(t, s, a.ID, v1, versionedDef("v2", map[string]any{"id": "note", "step_type": "text", "text": "side"}))
		v3 := putDef(t, s, a.ID, v2, versionedDef("v3"))

		r := s.Do(t, "GET", "/agents/"+a.ID+"/versions", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var list versionList
		r.JSON(t, &list)
		if len(list.Data) != 4 || list.Pagination["total"] != 4.0 {
			t.Fatalf("list: %s", r.Body)
		}
		got := []string{}
		for _, v := range list.Data {
			got = append(got, v.ChangeID)
			if v.Definition != nil || v.SavedBy == nil || *v.SavedBy != s.UserID && v.ChangeID != first {
				t.Errorf("listed version %+v", v)
			}
		}
		if want := []string{v3, v2, v1, first}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("order %v, want newest first %v", got, want)
		}
		if !list.Data[0].Current || list.Data[1].Current {
			t.Errorf("current flags: %+v", list.Data)
		}
		if s := list.Data[0].Summary; s != "removed note; changed greet (text)" {
			t.Errorf("summary of v3: %q", s)
		}
		if s := list.Data[1].Summary; s != "added note; changed greet (text)" {
			t.Errorf("summary of v2: %q", s)
		}
		if list.Data[3].Summary != "first version" {
			t.Errorf("summary of the first: %q", list.Data[3].Summary)
		}
		// Paging: the second page's summary still compares with the version before it.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/versions?page=2&limit=2", s.Key, nil)
		r.JSON(t, &list)
		if len(list.Data) != 2 || list.Data[0].ChangeID != v1 || list.Data[0].Summary == "first version" || list.Pagination["has_next"] != false {
			t.Errorf("page 2: %s", r.Body)
		}

		// One version, with its definition.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/versions/"+v1, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var one api.AgentVersionResponse
		r.JSON(t, &one)
		if one.ChangeID != v1 || one.Current || !strings.Contains(string(one.Definition), `"v1 {{input}}"`) {
			t.Errorf("get v1: %s", r.Body)
		}

		// Diff v2 against v1 names the step keys and the changed fields.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/versions/"+v2+"/diff?against="+v1, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var diff api.AgentVersionDiffResponse
		r.JSON(t, &diff)
		if diff.Against == nil || *diff.Against != v1 || len(diff.Diff.Added) != 1 || diff.Diff.Added[0].StepKey != "note" ||
			len(diff.Diff.Removed) != 0 || len(diff.Diff.Changed) != 1 || diff.Diff.Changed[0].StepKey != "greet" ||
			len(diff.Diff.Changed[0].Fields) != 1 || diff.Diff.Changed[0].Fields[0].Field != "text" ||
			string(diff.Diff.Changed[0].Fields[0].Before) != `"v1 {{input}}"` || string(diff.Diff.Changed[0].Fields[0].After) != `"v2 {{input}}"` {
			t.Errorf("diff v2/v1: %s", r.Body)
		}
		// Without against: the version before it.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/versions/"+v3+"/diff", s.Key, nil)
		r.JSON(t, &diff)
		if r.Status != http.StatusOK || diff.Against == nil || *diff.Against != v2 || len(diff.Diff.Removed) != 1 {
			t.Errorf("diff v3: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/"+a.ID+"/versions/"+v3+"/diff?against="+store.NewID()+"", s.Key, nil)
		wantLoc(t, r, "", "query", "against")

		// Restoring v1 with a stale change id is refused and changes nothing.
		r = s.Do(t, "POST", "/agents/"+a.ID+"/versions/"+v1+"/restore", s.Key, map[string]any{"expected_change_id": v2})
		wantStatus(t, r, http.StatusConflict)
		r = s.Do(t, "POST", "/agents/"+a.ID+"/versions/"+v1+"/restore", s.Key, map[string]any{"expected_change_id": v3})
		wantStatus(t, r, http.StatusOK)
		var restored api.AgentVersionResponse
		r.JSON(t, &restored)
		if restored.ChangeID == v1 || restored.ChangeID == v3 || !restored.Current || restored.Summary != "changed greet (text)" {
			t.Fatalf("restore: %s", r.Body)
		}
		cur := getDefinition(t, s, s.Key, a.ID)
		if cur.ChangeID != restored.ChangeID || !sameJSON(cur.Definition, versionedDef("v1")) {
			t.Fatalf("definition after restore: %+v", cur)
		}
		// History was not rewritten: five versions now.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/versions", s.Key, nil)
		r.JSON(t, &list)
		if len(list.Data) != 5 || list.Data[0].ChangeID != restored.ChangeID || list.Data[1].ChangeID != v3 {
			t.Errorf("after restore: %s", r.Body)
		}

		// A run records the version it ran; one can run an older version.
		r = s.Do(t, "POST", "/agents/"+a.ID+"/runs", s.Key, map[string]any{"input": "x"})
		var now runs.RunResponse
		r.JSON(t, &now)
		if now.ChangeID != restored.ChangeID {
			t.Errorf("run started on %q, want the current %s", now.ChangeID, restored.ChangeID)
		}
		r = s.Do(t, "POST", "/agents/"+a.ID+"/runs", s.Key, map[string]any{"input": "x", "change_id": v2})
		var old runs.RunResponse
		r.JSON(t, &old)
		if r.Status != http.StatusOK || old.ChangeID != v2 {
			t.Fatalf("run on v2: %s", r.Body)
		}
		if done := waitRun(t, s, s.Key, old.RunID); done.Status != "completed" || done.ChangeID != v2 || *done.Output != "v2 x!" {
			t.Errorf("run on v2 ran %+v", done)
		}
		if done := waitRun(t, s, s.Key, now.RunID); *done.Output != "v1 x!" {
			t.Errorf("run on the current version output %q", *done.Output)
		}
		// A change id of no version of this agent is a 422 naming the field.
		other := createAgent(t, s, s.Key, map[string]any{"name": "other", "agent_template": "simple_qa"})
		otherChange := getDefinition(t, s, s.Key, other.ID).ChangeID
		for _, bad := range []string{otherChange, "nope"} {
			r = s.Do(t, "POST", "/agents/"+a.ID+"/runs", s.Key, map[string]any{"input": "x", "change_id": bad})
			wantLoc(t, r, "", "body", "change_id")
		}

		// Another account sees none of it.
		ten := s.NewTenant(t, "other")
		for _, p := range []string{"/versions", "/versions/" + v1, "/versions/" + v1 + "/diff"} {
			if r := s.Do(t, "GET", "/agents/"+a.ID+p, ten.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("cross-account GET %s: %d %s", p, r.Status, r.Body)
			}
		}
		if r := s.Do(t, "POST", "/agents/"+a.ID+"/versions/"+v1+"/restore", ten.Key, map[string]any{"expected_change_id": restored.ChangeID}); r.Status != http.StatusNotFound {
			t.Errorf("cross-account restore: %d", r.Status)
		}
		if r := s.Do(t, "GET", "/agents/"+a.ID+"/versions/"+store.NewID(), s.Key, nil); r.Status != http.StatusNotFound {
			t.Errorf("unknown version: %d", r.Status)
		}
	})
}
