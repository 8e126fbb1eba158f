package api

import (
	"context"
	"errors"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/accounts"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/version"
	"github.com/danielgtaylor/huma/v2"
)

// metaPublic marks an operation that needs no credentials.
const metaPublic = "public"

type versionKey struct{}

// Version returns the API version a request resolved to.
func Version(ctx interface{ Value(any) any }) string {
	if v, ok := ctx.Value(versionKey{}).(string); ok {
		return v
	}
	return version.Default
}

// writeErr writes one of our errors from a middleware, headers included.
func (s *Server) writeErr(ctx huma.Context, e *Error) {
	for k, vs := range e.Headers {
		for _, v := range vs {
			ctx.SetHeader(k, v)
		}
	}
	_ = huma.WriteErr(s.api, ctx, e.Status, "", e)
}

// authenticate resolves the principal, applies the rate limit, resolves the
// API version and, from the strict version on, refuses undeclared query
// parameters — in that order, so that a request is never validated against
// rules of a version it did not ask for.
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	op := ctx.Operation()
	if public, _ := op.Metadata[metaPublic].(bool); public {
		next(ctx)
		return
	}
	if p, ok := ctx.Context().Value(inProcessKey{}).(auth.Principal); ok {
		// A request the server sends itself on behalf of an authenticated
		// caller (a plan's actions): the caller's principal, already checked
		// and rate limited.
		ctx = huma.WithValue(ctx, auth.PrincipalContextKey(), p)
		ctx = huma.WithValue(ctx, versionKey{}, version.Resolve("", ""))
		next(ctx)
		return
	}
	p, err := s.deps.Auth.Authenticate(ctx.Context(), auth.Credentials{
		APIKey:        ctx.Header("X-API-Key"),
		Authorization: ctx.Header("Authorization"),
		AccountID:     ctx.Header("X-Account-Id"),
		Console:       consoleCredential(ctx.Context()),
	})
	switch {
	case errors.Is(err, auth.ErrBadAccountID):
		s.writeErr(ctx, Invalid([]any{"header", "X-Account-Id"}, "Input should be a valid UUID", "uuid_parsing"))
		return
	case errors.Is(err, auth.ErrForbiddenAccount):
		s.writeErr(ctx, Fail(http.StatusForbidden, "You are not a member of account %s", ctx.Header("X-Account-Id")))
		return
	case errors.Is(err, auth.ErrUnauthenticated):
		if e := s.failedAuthentication(ctx.RemoteAddr()); e != nil {
			s.writeErr(ctx, e)
			return
		}
		s.writeErr(ctx, Unauthenticated("Missing, invalid or revoked credentials. Send X-API-Key or Authorization: Bearer."))
		return
	case err != nil:
		s.writeErr(ctx, newError(ctx.Context(), http.StatusInternalServerError, "", err).(*Error))
		return
	}
	if ok, wait := s.limiter.allow(p.Credential); !ok {
		e := Fail(http.StatusTooManyRequests, "Rate limit exceeded; retry after the time in Retry-After")
		e.Headers = http.Header{"Retry-After": {strconv.Itoa(int(math.Ceil(wait.Seconds())))}}
		s.writeErr(ctx, e)
		return
	}
	ctx = huma.WithValue(ctx, auth.PrincipalContextKey(), p)

	header, headerName := version.FromRequest(ctx.Header, s.deps.VersionHeaders)
	if header != "" {
		if _, err := version.Parse(header); err != nil {
			s.writeErr(ctx, Invalid([]any{"header", headerName},
				headerName+" must be a date in the form YYYY-MM-DD, e.g. "+version.Latest, "value_error"))
			return
		}
	}
	pin, err := s.pins.get(ctx.Context(), p.AccountID)
	if err != nil {
		s.writeErr(ctx, newError(ctx.Context(), http.StatusInternalServerError, "", err).(*Error))
		return
	}
	v := version.Resolve(header, pin)
	ctx.SetHeader(version.Header, v)
	for _, name := range s.deps.VersionHeaders {
		ctx.SetHeader(name, v) // clients that send another name may read it back too
	}
	ctx = huma.WithValue(ctx, versionKey{}, v)

	if version.Strict(v) {
		if items := undeclaredQuery(op, queryOf(ctx)); len(items) > 0 {
			s.writeErr(ctx, &Error{Status: http.StatusUnprocessableEntity, Detail: items})
			return
		}
	}
	next(ctx)
}

// undeclaredQuery names every query parameter the operation does not declare.
func undeclaredQuery(op *huma.Operation, q map[string][]string) []ValidationItem {
	var items []ValidationItem
	for _, name := range slices.Sorted(maps.Keys(q)) {
		declared := false
		for _, p := range op.Parameters {
			if p.In == "query" && p.Name == name {
				declared = true
				break
			}
		}
		if !declared {
			items = append(items, ValidationItem{Loc: []any{"query", name},
				Msg: "Unknown query parameter '" + name + "' is not accepted by this operation at Service-Version " + version.StrictEnvelope + " or later", Type: "extra_forbidden"})
		}
	}
	return items
}

// pinCache remembers accounts' pinned versions briefly, so resolving a
// version costs no query per request. A pin changed on this replica is seen
// at once; on other replicas within pinTTL.
type pinCache struct {
	accounts *accounts.Service
	mu       sync.RWMutex
	m        map[string]pinEntry
}

type pinEntry struct {
	pin     string
	fetched time.Time
}

const pinTTL = 2 * time.Second

func (c *pinCache) get(ctx context.Context, accountID string) (string, error) {
	c.mu.RLock()
	e, ok := c.m[accountID]
	c.mu.RUnlock()
	if ok && time.Since(e.fetched) < pinTTL {
		return e.pin, nil
	}
	pin, err := c.accounts.APIVersion(ctx, accountID)
	if err != nil {
		return "", err
	}
	c.set(accountID, pin)
	return pin, nil
}

func (c *pinCache) set(accountID, pin string) {
	c.mu.Lock()
	if len(c.m) > 100_000 { // bound memory; entries are cheap to reload
		c.m = map[string]pinEntry{}
	}
	c.m[accountID] = pinEntry{pin: pin, fetched: time.Now()}
	c.mu.Unlock()
}

func queryOf(ctx huma.Context) map[string][]string {
	u := ctx.URL()
	return u.Query()
}
