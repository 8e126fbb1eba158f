package sending

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// Unsubscribe links carry a token naming the account, the agent and the
// recipient, signed with a key every replica shares (kept in the settings
// table, made once), so the unauthenticated endpoint opts out exactly the
// address the mail went to and nobody can forge another.

const tokenKeySetting = "mail.unsubscribe_key"

// MaxTokenBytes bounds a token the endpoint will look at.
const MaxTokenBytes = 1024

// ErrBadToken is a token that is malformed or not ours.
var ErrBadToken error = &fault.BadRequest{Msg: "This unsubscribe link is not valid", Err: errors.New("invalid or tampered unsubscribe link")}

// Unsubscribe is what a token says.
type Unsubscribe struct {
	AccountID string `json:"a"`
	AgentID   string `json:"g,omitempty"`
	Recipient string `json:"r"`
}

type tokens struct{ key []byte }

// loadTokens reads the shared key, making it on first use.
func loadTokens(ctx context.Context, db *store.DB) (*tokens, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := db.Claim(ctx, tokenKeySetting, hex.EncodeToString(fresh)); err != nil {
		return nil, err
	}
	v, err := db.Setting(ctx, tokenKeySetting)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(v)
	if err != nil || len(key) < 16 {
		return nil, errors.New("mail: the stored unsubscribe key is damaged")
	}
	return &tokens{key: key}, nil
}

func (t *tokens) sign(payload []byte) []byte {
	m := hmac.New(sha256.New, t.key)
	m.Write([]byte("unsubscribe\x00"))
	m.Write(payload)
	return m.Sum(nil)
}

func (t *tokens) make(u Unsubscribe) string {
	p, _ := json.Marshal(u)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(p) + "." + enc.EncodeToString(t.sign(p))
}

func (t *tokens) parse(tok string) (Unsubscribe, error) {
	if len(tok) > MaxTokenBytes {
		return Unsubscribe{}, ErrBadToken
	}
	a, b, ok := strings.Cut(tok, ".")
	if !ok {
		return Unsubscribe{}, ErrBadToken
	}
	enc := base64.RawURLEncoding.Strict()
	p, err1 := enc.DecodeString(a)
	sig, err2 := enc.DecodeString(b)
	if err1 != nil || err2 != nil || !hmac.Equal(sig, t.sign(p)) {
		return Unsubscribe{}, ErrBadToken
	}
	var u Unsubscribe
	if err := json.Unmarshal(p, &u); err != nil || u.AccountID == "" || u.Recipient == "" {
		return Unsubscribe{}, ErrBadToken
	}
	return u, nil
}
