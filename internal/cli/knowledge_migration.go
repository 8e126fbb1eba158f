package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// migrationCommand is `agentry sources migration start|get|wait|cancel`:
// re-embedding a source with another model and size in the background.
func migrationCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migration",
		Short: "Re-embed a source with another embedding model and size (an embedding migration)",
		Long: `An embedding migration re-embeds every passage of a custom_index source in the
background; searches keep using the old vectors until the new ones are all
ready, then switch at once. Cancelling leaves the old index untouched.`,
	}
	printMigration := func(cmd *cobra.Command, m *client.EmbeddingMigration) error {
		return a.print(cmd, m, func(w io.Writer) error {
			return writeFields(w, [][2]string{{"Migration", m.ID}, {"Source", m.SourceConnectionID}, {"Status", m.Status},
				{"Phase", m.Phase}, {"Progress", fmt.Sprintf("%d/%d", m.ProgressCurrent, m.ProgressTotal)},
				{"Message", optStr(m.ProgressMessage)}, {"Target", m.TargetEmbeddingModel + " × " + strconv.Itoa(m.TargetDimensions)},
				{"Error", optStr(m.FailureMessage)}, {"Created", m.CreatedAt}, {"Completed", optStr(m.CompletedAt)}})
		})
	}
	wait := func(cmd *cobra.Command, c *client.Client, sourceID string) (*client.EmbeddingMigration, error) {
		bar := newItemProgress(cmd.ErrOrStderr(), "migration")
		defer bar.finish()
		for {
			m, err := c.EmbeddingMigration(cmd.Context(), sourceID)
			if err != nil {
				return nil, err
			}
			if m == nil {
				return nil, errors.New("this source has no embedding migration")
			}
			bar.set(m.ProgressCurrent, m.ProgressTotal)
			switch m.Status {
			case "completed", "failed", "cancelled":
				return m, nil
			}
			select {
			case <-cmd.Context().Done():
				return m, cmd.Context().Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	var model string
	var dims int
	var waitFlag bool
	start := &cobra.Command{
		Use: "start SOURCE_ID --model MODEL --dimensions N", Short: "Start re-embedding a source (with --wait, follow it to the end)",
		Args:    exactArgs(1),
		Example: `  agentry sources migration start 0192… --model agentry_offline_embed --dimensions 256 --wait`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if model == "" || dims <= 0 {
				return usageErrorf("--model and --dimensions (a positive number) are required")
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			m, err := c.StartEmbeddingMigration(cmd.Context(), args[0], model, dims)
			if err != nil {
				return err
			}
			if waitFlag {
				if m, err = wait(cmd, c, args[0]); err != nil {
					return err
				}
			}
			return printMigration(cmd, m)
		},
	}
	start.Flags().StringVar(&model, "model", "", "target embedding model id (agentry_offline_embed: the built-in embedder)")
	start.Flags().IntVar(&dims, "dimensions", 0, "target dimensions")
	start.Flags().BoolVar(&waitFlag, "wait", false, "wait until the migration has finished, showing its progress")
	get := &cobra.Command{
		Use: "get SOURCE_ID", Short: "Show the source's latest embedding migration", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			m, err := c.EmbeddingMigration(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if m == nil {
				return errors.New("this source has no embedding migration")
			}
			return printMigration(cmd, m)
		},
	}
	waitCmd := &cobra.Command{
		Use: "wait SOURCE_ID", Short: "Wait for the source's migration to finish, showing its progress", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			m, err := wait(cmd, c, args[0])
			if err != nil {
				return err
			}
			return printMigration(cmd, m)
		},
	}
	cancel := &cobra.Command{
		Use: "cancel SOURCE_ID", Short: "Cancel the source's active migration (the old index stays)", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			m, err := c.CancelEmbeddingMigration(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printMigration(cmd, m)
		},
	}
	cmd.AddCommand(start, get, waitCmd, cancel)
	return cmd
}
