package conformance

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// probeParam is a query parameter no operation declares.
const probeParam = "conformance_undeclared_probe"

// base picks the exercise the derived ones start from: the first success
// as the owner at the default version, with the reference's own schema.
func base(xs []Exercise) (Exercise, bool) {
	for _, x := range xs {
		if x.Status >= 200 && x.Status < 300 && x.As == Owner && x.Schema == nil && !sendsVersion(x) {
			return x, true
		}
	}
	return Exercise{}, false
}

func sendsVersion(x Exercise) bool {
	for _, h := range x.Headers {
		name, _, _ := strings.Cut(h, ":")
		if strings.EqualFold(strings.TrimSpace(name), version.Header) {
			return true
		}
	}
	return false
}

// derive returns the exercises every authenticated operation gets for free,
// built from its base success: credentials are required, a malformed
// Service-Version is a 422, and an undeclared query parameter is refused at
// the strict version but ignored before it. An operation's table then only
// needs its own successes and errors.
func derive(op ServerOp, b Exercise) []Exercise {
	if op.Public() {
		return nil
	}
	withQuery := func(path string) string {
		if path == "" {
			_, path = SplitOpKey(b.Op)
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		return path + sep + probeParam + "=1"
	}
	anon := b
	anon.Name, anon.As, anon.Status, anon.Check = "derived: no credentials", Anonymous, http.StatusUnauthorized, nil

	unknown := b
	unknown.Name, unknown.As, unknown.Status, unknown.Check = "derived: unknown key", UnknownKey, http.StatusUnauthorized, nil

	revoked := b
	revoked.Name, revoked.As, revoked.Status, revoked.Check = "derived: revoked key", RevokedKey, http.StatusUnauthorized, nil

	malformed := b
	malformed.Name, malformed.Status = "derived: malformed "+version.Header, http.StatusUnprocessableEntity
	malformed.Headers = append(append([]string{}, b.Headers...), version.Header+": 2026-7-27")
	malformed.Check = expectLoc("header", version.Header)

	strict := b
	strict.Name, strict.Status = "derived: undeclared query parameter refused at "+version.StrictEnvelope, http.StatusUnprocessableEntity
	strict.Path = withQuery(b.Path)
	strict.Headers = append(append([]string{}, b.Headers...), version.Header+": "+version.StrictEnvelope)
	strict.Check = expectLoc("query", probeParam)

	lenient := b
	lenient.Name, lenient.Check = "derived: undeclared query parameter ignored at "+version.Default, nil
	lenient.Path = withQuery(b.Path)

	out := []Exercise{anon, unknown, revoked, malformed, strict, lenient}
	if b.Body != nil && !sendsContentType(b) {
		// A JSON body sent as another media type is refused, never read
		// as JSON regardless (docs/errors.md).
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
			x := b
			x.Name, x.Status, x.Check = "derived: a JSON body sent as "+ct+" is a 415", http.StatusUnsupportedMediaType, nil
			x.Headers = append(append([]string{}, b.Headers...), "Content-Type: "+ct)
			out = append(out, x)
		}
	}
	return out
}

// sendsContentType reports whether an exercise sets its own Content-Type
// (a multipart upload), whose body is not JSON.
func sendsContentType(x Exercise) bool {
	for _, h := range x.Headers {
		name, _, _ := strings.Cut(h, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Content-Type") {
			return true
		}
	}
	return false
}

// expectLoc checks that a 422 names the given location.
func expectLoc(loc ...any) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		t.Helper()
		var body struct {
			Detail []struct {
				Loc []any `json:"loc"`
			} `json:"detail"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Errorf("422 body: %v", err)
			return
		}
		for _, d := range body.Detail {
			if reflect.DeepEqual(d.Loc, loc) {
				return
			}
		}
		t.Errorf("422 does not name loc %v: %s", loc, r.Body)
	}
}
