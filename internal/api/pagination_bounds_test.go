package api_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/danielgtaylor/huma/v2"
)

// TestPageAndOffsetBounds: a page or offset past the documented bound is a
// 422 naming the parameter (page 9223372036854775807 used to wrap around
// to the first page); the last page allowed is simply empty.
func TestPageAndOffsetBounds(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := createAgent(t, s, s.Key, map[string]any{"name": "paged"})
		createAgent(t, s, s.Key, map[string]any{"name": "paged too"})
		huge := "9223372036854775807"
		tooFar := strconv.Itoa(api.MaxPage + 1)
		for _, c := range []struct{ path, param string }{
			{"/agents?page=" + huge, "page"},
			{"/agents?page=" + tooFar, "page"},
			{"/agents?page=" + huge + "&limit=100", "page"},
			{"/agents/" + agent.ID + "/runs?page=" + huge, "page"},
			{"/models/alerts?offset=" + huge, "offset"},
			{"/models/alerts?offset=" + strconv.Itoa(api.MaxOffset+1), "offset"},
			{"/models/playground/experiments?offset=" + huge, "offset"},
		} {
			r := s.Do(t, http.MethodGet, c.path, s.Key, nil)
			wantLoc(t, r, "", "query", c.param)
		}

		var last api.AgentListResponse
		r := s.Do(t, http.MethodGet, "/agents?limit=100&page="+strconv.Itoa(api.MaxPage), s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &last)
		if len(last.Data) != 0 || last.Pagination.Page != api.MaxPage || last.Pagination.Total != 2 || last.Pagination.HasNext {
			t.Errorf("page %d: %s", api.MaxPage, r.Body)
		}
		r = s.Do(t, http.MethodGet, "/models/alerts?offset="+strconv.Itoa(api.MaxOffset), s.Key, nil)
		wantStatus(t, r, http.StatusOK)
	})
}

// TestEveryPageParameterIsBounded guards new list operations: every page
// and offset query parameter declares the shared maximum.
func TestEveryPageParameterIsBounded(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, store.SQLite)
	for path, item := range s.S.API.OpenAPI().Paths {
		for method, op := range map[string]*huma.Operation{"GET": item.Get, "POST": item.Post, "PUT": item.Put, "PATCH": item.Patch, "DELETE": item.Delete} {
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				if p.In != "query" || (p.Name != "page" && p.Name != "offset") {
					continue
				}
				want := float64(api.MaxPage)
				if p.Name == "offset" {
					want = float64(api.MaxOffset)
				}
				if p.Schema == nil || p.Schema.Maximum == nil || *p.Schema.Maximum > want {
					t.Errorf("%s %s: query parameter %s has no maximum of at most %v", method, path, p.Name, want)
				}
			}
		}
	}
}
