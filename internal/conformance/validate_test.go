package conformance

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/version"
)

// TestCheckResponseCatches proves the checker fails what it should: each
// answer below departs from the contract in one way, and must be reported.
func TestCheckResponseCatches(t *testing.T) {
	ref := reference(t)
	const acct = "0190a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
	jsonHdr := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r1"}, version.Header: {version.Default}}
		for _, kv := range extra {
			k, v, _ := strings.Cut(kv, ":")
			h.Set(k, strings.TrimSpace(v))
		}
		return h
	}
	me := func(status int, body string, h http.Header) *Exchange {
		return &Exchange{Op: "GET /me", Method: "GET", Target: "/me", ReqHeader: http.Header{},
			Status: status, Header: h, Body: []byte(body), Authenticated: true}
	}
	cases := []struct {
		name string
		x    *Exchange
		want string // a fragment of the expected problem
	}{
		{"missing required field", me(200, `{"account_id":"`+acct+`"}`, jsonHdr()), "off-schema"},
		{"not a uuid", me(200, `{"account_id":"acct-1","organizations":[]}`, jsonHdr()), "off-schema"},
		{"wrong type", me(200, `{"account_id":"`+acct+`","organizations":{}}`, jsonHdr()), "off-schema"},
		{"undeclared field", me(200, `{"account_id":"`+acct+`","organizations":[],"user_id":"u"}`, jsonHdr()), "undeclared field $.user_id"},
		{"undeclared nested field", me(200, `{"account_id":"`+acct+`","organizations":[{"id":"`+acct+`","name":"o","account_id":"`+acct+`","role":"owner"}]}`, jsonHdr()), "undeclared field $.organizations[0].role"},
		{"undeclared success status", me(201, `{"account_id":"`+acct+`","organizations":[]}`, jsonHdr()), "not declared"},
		{"wrong content type", me(200, `{"account_id":"`+acct+`","organizations":[]}`, jsonHdr("Content-Type: text/plain")), "off-schema"},
		{"no request id", me(200, `{"account_id":"`+acct+`","organizations":[]}`, http.Header{"Content-Type": {"application/json"}, version.Header: {version.Default}}), "X-Request-Id"},
		{"no version header", me(200, `{"account_id":"`+acct+`","organizations":[]}`, http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r"}}), version.Header},
		{"401 without challenge", me(401, `{"detail":"no"}`, jsonHdr()), "WWW-Authenticate"},
		{"401 in another shape", me(401, `{"error":"unauthorized"}`, jsonHdr("WWW-Authenticate: Bearer")), "error {"},
		{"401 as problem+json", me(401, `{"detail":"no"}`, jsonHdr("WWW-Authenticate: Bearer", "Content-Type: application/problem+json")), "want application/json"},
		{"422 with a sentence", me(422, `{"detail":"bad"}`, jsonHdr()), "validation error"},
		{"422 item without type", me(422, `{"detail":[{"loc":["query","x"],"msg":"m"}]}`, jsonHdr()), "validation error"},
		{"404 with extra field", me(404, `{"detail":"Not found","title":"Not Found"}`, jsonHdr()), "undeclared field $.title"},
		{"402 in the plain shape", me(402, `{"detail":"no credits"}`, jsonHdr()), "insufficient credits"},
		{"exercise names the wrong operation", &Exchange{Op: "GET /version", Method: "GET", Target: "/me", Status: 200, Header: jsonHdr()}, "reaches GET /me"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems := ref.CheckResponse(c.x)
			for _, p := range problems {
				if strings.Contains(p, c.want) {
					return
				}
			}
			t.Errorf("want a problem containing %q, got %q", c.want, problems)
		})
	}

	t.Run("declared 422 is held to the documented shape too", func(t *testing.T) {
		x := &Exchange{Op: "PUT /version", Method: "PUT", Target: "/version", ReqHeader: http.Header{},
			Status: 422, Header: jsonHdr(), Body: []byte(`{}`)}
		if p := ref.CheckResponse(x); len(p) == 0 {
			t.Error("an empty 422 body passed")
		}
	})
	t.Run("a bespoke declared 422 also admits the validation shape", func(t *testing.T) {
		agents := func(body string) *Exchange {
			return &Exchange{Op: "POST /agents", Method: "POST", Target: "/agents", ReqHeader: http.Header{},
				Status: 422, Header: jsonHdr(), Body: []byte(body)}
		}
		if p := ref.CheckResponse(agents(`{"detail":[{"loc":["body","name"],"msg":"Field required","type":"missing"}]}`)); len(p) != 0 {
			t.Errorf("the validation shape was refused: %q", p)
		}
		if p := ref.CheckResponse(agents(`{"detail":"bad"}`)); len(p) == 0 {
			t.Error("a 422 in neither shape passed")
		}
	})
	t.Run("a conformant answer passes", func(t *testing.T) {
		x := me(200, `{"account_id":"`+acct+`","organizations":[{"id":"`+acct+`","name":"o","account_id":"`+acct+`"}]}`, jsonHdr())
		if p := ref.CheckResponse(x); len(p) != 0 {
			t.Errorf("problems: %q", p)
		}
	})
	t.Run("requests are checked against the reference", func(t *testing.T) {
		x := &Exchange{Op: "PUT /version", Method: "PUT", Target: "/version", ReqHeader: http.Header{"Content-Type": {"application/json"}},
			ReqBody: []byte(`{"version": 5}`)}
		if err := ref.CheckRequest(x); err == nil {
			t.Error("a numeric version passed request validation")
		}
		x.ReqBody = []byte(`{"version": "2026-07-27"}`)
		if err := ref.CheckRequest(x); err != nil {
			t.Errorf("a valid request failed: %v", err)
		}
	})
}

func TestFindReference(t *testing.T) {
	if _, err := FindReference(t.TempDir()); err == nil {
		t.Error("found a reference above a fresh temporary directory")
	}
}

// TestEnvelope checks the strict-version list schema built from the reference.
func TestEnvelope(t *testing.T) {
	ref := reference(t)
	s, err := Envelope("OrganizationInfoResponse")(ref)
	if err != nil {
		t.Fatal(err)
	}
	const id = "0190a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
	h := http.Header{"Content-Type": {"application/json"}}
	page := `"pagination":{"page":1,"limit":20,"total":1,"pages":1,"has_next":false,"has_prev":false}`
	for body, ok := range map[string]bool{
		`{"data":[{"id":"` + id + `","name":"o","account_id":"` + id + `"}],` + page + `}`: true,
		`{"data":[],` + page + `}`:                                   true,
		`[{"id":"` + id + `","name":"o","account_id":"` + id + `"}]`: false, // the legacy bare array
		`{"data":[],"pagination":{"page":1,"limit":20,"total":0}}`:   false, // incomplete pagination
		`{"data":[],` + page + `,"total":0}`:                         false, // a legacy field left in
		`{"data":[{"id":"` + id + `","name":"o"}],` + page + `}`:     false, // an item off-schema
	} {
		x := &Exchange{Status: 200, Header: h, Body: []byte(body)}
		if problems := checkJSONBody(x, s, "envelope", nil); (len(problems) == 0) != ok {
			t.Errorf("%s: problems %q, want ok=%v", body, problems, ok)
		}
	}
	if _, err := Envelope("NoSuchSchema")(ref); err == nil {
		t.Error("an unknown item schema was accepted")
	}
	if _, err := Component("MeResponse")(ref); err != nil {
		t.Error(err)
	}
}
