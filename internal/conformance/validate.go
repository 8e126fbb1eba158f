package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentry/agentry/internal/version"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Exchange is one request the suite made and the answer it got.
type Exchange struct {
	Op string // the operation the request is meant for: "PUT /version"

	Method    string
	Target    string // path and query, as sent
	ReqHeader http.Header
	ReqBody   []byte

	Status int
	Header http.Header
	Body   []byte

	// Schema, when set, replaces the reference's body schema for this
	// response (the strict-version list envelope the reference predates).
	Schema *openapi3.Schema
	// Authenticated says the request carried valid credentials, so the
	// answer must name the version it resolved to.
	Authenticated bool
}

// formatOptions check uuid, which kin-openapi leaves unchecked by default
// (ids are UUIDv7, hence RFC 9562).
func formatOptions() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{
		openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
	}
}

// validationOptions are the schema options of the suite's own checks: the
// contract is OpenAPI 3.1, so JSON Schema 2020-12, plus the formats.
func validationOptions() []openapi3.SchemaValidationOption {
	return append([]openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()}, formatOptions()...)
}

// filterOptions validate responses strictly (an undeclared status is an
// error, every problem is reported) while skipping security: the suite
// authenticates on purpose, and 401s are checked against our own shape.
func filterOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus:   true,
		MultiError:              true,
		AuthenticationFunc:      func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		SchemaValidationOptions: formatOptions(), // the filter adds JSON Schema 2020-12 itself for 3.1 documents
	}
}

// route finds the reference route of x and checks it is the operation the
// exercise claims to test.
func (r *Reference) route(x *Exchange) (*routers.Route, map[string]string, error) {
	route, params, err := r.Route(x.Method, x.Target)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s reaches no operation of the reference: %v", x.Method, x.Target, err)
	}
	if got := OpKey(route.Method, route.Path); got != x.Op {
		return nil, nil, fmt.Errorf("%s %s reaches %s in the reference, not %s", x.Method, x.Target, got, x.Op)
	}
	return route, params, nil
}

// CheckRequest validates a request against the reference. The suite applies
// it to requests that succeed: an exercise that only passes because the
// server accepts something the contract forbids proves nothing.
func (r *Reference) CheckRequest(x *Exchange) error {
	route, params, err := r.route(x)
	if err != nil {
		return err
	}
	req, err := x.request()
	if err != nil {
		return err
	}
	opts := filterOptions()
	opts.MultiError = false
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route, Options: opts,
	})
}

// CheckResponse returns every way the response departs from the contract:
// status, headers and body. An empty result means conformant.
func (r *Reference) CheckResponse(x *Exchange) []string {
	route, _, err := r.route(x)
	if err != nil {
		return []string{err.Error()}
	}
	if fileDownloads[x.Op] && x.Status == http.StatusOK {
		return checkFileDownload(x)
	}
	problems := checkHeaders(x)
	declared := route.Operation.Responses.Status(x.Status)
	switch {
	case x.Schema != nil:
		problems = append(problems, checkJSONBody(x, x.Schema, "the exercise's schema", r.Extensions)...)
	case declared != nil:
		problems = append(problems, r.checkDeclared(x, route, declared)...)
	case x.Status >= 400:
		s, name := errorSchema(x.Status)
		problems = append(problems, checkJSONBody(x, s, name, nil)...)
	default:
		problems = append(problems, fmt.Sprintf("status %d is not declared by the reference for %s (declared: %v)", x.Status, x.Op, Declared(route.Operation)))
	}
	return problems
}

// checkDeclared validates a response whose status the reference documents.
func (r *Reference) checkDeclared(x *Exchange, route *routers.Route, declared *openapi3.ResponseRef) []string {
	req, err := x.request()
	if err != nil {
		return []string{err.Error()}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: filterOptions()},
		Status:                 x.Status, Header: x.Header, Options: filterOptions(),
	}
	in.SetBodyBytes(x.Body)
	media := declaredJSON(declared.Value, x.Header)
	if x.Status >= 400 && media != nil && media.Schema != nil && !standardErrorSchemas[media.Schema.Ref] {
		// The reference documents some errors only by a bespoke body (422
		// on POST /agents is AgentDefinitionImportErrorResponse), yet the
		// same status also answers plain validation failures — a missing
		// field, a malformed header — in our documented shape. Either is
		// conformant; an answer in neither is reported against the bespoke one.
		s, _ := errorSchema(x.Status)
		if len(checkJSONBody(x, s, "", nil)) == 0 {
			return nil
		}
	}
	var problems []string
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		problems = append(problems, "off-schema: "+err.Error())
	}
	switch {
	case media == nil && x.Status == http.StatusNoContent:
		if len(bytes.TrimSpace(x.Body)) > 0 {
			problems = append(problems, fmt.Sprintf("204 with a body: %.200s", x.Body))
		}
	case media == nil && x.Status >= 400:
		// Declared without a body schema (e.g. a 402 with only a
		// description): the body is our documented error shape.
		s, name := errorSchema(x.Status)
		problems = append(problems, checkJSONBody(x, s, name, nil)...)
	case media != nil && media.Schema != nil && media.Schema.Value != nil:
		var v any
		if err := json.Unmarshal(x.Body, &v); err == nil {
			for _, f := range UndeclaredExcept(media.Schema.Value, v, r.Extensions) {
				problems = append(problems, fmt.Sprintf("undeclared field %s (not in %s)", f, schemaName(media.Schema)))
			}
		}
		if standardErrorSchemas[media.Schema.Ref] {
			s, name := errorSchema(x.Status)
			problems = append(problems, checkJSONBody(x, s, name, nil)...)
		}
	}
	return problems
}

// declaredJSON returns the JSON media type the response declares for the
// answer's content type, or nil for a body the suite does not parse.
func declaredJSON(resp *openapi3.Response, h http.Header) *openapi3.MediaType {
	if resp == nil || len(resp.Content) == 0 {
		return nil
	}
	mt := resp.Content.Get(h.Get("Content-Type"))
	if mt == nil || !isJSON(h.Get("Content-Type")) {
		return nil
	}
	return mt
}

// checkJSONBody validates a JSON body against a schema, closed to
// undeclared fields but for our extension fields.
func checkJSONBody(x *Exchange, s *openapi3.Schema, name string, extensions map[string]bool) []string {
	if ct := x.Header.Get("Content-Type"); !isPlainJSON(ct) {
		return []string{fmt.Sprintf("%d answered Content-Type %q, want application/json for the %s", x.Status, ct, name)}
	}
	var v any
	if err := json.Unmarshal(x.Body, &v); err != nil {
		return []string{fmt.Sprintf("%d body is not JSON (%v): %.200s", x.Status, err, x.Body)}
	}
	var problems []string
	if err := s.VisitJSON(v, append(validationOptions(), openapi3.MultiErrors(), openapi3.VisitAsResponse())...); err != nil {
		problems = append(problems, fmt.Sprintf("%d body is not the %s: %v\nbody: %.300s", x.Status, name, err, x.Body))
	}
	for _, f := range UndeclaredExcept(s, v, extensions) {
		problems = append(problems, fmt.Sprintf("undeclared field %s in the %s", f, name))
	}
	return problems
}

// checkHeaders checks the headers every answer carries.
func checkHeaders(x *Exchange) []string {
	var problems []string
	if x.Header.Get("X-Request-Id") == "" {
		problems = append(problems, "no X-Request-Id header")
	}
	if len(bytes.TrimSpace(x.Body)) > 0 && x.Header.Get("Content-Type") == "" {
		problems = append(problems, "a body without Content-Type")
	}
	switch x.Status {
	case http.StatusUnauthorized:
		if x.Header.Get("WWW-Authenticate") == "" {
			problems = append(problems, "401 without WWW-Authenticate")
		}
	case http.StatusTooManyRequests:
		if x.Header.Get("Retry-After") == "" {
			problems = append(problems, "429 without Retry-After")
		}
	}
	if x.Authenticated && x.Status < 300 {
		got := x.Header.Get(version.Header)
		want := ""
		if sent := x.ReqHeader.Get(version.Header); sent != "" {
			want = version.Snap(sent)
		}
		switch {
		case got == "":
			problems = append(problems, "no "+version.Header+" header naming the version the request resolved to")
		case want != "" && got != want:
			problems = append(problems, fmt.Sprintf("%s answered %q for a request that sent %q, want %q", version.Header, got, x.ReqHeader.Get(version.Header), want))
		case !known(got):
			problems = append(problems, fmt.Sprintf("%s answered %q, not a known version %v", version.Header, got, version.Known))
		}
	}
	return problems
}

func known(v string) bool {
	for _, k := range version.Known {
		if k == v {
			return true
		}
	}
	return false
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// isPlainJSON accepts application/json only: our error bodies and the
// envelope are plain JSON, never problem+json.
func isPlainJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func schemaName(s *openapi3.SchemaRef) string {
	if s.Ref != "" {
		return s.Ref
	}
	return "the declared schema"
}

// request rebuilds the http.Request the validators read.
func (x *Exchange) request() (*http.Request, error) {
	u, err := url.Parse(x.Target)
	if err != nil {
		return nil, err
	}
	req := &http.Request{Method: x.Method, URL: &url.URL{Path: u.Path, RawQuery: u.RawQuery}, Host: "localhost",
		Header: x.ReqHeader.Clone(), Body: io.NopCloser(bytes.NewReader(x.ReqBody)), ContentLength: int64(len(x.ReqBody))}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if len(x.ReqBody) == 0 {
		req.Body = http.NoBody
	}
	return req, nil
}

// fileDownloads are operations whose success is a file in the type its
// description names ("the file content with appropriate Content-Type"),
// though the reference declares a schema-less application/json body.
var fileDownloads = map[string]bool{
	"GET /sources/{source_connection_id}/exports/{export_id}/download": true,
}

// checkFileDownload checks a file answer: an attachment, its type named.
func checkFileDownload(x *Exchange) []string {
	var problems []string
	if x.Header.Get("Content-Type") == "" {
		problems = append(problems, "a file download without a Content-Type")
	}
	if !strings.HasPrefix(x.Header.Get("Content-Disposition"), "attachment") {
		problems = append(problems, fmt.Sprintf("a file download with Content-Disposition %q, want an attachment", x.Header.Get("Content-Disposition")))
	}
	return problems
}
