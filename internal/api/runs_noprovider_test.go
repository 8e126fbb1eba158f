package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestRunStepWithoutProviderSaysSo: a prompt_call whose model nothing
// serves fails the run with "no provider configured for model X", also for
// an account whose balance could not cover the call — it used to report
// that the account ran out of credits.
func TestRunStepWithoutProviderSaysSo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d) // no provider keys: only the offline model is served
		const model = "openai_gpt_4o"
		tenant := s.NewTenant(t, "low balance")
		if _, err := billing.NewCredits(s.DB).Debit(context.Background(), tenant.AccountID, 999.5, "test", "leave half a credit"); err != nil {
			t.Fatal(err)
		}
		for _, who := range []testserver.Tenant{{Key: s.Key, AccountID: s.AccountID}, tenant} {
			agent := makeAgent(t, s, who.AccountID, `{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"`+model+`","prompt_template":"{{input}}"}]}`)
			r := s.Do(t, http.MethodPost, "/agents/"+agent+"/runs", who.Key, map[string]any{"input": "hello"})
			var start runs.RunResponse
			r.JSON(t, &start)
			if r.Status != http.StatusOK {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
			done := waitRun(t, s, who.Key, start.RunID)
			body := string(s.Do(t, http.MethodGet, "/agents/runs/"+start.RunID+"?include_step_outputs=true", who.Key, nil).Body)
			if done.Status != runs.RunFailed || !strings.Contains(body, "no provider configured for model "+model) || strings.Contains(body, "credits during") {
				t.Errorf("account %s: run %s: %s\nwant it failed naming the missing provider", who.AccountID, done.Status, body)
			}
		}
	})
}
