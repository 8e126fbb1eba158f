package realclient_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The versions and rerun extensions through the client: paging and the
// iterator, a diff, a restore's conflict, a run on an old version and a
// rerun that reuses a step.
func TestVersionsAndRerunsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c := newRunClient(t, ts)
		agent := makeAgent(t, ts, `{"child_steps":[{"id":"a","step_type":"text","text":"one {{input}}","child_steps":[{"id":"b","step_type":"display_result"}]}]}`)
		def, err := c.GetAgentDefinition(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		first := def.ChangeID
		if def, err = c.UpdateAgentDefinition(ctx, agent, first, []byte(`{"child_steps":[{"id":"a","step_type":"text","text":"two {{input}}","child_steps":[{"id":"b","step_type":"display_result"}]}]}`)); err != nil {
			t.Fatal(err)
		}
		page, err := c.ListAgentVersions(ctx, agent, client.VersionListOptions{Limit: 1})
		if err != nil || len(page.Items) != 1 || page.Total != 2 || !page.HasNext || page.Items[0].ChangeID != def.ChangeID {
			t.Fatalf("ListAgentVersions = %+v, %v", page, err)
		}
		var all []string
		for v, err := range c.AgentVersions(ctx, agent) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, v.ChangeID)
		}
		if len(all) != 2 || all[1] != first {
			t.Fatalf("AgentVersions = %v", all)
		}
		diff, err := c.DiffAgentVersions(ctx, agent, def.ChangeID, "")
		if err != nil || diff.Against == nil || *diff.Against != first || len(diff.Diff.Changed) != 1 || diff.Diff.Changed[0].Fields[0].Field != "text" {
			t.Fatalf("DiffAgentVersions = %+v, %v", diff, err)
		}
		if _, err := c.RestoreAgentVersion(ctx, agent, first, first); !errors.Is(err, client.ErrConflict) {
			t.Fatalf("stale restore: %v", err)
		}
		old, err := c.GetAgentVersion(ctx, agent, first)
		if err != nil || old.Current || len(old.Definition) == 0 {
			t.Fatalf("GetAgentVersion = %+v, %v", old, err)
		}

		r, err := c.StartRun(ctx, agent, client.AgentRunRequest{Input: "x", ChangeID: first})
		if err != nil || r.ChangeID != first {
			t.Fatalf("StartRun on the first version = %+v, %v", r, err)
		}
		done, err := c.PollRun(ctx, r.RunID, 20*time.Millisecond, 20*time.Second)
		if err != nil || done.OutputText() != "one x" {
			t.Fatalf("run on the first version = %+v, %v", done, err)
		}
		input := "by hand"
		re, err := c.RerunRun(ctx, r.RunID, client.RerunRequest{FromStep: "b", Input: &input})
		if err != nil || re.RerunOf != r.RunID || re.ChangeID != first {
			t.Fatalf("RerunRun = %+v, %v", re, err)
		}
		if _, err := c.PollRun(ctx, re.RunID, 20*time.Millisecond, 20*time.Second); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetRun(ctx, re.RunID, true)
		if err != nil || got.OutputText() != "by hand" || len(got.Steps) != 2 || !got.Steps[0].Reused || got.Steps[1].Reused {
			t.Fatalf("rerun = %+v, %v", got, err)
		}
		orig, err := c.GetRun(ctx, r.RunID, false)
		if err != nil || len(orig.Reruns) != 1 || orig.Reruns[0] != re.RunID {
			t.Fatalf("original's reruns = %+v, %v", orig, err)
		}
	})
}
