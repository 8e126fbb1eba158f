package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/extract/extracttest"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestRunWithUploads uploads a file, runs an agent on it, and checks the
// run read the file's extracted text; a batch that misses a selector the
// agent names is refused with the requirement.
func TestRunWithUploads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"read","step_type":"text","text":"{{attachments[\"report.pdf\"]}} / {{input}}"}]}`)
		up := func(name string, content []byte) string {
			r := upload(t, s, s.Key, agent, name, "", content)
			var u api.UploadAgentInputResponse
			r.JSON(t, &u)
			if done := waitUpload(t, s, s.Key, agent, u.ID); done.Status != "ready" {
				t.Fatalf("upload %s: %+v", name, done)
			}
			return u.ID
		}
		report := up("report.pdf", extracttest.PDF("Revenue grew nine percent"))
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input_upload_id": report})
		var start runs.RunResponse
		r.JSON(t, &start)
		if r.Status != http.StatusOK {
			t.Fatalf("start: %d %s", r.Status, r.Body)
		}
		done := waitRun(t, s, s.Key, start.RunID)
		if done.Status != "completed" || done.Output == nil || !strings.HasPrefix(*done.Output, "Revenue grew nine percent / ## report.pdf") {
			t.Fatalf("run over the upload: %s %v", done.Status, done.Output)
		}
		other := up("notes.md", []byte("# Notes"))
		r = s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input_upload_ids": []string{other}})
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "report.pdf") {
			t.Errorf("unmet selector: %d %s", r.Status, r.Body)
		}
		// Replaying the first run reuses its upload.
		r = s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"replay_of_run_id": start.RunID})
		r.JSON(t, &start)
		if done := waitRun(t, s, s.Key, start.RunID); done.Status != "completed" || !strings.HasPrefix(*done.Output, "Revenue") {
			t.Errorf("replay: %s %v", done.Status, done.Output)
		}
	})
}
