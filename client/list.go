package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"sort"
	"strconv"
)

// Paging is how a list endpoint is paged.
type Paging int

const (
	// PageNumbers sends page (1-based) and limit.
	PageNumbers Paging = iota
	// Offsets sends offset and limit.
	Offsets
	// OnePage sends limit only: the endpoint has no further pages.
	OnePage
)

// ListQuery describes one list request.
type ListQuery struct {
	Params url.Values // filters and sorting, as the endpoint declares them
	Paging Paging
	Page   int // first page for PageNumbers (1 when zero)
	Offset int // first offset for Offsets
	// Limit is the page size; zero leaves it to the server. Area methods
	// set it within the endpoint's maximum, which differs per endpoint.
	Limit int
	// Key names the array in a legacy per-resource shape
	// ({"knowledge_bases": […], "total": …}); empty finds it: "data", or
	// else the response's only array field.
	Key string
}

// Shape names the response shape a page was read from.
type Shape string

const (
	ShapeArray    Shape = "array"    // a bare JSON array
	ShapeEnvelope Shape = "envelope" // {data, pagination}: Service-Version 2026-07-27 and later
	ShapeKeyed    Shape = "keyed"    // {data|<resource>, total, page?, limit?}: the legacy objects
)

// Page is one page of a list, whichever shape the server answered.
// It marshals to JSON in the canonical list's snake_case names, so a
// program can pass a page on whatever shape it was read from.
type Page[T any] struct {
	Items   []T   `json:"items"`
	Page    int   `json:"page"` // 1-based; derived from offset and limit for offset lists
	Limit   int   `json:"limit"`
	Offset  int   `json:"offset"`
	Total   int   `json:"total"` // -1 when the response does not say
	Pages   int   `json:"pages"` // -1 when unknown
	HasNext bool  `json:"has_next"`
	HasPrev bool  `json:"has_prev"`
	Shape   Shape `json:"shape"`
	// Extra holds the response's other top-level fields (for example
	// auto_block_mode beside a list of blocked senders).
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// ListPage fetches one page of a list endpoint. It is a function, not a
// method, because Go methods cannot have type parameters; area files wrap
// it in typed methods.
func ListPage[T any](ctx context.Context, c *Client, path string, q ListQuery, opts ...CallOption) (*Page[T], error) {
	params := url.Values{}
	for k, vs := range q.Params {
		params[k] = append([]string(nil), vs...)
	}
	page, offset := max(q.Page, 1), max(q.Offset, 0)
	switch q.Paging {
	case PageNumbers:
		params.Set("page", strconv.Itoa(page))
	case Offsets:
		params.Set("offset", strconv.Itoa(offset))
	}
	if q.Limit > 0 {
		params.Set("limit", strconv.Itoa(q.Limit))
	}
	req, co, err := c.newRequest(ctx, http.MethodGet, path, nil, "", append([]CallOption{WithQuery(params)}, opts...))
	if err != nil {
		return nil, err
	}
	resp, err := c.send(req, co)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	p, err := decodePage[T](body, q.Key)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	p.fill(q.Paging, page, offset, q.Limit)
	return p, nil
}

// ListAll iterates over every item of every page, fetching pages as the
// loop needs them. An error ends the iteration after being yielded.
func ListAll[T any](ctx context.Context, c *Client, path string, q ListQuery, opts ...CallOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		prev := -1
		for {
			p, err := ListPage[T](ctx, c, path, q, opts...)
			if err == nil && len(p.Items) > 0 && position(p, q.Paging) <= prev {
				// A page that does not move forward would repeat forever.
				err = fmt.Errorf("list %s: the server answered the same page again; stopping", path)
			}
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			prev = position(p, q.Paging)
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if !p.HasNext || q.Paging == OnePage {
				return
			}
			if q.Paging == Offsets {
				q.Offset = p.Offset + len(p.Items)
			} else {
				q.Page = p.Page + 1
			}
		}
	}
}

// position is where a page sits in its list, in the list's own unit.
func position[T any](p *Page[T], paging Paging) int {
	if paging == Offsets {
		return p.Offset
	}
	return p.Page
}

// decodePage reads any of the list shapes.
func decodePage[T any](body []byte, key string) (*Page[T], error) {
	p := &Page[T]{Total: -1, Pages: -1, Page: -1, Limit: -1}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		p.Shape = ShapeArray
		return p, json.Unmarshal(trimmed, &p.Items)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, fmt.Errorf("a list response must be an array or an object: %w", err)
	}
	if raw, ok := obj["pagination"]; ok && isJSONObject(raw) {
		var pg struct {
			Page    int  `json:"page"`
			Limit   int  `json:"limit"`
			Total   int  `json:"total"`
			Pages   int  `json:"pages"`
			HasNext bool `json:"has_next"`
			HasPrev bool `json:"has_prev"`
		}
		if err := json.Unmarshal(raw, &pg); err != nil {
			return nil, fmt.Errorf("pagination: %w", err)
		}
		if err := unmarshalItems(obj["data"], &p.Items); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		p.Shape = ShapeEnvelope
		p.Page, p.Limit, p.Total, p.Pages, p.HasNext, p.HasPrev = pg.Page, pg.Limit, pg.Total, pg.Pages, pg.HasNext, pg.HasPrev
		p.Extra = without(obj, "data", "pagination")
		return p, nil
	}
	if key == "" {
		key = findArrayKey(obj)
	}
	if key == "" {
		return nil, fmt.Errorf("no list in the response (fields %v)", keysOf(obj))
	}
	if err := unmarshalItems(obj[key], &p.Items); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	p.Shape = ShapeKeyed
	intField(obj, "total", &p.Total)
	intField(obj, "page", &p.Page)
	intField(obj, "limit", &p.Limit)
	intField(obj, "offset", &p.Offset)
	p.Extra = without(obj, key, "total", "page", "limit", "offset")
	return p, nil
}

// fill completes what the shape left unsaid from what was asked, and
// decides whether another page exists.
func (p *Page[T]) fill(paging Paging, page, offset, limit int) {
	if p.Shape == ShapeEnvelope {
		// The envelope counts in pages; an offset list continues from
		// where it was asked to start, which need not be a page boundary.
		p.Offset = offset
		if paging != Offsets && p.Limit > 0 {
			p.Offset = (p.Page - 1) * p.Limit
		}
		return
	}
	if p.Limit < 0 {
		p.Limit = limit
	}
	switch paging {
	case Offsets:
		p.Offset = offset
		if p.Limit > 0 {
			p.Page = offset/p.Limit + 1
		}
	default:
		if p.Page < 0 {
			p.Page = page
		}
		if p.Limit > 0 {
			p.Offset = (p.Page - 1) * p.Limit
		}
	}
	if p.Page < 1 {
		p.Page = 1
	}
	p.HasPrev = p.Offset > 0 || p.Page > 1
	if p.Total >= 0 && p.Limit > 0 {
		p.Pages = (p.Total + p.Limit - 1) / p.Limit
	}
	switch {
	case paging == OnePage || len(p.Items) == 0:
		p.HasNext = false
	case p.Total >= 0:
		p.HasNext = p.Offset+len(p.Items) < p.Total
	default:
		// No total: a full page may have a successor; an unknown limit
		// means asking until a page comes back empty.
		p.HasNext = p.Limit <= 0 || len(p.Items) >= p.Limit
	}
}

func unmarshalItems[T any](raw json.RawMessage, items *[]T) error {
	if len(raw) == 0 || string(raw) == "null" {
		*items = []T{}
		return nil
	}
	return json.Unmarshal(raw, items)
}

func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// findArrayKey picks "data" when it is an array, else the one array field.
func findArrayKey(obj map[string]json.RawMessage) string {
	if raw, ok := obj["data"]; ok && isJSONArray(raw) {
		return "data"
	}
	found := ""
	for k, raw := range obj {
		if isJSONArray(raw) {
			if found != "" {
				return "" // ambiguous: the area method must name the key
			}
			found = k
		}
	}
	return found
}

func isJSONArray(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

func intField(obj map[string]json.RawMessage, name string, dst *int) {
	if raw, ok := obj[name]; ok {
		var n int
		if json.Unmarshal(raw, &n) == nil {
			*dst = n
		}
	}
}

func without(obj map[string]json.RawMessage, drop ...string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
outer:
	for k, v := range obj {
		for _, d := range drop {
			if k == d {
				continue outer
			}
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func keysOf(obj map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(obj))
	for k := range obj {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
