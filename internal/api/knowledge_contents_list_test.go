package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// GET /sources/{id}/contents (an extension): newest first, paged, with
// each content's status and a failure's reason; the status filter, pending
// included; a bad filter is a 422 and an unknown source a 404.
func TestListSourceContents(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		var src struct{ ID string }
		s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Notes", "source_type": "custom_index"}).JSON(t, &src)
		var ids []string
		for i := range 3 {
			var up struct {
				ID string `json:"source_connection_content_version_id"`
			}
			s.Do(t, "POST", "/sources/"+src.ID, s.Key, map[string]any{"text": fmt.Sprintf("Note %d about tides.", i), "title": fmt.Sprintf("Note %d", i)}).JSON(t, &up)
			ids = append(ids, up.ID)
		}
		r := kupload(t, s, "/sources/"+src.ID+"/upload", s.Key, "broken.pdf", "application/pdf", []byte("%PDF-1.4 not really"), nil, nil)
		var bad struct {
			ID string `json:"source_connection_content_version_id"`
		}
		r.JSON(t, &bad)
		for _, id := range ids {
			waitIndexed(t, s, s.Key, id, "")
		}
		type item struct {
			ID            string
			Title         *string
			Filename      string
			ContentStatus string  `json:"content_status"`
			Error         *string `json:"error"`
			Version       int
		}
		type list struct {
			Data       []item
			Pagination struct {
				Page, Limit, Total, Pages int
				HasNext                   bool `json:"has_next"`
			}
		}
		var failed list
		for range 200 {
			s.Do(t, "GET", "/sources/"+src.ID+"/contents?status=failed", s.Key, nil).JSON(t, &failed)
			if len(failed.Data) == 1 {
				break
			}
			time.Sleep(30 * time.Millisecond)
		}
		if len(failed.Data) != 1 || failed.Data[0].ID != bad.ID || failed.Data[0].Error == nil || *failed.Data[0].Error == "" || failed.Data[0].Filename != "broken.pdf" {
			t.Fatalf("failed filter: %+v", failed)
		}
		var all list
		s.Do(t, "GET", "/sources/"+src.ID+"/contents?limit=2", s.Key, nil).JSON(t, &all)
		if all.Pagination.Total != 4 || all.Pagination.Pages != 2 || !all.Pagination.HasNext || len(all.Data) != 2 || all.Data[0].ID != bad.ID || all.Data[1].ID != ids[2] {
			t.Fatalf("first page: %+v", all)
		}
		s.Do(t, "GET", "/sources/"+src.ID+"/contents?limit=2&page=2", s.Key, nil).JSON(t, &all)
		if len(all.Data) != 2 || all.Data[0].ID != ids[1] || all.Data[1].ID != ids[0] || *all.Data[1].Title != "Note 0" || all.Data[1].Version != 1 {
			t.Fatalf("second page: %+v", all)
		}
		var pending list
		s.Do(t, "GET", "/sources/"+src.ID+"/contents?status=pending", s.Key, nil).JSON(t, &pending)
		if pending.Pagination.Total != 0 || len(pending.Data) != 0 {
			t.Fatalf("pending with every content done: %+v", pending)
		}
		if r := s.Do(t, "GET", "/sources/"+src.ID+"/contents?status=lost", s.Key, nil); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad status filter: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/sources/"+src.ID+"/contents?limit=101", s.Key, nil); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("limit 101: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/sources/01a22094-bc68-71c3-a8d8-2e7ffaf16094/contents", s.Key, nil); r.Status != http.StatusNotFound {
			t.Fatalf("unknown source: %d %s", r.Status, r.Body)
		}
	})
}
