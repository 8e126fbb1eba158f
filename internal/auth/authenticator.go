package auth

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/google/uuid"
)

// Errors the API layer maps to statuses.
var (
	ErrUnauthenticated  = errors.New("missing, invalid or revoked credentials") // 401
	ErrForbiddenAccount = errors.New("not a member of the requested account")   // 403
	ErrBadAccountID     = errors.New("X-Account-Id must be a UUID")             // 422
	ErrOIDCDisabled     = errors.New("bearer token is not an API key and OIDC is not configured")
)

// Config tunes the authenticator.
type Config struct {
	// CacheTTL bounds how long a verified key is trusted without asking the
	// database again, and so how long a revoked key keeps working on a
	// replica that did not revoke it. It must stay under 5 seconds.
	CacheTTL time.Duration
	// TouchEvery is how often last-used times are written back.
	TouchEvery time.Duration
	// DefaultCredits opens accounts created on first OIDC sight.
	DefaultCredits float64
}

// Authenticator verifies credentials. It is safe for concurrent use.
type Authenticator struct {
	db   *store.DB
	oidc *OIDC // nil when no issuer is configured
	cfg  Config

	mu    sync.RWMutex
	keys  map[string]cachedKey // by key hash
	users map[string]cachedUser
	used  map[string]time.Time // key id → last use not yet written
}

type cachedKey struct {
	key     APIKey
	fetched time.Time
}

type cachedUser struct {
	user    directory.User
	fetched time.Time
}

// New returns an authenticator; oidc may be nil.
func New(db *store.DB, oidc *OIDC, cfg Config) *Authenticator {
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = 2 * time.Second
	}
	if cfg.TouchEvery <= 0 {
		cfg.TouchEvery = 15 * time.Second
	}
	return &Authenticator{db: db, oidc: oidc, cfg: cfg,
		keys: map[string]cachedKey{}, users: map[string]cachedUser{}, used: map[string]time.Time{}}
}

// Credentials are the raw values of a request's authentication headers.
type Credentials struct {
	APIKey        string // X-API-Key
	Authorization string // Authorization
	AccountID     string // X-Account-Id
	// Console is the web console's signed-in session, which the console
	// passes with its in-process API calls (never read from a header).
	Console *ConsoleCredential
}

// ConsoleCredential is what a console session acts as: the API key it
// was opened with (by hash; the key itself is never kept), or its user.
type ConsoleCredential struct {
	KeyHash string
	UserID  string
}

// Authenticate turns request credentials into a principal.
func (a *Authenticator) Authenticate(ctx context.Context, c Credentials) (Principal, error) {
	accountHeader := strings.TrimSpace(c.AccountID)
	if accountHeader != "" {
		if _, err := uuid.Parse(accountHeader); err != nil || len(accountHeader) != 36 {
			return Principal{}, ErrBadAccountID
		}
		accountHeader = strings.ToLower(accountHeader)
	}
	if c.Console != nil {
		return a.byConsole(ctx, *c.Console, accountHeader)
	}
	if key := strings.TrimSpace(c.APIKey); key != "" {
		return a.byKey(ctx, key)
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(c.Authorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return Principal{}, ErrUnauthenticated
	}
	token = strings.TrimSpace(token)
	if LooksLikeKey(token) {
		return a.byKey(ctx, token)
	}
	if a.oidc == nil {
		return Principal{}, ErrUnauthenticated
	}
	return a.byToken(ctx, token, accountHeader)
}

// byKey verifies an API key. X-Account-Id is ignored: a key acts in its own account.
func (a *Authenticator) byKey(ctx context.Context, secret string) (Principal, error) {
	return a.byKeyHash(ctx, HashKey(secret))
}

// byKeyHash verifies the key with this hash.
func (a *Authenticator) byKeyHash(ctx context.Context, hash string) (Principal, error) {
	now := time.Now()
	a.mu.RLock()
	ck, hit := a.keys[hash]
	a.mu.RUnlock()
	if !hit || now.Sub(ck.fetched) > a.cfg.CacheTTL {
		k, err := APIKeyByHash(ctx, a.db, hash)
		if errors.Is(err, store.ErrNotFound) {
			return Principal{}, ErrUnauthenticated
		}
		if err != nil {
			return Principal{}, err
		}
		ck = cachedKey{key: k, fetched: now}
		a.mu.Lock()
		a.keys[hash] = ck
		a.mu.Unlock()
	}
	if ck.key.RevokedAt != nil {
		return Principal{}, ErrUnauthenticated
	}
	// A key made for a user follows that user's membership: it stops when
	// the user leaves the account, and never acts above the user's current
	// role. Both are read with the key, so a change reaches every replica
	// within CacheTTL, like a revocation.
	role := ck.key.Role
	if ck.key.UserID != "" {
		if ck.key.MemberRole == "" {
			return Principal{}, ErrUnauthenticated
		}
		role = store.WeakerRole(role, ck.key.MemberRole)
	}
	a.mu.Lock()
	a.used[ck.key.ID] = now
	a.mu.Unlock()
	return Principal{Method: MethodAPIKey, UserID: ck.key.UserID, AccountID: ck.key.AccountID,
		Role: role, AccountKind: ck.key.AccountKind, KeyID: ck.key.ID, Credential: "key:" + ck.key.ID}, nil
}

// byToken verifies an OIDC token and resolves the account it acts in.
func (a *Authenticator) byToken(ctx context.Context, token, accountHeader string) (Principal, error) {
	id, err := a.oidc.Verify(ctx, token)
	if err != nil {
		return Principal{}, ErrUnauthenticated
	}
	return a.asUser(ctx, id.Issuer+"\x00"+id.Subject, func() (directory.User, error) {
		return directory.UserBySubject(ctx, a.db, id.Issuer, id.Subject, id.Email, id.Name, a.cfg.DefaultCredits)
	}, MethodOIDC, accountHeader)
}

// byConsole resolves a console session's credential: its key, exactly as
// the key would be, or its user, as a signed-in user (personal account,
// X-Account-Id switching to organizations they belong to).
func (a *Authenticator) byConsole(ctx context.Context, c ConsoleCredential, accountHeader string) (Principal, error) {
	if c.KeyHash != "" {
		return a.byKeyHash(ctx, c.KeyHash)
	}
	if c.UserID == "" {
		return Principal{}, ErrUnauthenticated
	}
	return a.asUser(ctx, "id\x00"+c.UserID, func() (directory.User, error) {
		u, err := directory.GetUser(ctx, a.db, c.UserID)
		if errors.Is(err, store.ErrNotFound) {
			return u, ErrUnauthenticated
		}
		return u, err
	}, MethodConsole, accountHeader)
}

// asUser is the principal of a user (read through the cache under
// cacheKey), in the account accountHeader names if they belong to it.
func (a *Authenticator) asUser(ctx context.Context, cacheKey string, load func() (directory.User, error), method Method, accountHeader string) (Principal, error) {
	a.mu.RLock()
	cu, hit := a.users[cacheKey]
	a.mu.RUnlock()
	if !hit || time.Since(cu.fetched) > a.cfg.CacheTTL {
		u, err := load()
		if err != nil {
			return Principal{}, err
		}
		cu = cachedUser{user: u, fetched: time.Now()}
		a.mu.Lock()
		a.users[cacheKey] = cu
		a.mu.Unlock()
	}
	p := Principal{Method: method, UserID: cu.user.ID, AccountID: cu.user.PersonalAccountID,
		Role: store.RoleOwner, Credential: "user:" + cu.user.ID}
	if accountHeader != "" && accountHeader != p.AccountID {
		role, err := directory.Role(ctx, a.db, accountHeader, cu.user.ID)
		if errors.Is(err, store.ErrNotFound) {
			return Principal{}, ErrForbiddenAccount
		}
		if err != nil {
			return Principal{}, err
		}
		p.AccountID, p.Role = accountHeader, role
	}
	return p, nil
}

// Run writes last-used times back every TouchEvery until ctx ends, and once
// more on the way out, so the hot path never waits on a write.
func (a *Authenticator) Run(ctx context.Context) {
	t := time.NewTicker(a.cfg.TouchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			a.Flush(flushCtx)
			cancel()
			return
		case <-t.C:
			a.Flush(ctx)
			a.evict()
		}
	}
}

// Flush writes pending last-used times now.
func (a *Authenticator) Flush(ctx context.Context) {
	a.mu.Lock()
	used := a.used
	a.used = map[string]time.Time{}
	a.mu.Unlock()
	if len(used) == 0 {
		return
	}
	if err := touchAPIKeys(ctx, a.db, used); err != nil {
		slog.Warn("record api key use", "err", err)
	}
}

// evict drops expired cache entries so the maps do not grow without bound.
func (a *Authenticator) evict() {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for h, ck := range a.keys {
		if now.Sub(ck.fetched) > a.cfg.CacheTTL {
			delete(a.keys, h)
		}
	}
	for k, cu := range a.users {
		if now.Sub(cu.fetched) > a.cfg.CacheTTL {
			delete(a.users, k)
		}
	}
}

// UserFor is the user of a verified identity, created on first sight with
// a personal account, exactly as a bearer token of theirs would be: the
// web console's single sign-on opens sessions for this user.
func (a *Authenticator) UserFor(ctx context.Context, id Identity) (directory.User, error) {
	return directory.UserBySubject(ctx, a.db, id.Issuer, id.Subject, id.Email, id.Name, a.cfg.DefaultCredits)
}
