package admin_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/solutions"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Flagged assistant feedback reaches operators through
// `agentry admin assistant-feedback`; unflagged feedback does not.
func TestAssistantFeedbackForOperators(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		url := storetest.URL(t, d)
		var u map[string]string
		runJSON(t, url, &u, "users", "create", "--email", "fb@example.com", "--name", "Fb")
		db, err := store.Open(context.Background(), url, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		svc := solutions.New(db, nil, nil, "")
		for _, c := range []string{"It leaked a password", "Too slow"} {
			comment := c
			if _, err := svc.Feedback(context.Background(), solutions.FeedbackInput{AccountID: u["personal_account_id"], Feature: "solution",
				Rating: solutions.ThumbsDown, Comment: &comment}); err != nil {
				t.Fatal(err)
			}
		}
		var list []map[string]any
		runJSON(t, url, &list, "assistant-feedback")
		if len(list) != 1 || list[0]["comment"] != "It leaked a password" || list[0]["account_id"] != u["personal_account_id"] {
			t.Fatalf("flagged: %v", list)
		}
	})
}
