package agents

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestUploadsRepo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, acct, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "u"})
		_, other, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "o"})
		agentID := store.NewID()
		q := uploadRepo{db}
		mk := func(expires time.Time) Upload {
			u, err := q.create(ctx, Upload{ID: store.NewID(), AccountID: acct.ID, AgentID: agentID, Filename: "a.txt",
				ContentType: "text/plain", FileSize: 3, SHA256: "x", BlobKey: "k", ExpiresAt: expires})
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		live := mk(store.Now().Add(time.Hour))
		expired := mk(store.Now().Add(-time.Second))

		got, err := q.get(ctx, acct.ID, agentID, live.ID)
		if err != nil || got.Status != UploadProcessing || got.Filename != "a.txt" || got.ProcessedAt != nil {
			t.Fatalf("upload %+v %v", got, err)
		}
		for _, tc := range []struct{ account, agent, id string }{
			{other.ID, agentID, live.ID}, {acct.ID, store.NewID(), live.ID}, {acct.ID, agentID, expired.ID},
		} {
			if _, err := q.get(ctx, tc.account, tc.agent, tc.id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%+v: %v", tc, err)
			}
		}
		if _, err := q.get(ctx, acct.ID, "", live.ID); err != nil {
			t.Fatalf("any agent: %v", err)
		}
		if err := q.finish(ctx, acct.ID, live.ID, uploadResult{Status: UploadReady, TextKey: "t", TextChars: 3, Extractor: "plain"}); err != nil {
			t.Fatal(err)
		}
		if err := q.finish(ctx, other.ID, live.ID, uploadResult{Status: UploadFailed}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("finish across accounts: %v", err)
		}
		got, _ = q.get(ctx, acct.ID, agentID, live.ID)
		if got.Status != UploadReady || got.TextKey != "t" || got.TextChars != 3 || got.Extractor != "plain" || got.ProcessedAt == nil {
			t.Fatalf("finished %+v", got)
		}
		exp, err := q.expired(ctx, store.Now(), 10)
		if err != nil || len(exp) != 1 || exp[0].ID != expired.ID {
			t.Fatalf("expired %+v %v", exp, err)
		}
		if err := q.remove(ctx, acct.ID, expired.ID); err != nil {
			t.Fatal(err)
		}
		if exp, _ := q.expired(ctx, store.Now().Add(2*time.Hour), 10); len(exp) != 1 || exp[0].ID != live.ID {
			t.Fatalf("expired later %+v", exp)
		}
	})
}
