package metafilter

import (
	"encoding/json"
	"testing"
)

func TestMatch(t *testing.T) {
	meta := map[string]any{"lang": "en", "tags": []any{"a", "b"}, "year": 2024.0, "author": "Ada"}
	cases := []struct {
		filter string
		want   bool
	}{
		{`{}`, true},
		{`{"lang": "en"}`, true},
		{`{"lang": "fr"}`, false},
		{`{"tags": "a"}`, true},
		{`{"tags": ["a", "b"]}`, true},
		{`{"tags": ["a", "c"]}`, false},
		{`{"year": {"$gte": 2020, "$lt": 2025}}`, true},
		{`{"year": {"$gt": 2024}}`, false},
		{`{"lang": {"$in": ["fr", "en"]}}`, true},
		{`{"lang": {"$nin": ["en"]}}`, false},
		{`{"missing": {"$exists": false}}`, true},
		{`{"author": {"$ne": "Bob"}}`, true},
		{`{"$or": [{"lang": "fr"}, {"author": "Ada"}]}`, true},
		{`{"$and": [{"lang": "en"}, {"author": "Bob"}]}`, false},
	}
	for _, c := range cases {
		f, err := ParseJSON([]byte(c.filter))
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if got := f.Match(meta); got != c.want {
			t.Errorf("%s: %v, want %v", c.filter, got, c.want)
		}
	}
	for _, bad := range []string{`[1]`, `{"$foo": 1}`, `{"a": {"$in": 1}}`, `{"a": {"$bogus": 1}}`, `{"$or": []}`, `{"a": {"$gt": true}}`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"lang": "en", "year": {"$gte": 2020}}`), []byte(`{"lang": "en", "year": 2021}`))
	f.Add([]byte(`{"$or": [{"a": [1, 2]}, {"b": {"$exists": true}}]}`), []byte(`{"a": [1, 2, 3]}`))
	f.Fuzz(func(t *testing.T, filter, meta []byte) {
		fl, err := ParseJSON(filter)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(meta, &m) != nil {
			m = map[string]any{}
		}
		_ = fl.Match(m)
	})
}
