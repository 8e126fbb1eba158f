package server

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/store"
)

// openSecrets loads the secrets key and builds the account secrets service.
// A key file is only shared by processes on one data directory: on
// PostgreSQL, where replicas usually run on several hosts, it says so.
func openSecrets(cfg Config, db *store.DB) (*secrets.Service, error) {
	key, source, err := secrets.LoadKey(cfg.SecretsKey, cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("secrets key: %w", err)
	}
	box, err := secrets.NewBox(key)
	if err != nil {
		return nil, err
	}
	if source != secrets.SourceConfig && db.Dialect == store.Postgres {
		slog.Warn("account secrets are sealed with a key file of this data directory; every replica sharing the database "+
			"must use the same key: set SERVICE_SECRETS_KEY to the same value on each (see docs/secrets.md)",
			"key_file", filepath.Join(cfg.DataDir, secrets.KeyFileName), "key_id", box.KeyID())
	}
	if source == secrets.SourceCreated {
		slog.Info("created the account secrets key; back it up with the database", "key_file",
			filepath.Join(cfg.DataDir, secrets.KeyFileName), "key_id", box.KeyID())
	}
	return secrets.New(db, box), nil
}
