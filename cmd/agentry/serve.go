package main

import (
	"log/slog"
	"os"
	"strings"

	"github.com/agentry/agentry/internal/server"
	"github.com/spf13/cobra"
)

func serveCommand() *cobra.Command {
	cfg := server.Defaults()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the platform: HTTP API, job workers and scheduler",
		Long: `Run Agentry. With no flags it keeps everything in ./agentry-data (SQLite,
blobs) and listens on 127.0.0.1:8080. On first start it creates an owner
account and prints an API key once.

Every flag defaults from the SERVICE_* variable named in its help.`,
		Example: `  agentry serve
  SERVICE_DATABASE_URL=postgres://agentry@db/agentry agentry serve --addr :8080 --role api`,
	}
	// The settings table (internal/server/settings.go) declares every flag.
	envErr := server.BindFlags(cmd.Flags(), &cfg)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if envErr != nil {
			return envErr
		}
		configureLogging(cfg.LogLevel, cfg.LogFormat)
		s, err := server.New(cmd.Context(), cfg, os.Stderr)
		if err != nil {
			return err
		}
		return s.Run(cmd.Context())
	}
	return cmd
}

func configureLogging(level, format string) {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(level)))
	opts := &slog.HandlerOptions{Level: l}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if format == "json" {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	slog.SetDefault(slog.New(h))
}
