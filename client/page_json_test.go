package client

import (
	"encoding/json"
	"testing"
)

func TestPageMarshalsInSnakeCase(t *testing.T) {
	raw, err := json.Marshal(Page[string]{Items: []string{"a"}, Page: 1, Limit: 20, Total: 1, Pages: 1, HasNext: false})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"items", "page", "limit", "offset", "total", "pages", "has_next", "has_prev", "shape"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, raw)
		}
	}
	if _, ok := m["extra"]; ok {
		t.Errorf("an empty extra is marshalled: %s", raw)
	}
}
