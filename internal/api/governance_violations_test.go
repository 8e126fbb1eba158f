package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// GET /governance/violations lists what policies blocked and flagged,
// newest first, with where and why, and never the matched text.
func TestListGovernanceViolations(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		block := createPolicy(t, s, s.Key, map[string]any{"name": "No personal data", "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "pii", "kinds": []string{"email"}}}}})
		createPolicy(t, s, s.Key, map[string]any{"name": "Watch the falcon", "config": map[string]any{
			"rules": []any{map[string]any{"type": "blocked_terms", "terms": []string{"Project Falcon"}}}}})
		blocked := startRun(t, s, s.Key, agent, "please mail jane.doe@example.com the report")
		waitRun(t, s, s.Key, blocked)
		flagged := startRun(t, s, s.Key, agent, "news on project falcon")
		waitRun(t, s, s.Key, flagged)

		var page struct {
			Data       []api.GovernanceViolationResponse
			Pagination struct{ Total int }
		}
		r := s.Do(t, "GET", "/governance/violations", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &page)
		if page.Pagination.Total < 2 || len(page.Data) != page.Pagination.Total {
			t.Fatalf("violations: %s", r.Body)
		}
		if strings.Contains(string(r.Body), "jane.doe") {
			t.Fatalf("the list shows matched text: %s", r.Body)
		}
		r = s.Do(t, "GET", "/governance/violations?action=block", s.Key, nil)
		r.JSON(t, &page)
		if len(page.Data) != 1 {
			t.Fatalf("blocks: %s", r.Body)
		}
		v := page.Data[0]
		if v.RunID == nil || *v.RunID != blocked || v.Stage != "input" || v.StepID != nil || v.Rule != "pii:email" ||
			v.PolicyID == nil || *v.PolicyID != block.ID || v.PolicyName == nil || *v.PolicyName != "No personal data" ||
			!strings.Contains(v.Reason, "e-mail address") {
			t.Fatalf("block: %+v", v)
		}
		r = s.Do(t, "GET", "/governance/violations?run_id="+flagged, s.Key, nil)
		r.JSON(t, &page)
		// Its input, then each step's output: the step names where it matched.
		if len(page.Data) != 3 || page.Data[2].StepID != nil || page.Data[2].Stage != "input" || page.Data[0].StepID == nil ||
			page.Data[0].Stage != "output" {
			t.Fatalf("the flagged run's: %s", r.Body)
		}
		for _, v := range page.Data {
			if v.Action != "flag" || v.Rule != "blocked_terms" || *v.RunID != flagged {
				t.Fatalf("the flagged run's: %+v", v)
			}
		}
		// Bad input is a 422, a member may read.
		wantStatus(t, s.Do(t, "GET", "/governance/violations?action=allow", s.Key, nil), http.StatusUnprocessableEntity)
		member := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		wantStatus(t, s.Do(t, "GET", "/governance/violations", member, nil), http.StatusOK)
	})
}
