package knowledge

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestSourceContentsByStatus checks the list of a source's contents
// filtered by status (totals, order, the "pending" filter) and that the
// filters are served by the index (source_id, status, created_at).
func TestSourceContentsByStatus(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := accountFor(t, db), accountFor(t, db)
		r := repo{db}
		src, err := repoOn(db).CreateSource(ctx, Source{AccountID: acct, Name: "docs", SourceType: "custom_index", ChunkSize: 1000,
			ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 8, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		// 600 contents, as a source mostly indexed: one in 20 failed, one
		// in 20 on its way (queued, extracting, embedding in turn).
		onTheWay := []string{ContentQueued, ContentExtracting, ContentEmbedding}
		var ids []string
		byStatus := map[string][]int{} // the indexes of each status's contents, oldest first
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			for i := range 600 {
				c, err := repoOn(db).CreateContent(ctx, tx, Content{AccountID: acct, SourceID: src.ID, ContentType: "text/plain",
					Filename: fmt.Sprintf("%03d.txt", i), ItemKey: fmt.Sprint(i), BlobKey: "k", SHA256: fmt.Sprint(i)})
				if err != nil {
					return err
				}
				status := ContentIndexed
				switch i % 20 {
				case 0:
					status = onTheWay[i/20%3]
				case 1:
					status = ContentFailed
				}
				if _, err := tx.ExecContext(ctx, `UPDATE contents SET status = $1, created_at = $2 WHERE id = $3`,
					status, c.CreatedAt.Add(-time.Duration(600-i)*time.Second), c.ID); err != nil {
					return err
				}
				ids = append(ids, c.ID)
				byStatus[status] = append(byStatus[status], i)
				if status != ContentIndexed && status != ContentFailed {
					byStatus[ContentsPending] = append(byStatus[ContentsPending], i)
				}
				byStatus[""] = append(byStatus[""], i)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, status := range []string{"", ContentIndexed, ContentFailed, ContentsPending, ContentQueued,
			ContentEmbedding, ContentChunking} {
			want := byStatus[status]
			tc := struct {
				status       string
				total, first int
			}{status, len(want), -1}
			if len(want) > 0 {
				tc.first = want[len(want)-1]
			}
			page, total, err := r.sourceContents(ctx, acct, src.ID, tc.status, 0, 10)
			if err != nil || total != tc.total || len(page) != min(10, tc.total) {
				t.Fatalf("%q: %d of %d, %v", tc.status, len(page), total, err)
			}
			if tc.total > 0 && page[0].ID != ids[tc.first] {
				t.Errorf("%q: the newest is %s, want %s", tc.status, page[0].ID, ids[tc.first])
			}
			for i := 1; i < len(page); i++ {
				if page[i].CreatedAt.After(page[i-1].CreatedAt) {
					t.Errorf("%q: not newest first at %d", tc.status, i)
				}
			}
		}
		if deep, total, _ := r.sourceContents(ctx, acct, src.ID, ContentIndexed, 530, 20); total != 540 || len(deep) != 10 ||
			deep[9].ID != ids[byStatus[ContentIndexed][0]] {
			t.Errorf("the last page of indexed: %d of %d", len(deep), total)
		}
		if _, _, err := r.sourceContents(ctx, other, src.ID, "", 0, 10); err != store.ErrNotFound {
			t.Errorf("another account: %v", err)
		}

		if d == store.Postgres { // as its autovacuum would; SQLite keeps no statistics here
			if _, err := db.W.ExecContext(ctx, `ANALYZE contents`); err != nil {
				t.Fatal(err)
			}
		}
		for _, status := range []string{ContentIndexed, ContentsPending} {
			count, page, args := sourceContentsQueries(d, src.ID, status)
			countPlan, pagePlan := storetest.QueryPlan(t, db, count, args...), storetest.QueryPlan(t, db, page, append(args, 50, 0)...)
			t.Logf("%s: the count's plan:\n%s\nthe page's plan:\n%s", status, countPlan, pagePlan)
			// (PostgreSQL may read "indexed", most of the source, through
			// the source's index: it knows how many there are.)
			if (d == store.SQLite || status == ContentsPending) &&
				(!strings.Contains(countPlan, "contents_source_status") || !strings.Contains(pagePlan, "contents_source_status")) {
				t.Errorf("%s: the index is not used", status)
			}
			if d == store.SQLite && !strings.Contains(countPlan, "COVERING INDEX contents_source_status") {
				t.Errorf("%s: the count reads rows", status)
			}
		}
	})
}

// accountFor makes an account of its own user.
func accountFor(t *testing.T, db *store.DB) string {
	t.Helper()
	_, a, err := directory.CreateUser(context.Background(), db, directory.NewUser{Name: "u", OpeningCredits: 5})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}
