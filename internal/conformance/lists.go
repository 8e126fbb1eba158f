package conformance

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
	"github.com/getkin/kin-openapi/openapi3"
)

// listCounts are the keys a legacy list answer carries beside its array
// of items: counts and page numbers, and the blocklist's auto-block mode.
var listCounts = []string{"total", "page", "limit", "pagination", "auto_block_mode"}

// notLists are GET operations shaped like a list that are not one: ranked
// search answers, whose results are not pages of a collection.
var notLists = map[string]string{
	"GET /search":      "ranked search results, not a page of a collection",
	"GET /docs-search": "ranked search results, not a page of a collection",
}

// ListItem returns the item schema of an operation the reference answers
// with a list: a bare array of objects, or an object around one array of
// objects with only counts beside it ({items, total}, {data, page, limit,
// total}, {configs, total}, {tiers}…). Every such list answers the
// {data, pagination} envelope from version 2026-07-27 on.
func ListItem(ref *Reference, key string) (*openapi3.Schema, bool) {
	op, ok := ref.Ops[key]
	if method, _ := SplitOpKey(key); !ok || method != http.MethodGet || notLists[key] != "" {
		return nil, false
	}
	resp := op.Responses.Status(http.StatusOK)
	if resp == nil || resp.Value == nil {
		return nil, false
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, false
	}
	s := mt.Schema.Value
	if item, ok := arrayOfObjects(s); ok {
		return item, true
	}
	if !s.Type.Is("object") {
		return nil, false
	}
	var item *openapi3.Schema
	for name, p := range s.Properties {
		if p == nil || p.Value == nil {
			return nil, false
		}
		if it, ok := arrayOfObjects(p.Value); ok && item == nil {
			item = it
			continue
		}
		if !slices.Contains(listCounts, name) {
			return nil, false // a resource with lists inside, not a list
		}
	}
	return item, item != nil
}

// arrayOfObjects returns the items of an array of objects (possibly
// nullable, as anyOf [array, null]).
func arrayOfObjects(s *openapi3.Schema) (*openapi3.Schema, bool) {
	for _, alt := range s.AnyOf {
		if alt != nil && alt.Value != nil && alt.Value.Type.Is("array") {
			s = alt.Value
		}
	}
	if !s.Type.Is("array") || s.Items == nil || s.Items.Value == nil {
		return nil, false
	}
	it := s.Items.Value
	return it, it.Type.Is("object") || len(it.Properties) > 0
}

// envelopeOf is Envelope for an item schema at hand.
func envelopeOf(item *openapi3.Schema) SchemaFunc {
	return func(ref *Reference) (*openapi3.Schema, error) {
		page := ref.Doc.Components.Schemas["PaginationResponse"]
		return envelopeObject(openapi3.NewArraySchema().WithItems(item), page.Value), nil
	}
}

// deriveList returns, for a list operation, its base exercise at the
// strict version: the answer must be the envelope, never a legacy shape
// (the base exercise itself checks the legacy shape at the default).
func deriveList(ref *Reference, op ServerOp, b Exercise) []Exercise {
	item, ok := ListItem(ref, op.Key)
	if !ok {
		return nil
	}
	x := b
	x.Name = "derived: the list answers {data, pagination} at " + version.StrictEnvelope
	x.Headers = append(append([]string{}, b.Headers...), version.Header+": "+version.StrictEnvelope)
	x.Schema = envelopeOf(item)
	x.Check = wantEnvelope
	return []Exercise{x}
}

// wantEnvelope checks the envelope's two members are there, whatever the
// schema lets through.
func wantEnvelope(t *testing.T, _ *Env, r testserver.Response) {
	t.Helper()
	var body map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Errorf("not the {data, pagination} envelope: %.300s", r.Body)
		return
	}
	var data []json.RawMessage
	var page map[string]any
	if json.Unmarshal(body["data"], &data) != nil || data == nil || json.Unmarshal(body["pagination"], &page) != nil {
		t.Errorf("not the {data, pagination} envelope: %.300s", r.Body)
		return
	}
	for _, k := range []string{"page", "limit", "total", "pages", "has_next", "has_prev"} {
		if _, ok := page[k]; !ok {
			t.Errorf("pagination lacks %q: %.300s", k, r.Body)
		}
	}
}

// envelopeObject is the {data, pagination} schema. It declares its two
// members and leaves additionalProperties unset: the suite's own check of
// undeclared fields (UndeclaredExcept) closes it, but for the fields our
// document marks as extensions, such as the blocklist's auto_block_mode.
func envelopeObject(data, pagination *openapi3.Schema) *openapi3.Schema {
	s := openapi3.NewObjectSchema().WithProperty("data", data).WithProperty("pagination", pagination)
	s.Required = []string{"data", "pagination"}
	return s
}
