// Package defaults decides which model answers a prompt step that names
// none: the account's own default (an extension, set by an owner or
// admin), else the server's (--default-model, else the configured
// provider's default, else the offline model; see llmconfig).
package defaults

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/store"
)

// Router is what the service asks of the model router.
type Router interface {
	DefaultModel(kind catalog.Kind) string
	DefaultSource() string
	Available(modelID string) bool
}

// Service reads and sets accounts' default models.
type Service struct {
	DB      *store.DB
	Router  Router
	Catalog *catalog.Catalog
}

// New builds the service over the process's router and catalog.
func New(db *store.DB, router Router, cat *catalog.Catalog) *Service {
	return &Service{DB: db, Router: router, Catalog: cat}
}

// Where a default comes from.
const (
	SourceAccount = "account"
	SourceServer  = "server"
)

// Default is an account's effective default model and why.
type Default struct {
	// ModelID answers the account's prompt steps that name no model.
	ModelID string
	// Source is SourceAccount when the account set it, else SourceServer.
	Source string
	// AccountModelID is the account's own setting ("" when unset).
	AccountModelID string
	// ServerModelID and ServerReason are the server's default and why
	// the server chose it ("provider openai is configured").
	ServerModelID string
	ServerReason  string
}

// ErrInvalidModel refuses a default that is not an enabled, served chat
// model of the catalog.
var ErrInvalidModel = fault.FieldSentinel([]any{"body", "model_id"}, "value_error", "invalid default model")

// Server returns the server's default model and why.
func (s *Service) Server() (string, string) {
	return s.Router.DefaultModel(catalog.KindChat), s.Router.DefaultSource()
}

// Get returns the account's effective default.
func (s *Service) Get(ctx context.Context, accountID string) (Default, error) {
	own, err := accountDefaultModel(ctx, s.DB, accountID)
	if err != nil {
		return Default{}, err
	}
	d := Default{AccountModelID: own, Source: SourceServer}
	d.ServerModelID, d.ServerReason = s.Server()
	d.ModelID = d.ServerModelID
	if own != "" {
		d.ModelID, d.Source = own, SourceAccount
	}
	return d, nil
}

// For is the model an account's prompt steps that name none get. A
// database error falls back to the server's default, logged: the run
// still runs, on the model the operator chose.
func (s *Service) For(ctx context.Context, accountID string) string {
	d, err := s.Get(ctx, accountID)
	if err != nil {
		slog.WarnContext(ctx, "account default model", "account", accountID, "err", err)
		m, _ := s.Server()
		return m
	}
	return d.ModelID
}

// Set sets the account's default to modelID (a catalog id or provider
// name, stored as the catalog id), or clears it with "". The model must
// be an enabled chat model that a configured provider serves, so a
// default can never send every step to a model that cannot answer.
func (s *Service) Set(ctx context.Context, accountID, modelID string) (Default, error) {
	id := ""
	if modelID != "" {
		m, ok := s.Catalog.Get(modelID)
		switch {
		case !ok:
			return Default{}, fmt.Errorf("%w: %q is not in the model catalog", ErrInvalidModel, modelID)
		case m.Kind != catalog.KindChat:
			return Default{}, fmt.Errorf("%w: %s is a %s model; prompt steps need a chat model", ErrInvalidModel, m.ID, m.Kind)
		case !m.Enabled:
			return Default{}, fmt.Errorf("%w: %s is disabled in the catalog", ErrInvalidModel, m.ID)
		case !s.Router.Available(m.ID):
			return Default{}, fmt.Errorf("%w: no configured provider serves %s", ErrInvalidModel, m.ID)
		}
		id = m.ID
	}
	if err := setAccountDefaultModel(ctx, s.DB, accountID, id); err != nil {
		return Default{}, err
	}
	return s.Get(ctx, accountID)
}
