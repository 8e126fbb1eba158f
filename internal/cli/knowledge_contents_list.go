package cli

import (
	"io"
	"strconv"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// sourceContentsCommand is `agentry sources contents SOURCE_ID`: a page of
// a source's contents with their indexing status (an extension).
func sourceContentsCommand(a *App) *cobra.Command {
	var (
		status      string
		page, limit int
	)
	cmd := &cobra.Command{
		Use: "contents SOURCE_ID", Short: "List a source's contents, newest first, with their indexing status", Args: exactArgs(1),
		Example: `  agentry sources contents "$SRC"
  agentry sources contents "$SRC" --status pending`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListSourceContents(cmd.Context(), args[0], client.SourceContentListOptions{Status: status, Page: page, Limit: limit})
			if err != nil {
				return err
			}
			return a.print(cmd, p, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, ct := range p.Items {
					name := ct.Filename
					if ct.Title != nil && *ct.Title != "" {
						name = *ct.Title
					}
					rows[i] = []string{ct.ID, clip(name, 40), ct.ContentStatus, strconv.Itoa(ct.Version), clip(deref(ct.Error), 60)}
				}
				return writeTable(w, []string{"ID", "Title", "Status", "Version", "Error"}, rows)
			})
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "keep one status (queued, …, indexed, failed) or pending (neither indexed nor failed)")
	cmd.Flags().IntVar(&page, "page", 1, "page")
	cmd.Flags().IntVar(&limit, "limit", 20, "contents per page (1-100)")
	return cmd
}
