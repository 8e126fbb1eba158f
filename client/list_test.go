package client_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/client"
)

type item struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// listServer serves 7 items in every list shape the API has used. The
// /versioned path switches shape with Service-Version, as the API does.
func listServer(t *testing.T, requests *atomic.Int32) *httptest.Server {
	all := make([]item, 7)
	for i := range all {
		all[i] = item{ID: i + 1, Name: "item-" + strconv.Itoa(i+1)}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit == 0 {
			limit = 3 // the server's default page size
		}
		page, _ := strconv.Atoi(q.Get("page"))
		page = max(page, 1)
		offset := (page - 1) * limit
		if q.Has("offset") {
			offset, _ = strconv.Atoi(q.Get("offset"))
			page = offset/limit + 1 // as the API's envelope reports offset lists
		}
		slice := all[min(offset, len(all)):min(offset+limit, len(all))]
		total := len(all)
		pages := (total + limit - 1) / limit
		envelope := map[string]any{"data": slice, "pagination": map[string]any{"page": page, "limit": limit,
			"total": total, "pages": pages, "has_next": page < pages, "has_prev": page > 1}}
		var body any
		switch r.URL.Path {
		case "/array", "/array-default-limit", "/one-page":
			body = slice
		case "/legacy-page":
			body = map[string]any{"data": slice, "total": total, "page": page, "limit": limit}
		case "/keyed":
			body = map[string]any{"knowledge_bases": slice, "total": total, "page": page, "limit": limit}
		case "/offset":
			body = map[string]any{"auto_block_mode": "strict", "items": slice, "total": total}
		case "/envelope":
			body = envelope
		case "/stuck": // a broken server that never leaves page 1
			body = map[string]any{"data": all[:3], "pagination": map[string]any{"page": 1, "limit": 3, "total": 7, "pages": 3, "has_next": true}}
		case "/versioned":
			if r.Header.Get("Service-Version") >= client.Version20260727 {
				body = envelope
			} else {
				body = map[string]any{"configs": slice, "total": total}
			}
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestListShapesAndIterators(t *testing.T) {
	isolate(t)
	var requests atomic.Int32
	srv := listServer(t, &requests)
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"))
	latest, _ := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"), client.WithAPIVersion(client.LatestVersion))

	cases := []struct {
		name     string
		c        *client.Client
		path     string
		q        client.ListQuery
		shape    client.Shape
		requests int32
	}{
		{"bare array", c, "/array", client.ListQuery{Limit: 3}, client.ShapeArray, 3},
		{"bare array, server's page size", c, "/array-default-limit", client.ListQuery{}, client.ShapeArray, 4},
		{"legacy data/total/page/limit", c, "/legacy-page", client.ListQuery{Limit: 3}, client.ShapeKeyed, 3},
		{"per-resource key", c, "/keyed", client.ListQuery{Limit: 2, Key: "knowledge_bases"}, client.ShapeKeyed, 4},
		{"offset/limit", c, "/offset", client.ListQuery{Paging: client.Offsets, Limit: 4}, client.ShapeKeyed, 2},
		{"envelope", c, "/envelope", client.ListQuery{Limit: 5}, client.ShapeEnvelope, 2},
		{"versioned, legacy", c, "/versioned", client.ListQuery{Paging: client.Offsets, Limit: 3}, client.ShapeKeyed, 3},
		{"versioned, envelope", latest, "/versioned", client.ListQuery{Paging: client.Offsets, Limit: 3}, client.ShapeEnvelope, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first, err := client.ListPage[item](ctx, tc.c, tc.path, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if first.Shape != tc.shape || first.Items[0].ID != 1 || !first.HasNext || first.HasPrev {
				t.Fatalf("first page = %+v", first)
			}
			requests.Store(0)
			var ids []int
			for it, err := range client.ListAll[item](ctx, tc.c, tc.path, tc.q) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, it.ID)
			}
			if len(ids) != 7 {
				t.Fatalf("iterated %v", ids)
			}
			for i, id := range ids {
				if id != i+1 {
					t.Fatalf("iterated %v: gap or duplicate", ids)
				}
			}
			if requests.Load() != tc.requests {
				t.Fatalf("%d requests, want %d", requests.Load(), tc.requests)
			}
		})
	}

	// Totals and extras of the legacy object shapes are kept.
	p, err := client.ListPage[item](ctx, c, "/offset", client.ListQuery{Paging: client.Offsets, Offset: 4, Limit: 4})
	if err != nil || p.Total != 7 || p.HasNext || !p.HasPrev || len(p.Items) != 3 || string(p.Extra["auto_block_mode"]) != `"strict"` {
		t.Fatalf("offset page = %+v, %v", p, err)
	}
	p, err = client.ListPage[item](ctx, latest, "/envelope", client.ListQuery{Page: 2, Limit: 3})
	if err != nil || p.Page != 2 || p.Pages != 3 || !p.HasPrev || !p.HasNext || p.Items[0].ID != 4 {
		t.Fatalf("envelope page 2 = %+v, %v", p, err)
	}

	// Breaking out of the loop stops fetching.
	requests.Store(0)
	for it := range client.ListAll[item](ctx, c, "/array", client.ListQuery{Limit: 2}) {
		if it.ID == 2 {
			break
		}
	}
	if requests.Load() != 1 {
		t.Fatalf("an abandoned iteration fetched %d pages", requests.Load())
	}

	// One-page endpoints are asked once.
	requests.Store(0)
	n := 0
	for range client.ListAll[item](ctx, c, "/one-page", client.ListQuery{Paging: client.OnePage, Limit: 3}) {
		n++
	}
	if n != 3 || requests.Load() != 1 {
		t.Fatalf("one page: %d items in %d requests", n, requests.Load())
	}

	// A server that never advances ends the iteration with an error.
	requests.Store(0)
	var stuckErr error
	for _, err := range client.ListAll[item](ctx, c, "/stuck", client.ListQuery{Limit: 3}) {
		stuckErr = err
	}
	if stuckErr == nil || requests.Load() != 2 {
		t.Fatalf("stuck server: %v after %d requests", stuckErr, requests.Load())
	}

	// A failing page ends the iteration with its error.
	var gotErr error
	for _, err := range client.ListAll[item](ctx, c, "/missing", client.ListQuery{Params: url.Values{"status": {"x"}}}) {
		gotErr = err
	}
	if gotErr == nil {
		t.Fatal("a 404 page did not surface")
	}
}

func TestListDecodeErrors(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ambiguous":
			_, _ = w.Write([]byte(`{"a":[1],"b":[2]}`))
		case "/scalar":
			_, _ = w.Write([]byte(`42`))
		}
	}))
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"))
	if _, err := client.ListPage[int](ctx, c, "/ambiguous", client.ListQuery{}); err == nil {
		t.Fatal("two arrays and no key: must ask for the key")
	}
	if p, err := client.ListPage[int](ctx, c, "/ambiguous", client.ListQuery{Key: "b"}); err != nil || p.Items[0] != 2 {
		t.Fatalf("named key: %v", err)
	}
	if _, err := client.ListPage[int](ctx, c, "/scalar", client.ListQuery{}); err == nil {
		t.Fatal("a scalar is not a list")
	}
}
