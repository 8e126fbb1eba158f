package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestModelUsageExtension(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		var u api.ModelUsageResponse
		r := s.Do(t, "GET", "/models/gpt-4o/usage", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &u)
		if u.ModelID != "openai_gpt_4o" || u.Calls != 0 || u.LastUsedAt != nil {
			t.Fatalf("never used: %s", r.Body)
		}
		before := time.Now().UTC().Add(-time.Second)
		for range 2 {
			if _, _, err := billing.NewCredits(s.DB).RecordUsage(context.Background(), billing.Usage{AccountID: s.AccountID, Purpose: "prompt_call", Model: "openai_gpt_4o", Credits: 1}); err != nil {
				t.Fatal(err)
			}
		}
		r = s.Do(t, "GET", "/models/openai_gpt_4o/usage", s.Key, nil)
		r.JSON(t, &u)
		if u.Calls != 2 || u.LastUsedAt == nil || u.LastUsedAt.Before(before) || u.LastUsedAt.After(time.Now().Add(time.Second)) {
			t.Errorf("used: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "GET", "/models/nope/usage", s.Key, nil), http.StatusNotFound)
	})
}
