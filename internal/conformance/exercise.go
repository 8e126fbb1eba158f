package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/getkin/kin-openapi/openapi3"
)

// Exercise is one request to one operation and the status it must get. The
// response is then checked against the reference; Check adds assertions of
// behaviour the schema cannot express.
type Exercise struct {
	// Op is the operation as the reference names it: "GET /agents/{agent_id}".
	Op string
	// Name says what the exercise shows; unique within Op.
	Name string
	// Setup, if set, prepares resources in the exercise's fresh account and
	// returns the values that fill the {placeholders} of Path.
	Setup func(t *testing.T, e *Env) Vars
	// Path is the request target, with {name} placeholders and an optional
	// query; empty means Op's own path.
	Path string
	// As picks the credentials sent (the account owner's key by default).
	As Caller
	// Headers are extra request headers, "Name: value", with {placeholders}.
	Headers []string
	// Body is sent as JSON; a string or []byte is sent verbatim; a
	// func(Vars) any is called first, to build a body from Setup's ids.
	Body any
	// Status is the status the server must answer.
	Status int
	// Schema, if set, replaces the reference's body schema: for answers the
	// reference predates, such as the strict-version list Envelope.
	Schema SchemaFunc
	// Check, if set, makes further assertions on the answer.
	Check func(t *testing.T, e *Env, r testserver.Response)
}

// Vars are Setup's results: path placeholder values and anything Check needs.
type Vars map[string]string

// SchemaFunc builds a body schema from the loaded reference.
type SchemaFunc func(ref *Reference) (*openapi3.Schema, error)

// Caller is whose credentials a request carries.
type Caller int

const (
	Owner       Caller = iota // the owner key of the exercise's own account
	Admin                     // an admin-role key of that account
	Member                    // a member-role key of that account
	Anonymous                 // no credentials at all
	UnknownKey                // a well-formed key the server never issued
	RevokedKey                // an owner key revoked before the request
	OwnerBearer               // the owner key, sent as Authorization: Bearer
)

var callerNames = map[Caller]string{Owner: "owner", Admin: "admin", Member: "member",
	Anonymous: "anonymous", UnknownKey: "unknown key", RevokedKey: "revoked key", OwnerBearer: "owner (bearer)"}

func (c Caller) String() string { return callerNames[c] }

// Env is what an exercise runs against: the server, and a fresh account of
// its own, so exercises cannot disturb one another.
type Env struct {
	*testserver.Server
	Tenant testserver.Tenant
	Vars   Vars
}

// Do sends a request as the exercise's account owner.
func (e *Env) Do(t testing.TB, method, path string, body any, headers ...string) testserver.Response {
	t.Helper()
	return e.Server.Do(t, method, path, e.Tenant.Key, body, headers...)
}

// Key returns the credential a Caller sends ("" for Anonymous).
func (e *Env) Key(t testing.TB, c Caller) string {
	t.Helper()
	switch c {
	case Owner, OwnerBearer:
		return e.Tenant.Key
	case Admin:
		return e.IssueKey(t, e.Tenant.AccountID, e.Tenant.UserID, store.RoleAdmin)
	case Member:
		return e.IssueKey(t, e.Tenant.AccountID, e.Tenant.UserID, store.RoleMember)
	case Anonymous:
		return ""
	case UnknownKey:
		secret, _, _ := auth.NewKey()
		return secret
	case RevokedKey:
		secret := e.IssueKey(t, e.Tenant.AccountID, e.Tenant.UserID, store.RoleOwner)
		ctx := context.Background()
		k, err := auth.APIKeyByHash(ctx, e.DB, auth.HashKey(secret))
		if err != nil {
			t.Fatal(err)
		}
		if err := auth.RevokeAPIKey(ctx, e.DB, k.ID); err != nil {
			t.Fatal(err)
		}
		return secret
	}
	t.Fatalf("unknown caller %d", c)
	return ""
}

// Fill replaces {name} placeholders in s with vars.
func Fill(s string, vars Vars) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// exercises is the table, filled by the register calls of exercises_*_test.go.
var exercises []Exercise

// waivers name declared statuses an operation cannot be made to answer.
var waivers = map[string]map[int]string{}

// register adds exercises to the table.
func register(xs ...Exercise) {
	for _, x := range xs {
		if x.Op == "" || x.Name == "" || x.Status == 0 {
			panic(fmt.Sprintf("conformance: exercise %q of %q needs Op, Name and Status", x.Name, x.Op))
		}
		exercises = append(exercises, x)
	}
}

// waive excuses op from exercising a status the reference declares but the
// server can never produce (say why: the reason is printed).
func waive(op string, status int, why string) {
	if waivers[op] == nil {
		waivers[op] = map[int]string{}
	}
	waivers[op][status] = why
}

// exercisesOf returns the table's exercises of op, in table order.
func exercisesOf(op string) []Exercise {
	var out []Exercise
	for _, x := range exercises {
		if x.Op == op {
			out = append(out, x)
		}
	}
	return out
}

// authenticated reports whether the caller's credentials are valid.
func (c Caller) authenticated() bool {
	return c == Owner || c == Admin || c == Member || c == OwnerBearer
}
