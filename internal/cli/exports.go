package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/client"
)

func init() { addAPICommand(exportsCommand) }

// exportsCommand is `agentry exports list|estimate|create|get|wait|cancel|download|delete`.
func exportsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "exports",
		Short: "Export a source's contents as JSON Lines, CSV, Parquet or zip",
		Long: `An export writes a source's contents (title, URL, metadata, times and text)
to one file in the background: jsonl, csv, parquet, or a zip holding one text
file per content and a manifest.jsonl. Filters choose the contents: creation
dates, a metadata containment filter, a title substring. Create an export,
wait for it (a progress bar on a terminal), then download it.`,
	}
	var req client.SourceExportRequest
	var dateFrom, dateTo, metaJSON, query string
	request := func() (client.SourceExportRequest, error) {
		r := req
		for _, d := range []struct {
			flag, v string
			dst     **time.Time
		}{{"--date-from", dateFrom, &r.DateFrom}, {"--date-to", dateTo, &r.DateTo}} {
			if d.v == "" {
				continue
			}
			t, err := time.Parse(time.RFC3339, d.v)
			if err != nil {
				return r, usageErrorf("%s: want an RFC 3339 time such as 2026-11-01T00:00:00Z", d.flag)
			}
			*d.dst = &t
		}
		if metaJSON != "" {
			if err := json.Unmarshal([]byte(metaJSON), &r.MetadataFilter); err != nil {
				return r, usageErrorf("--metadata-filter: want a JSON object: %v", err)
			}
		}
		if query != "" {
			r.QueryFilter = &query
		}
		return r, nil
	}
	filterFlags := func(c *cobra.Command) {
		c.Flags().StringVar(&req.Format, "format", "jsonl", "jsonl, csv, parquet or zip")
		c.Flags().StringVar(&dateFrom, "date-from", "", "only contents created at or after this time (RFC 3339)")
		c.Flags().StringVar(&dateTo, "date-to", "", "only contents created at or before this time (RFC 3339)")
		c.Flags().StringVar(&metaJSON, "metadata-filter", "", `only contents whose metadata contains this JSON object, e.g. '{"team":"docs"}'`)
		c.Flags().StringVar(&query, "query", "", "only contents whose title contains this text (any case)")
	}
	printExport := func(cmd *cobra.Command, e *client.SourceExport) error {
		return a.print(cmd, e, func(w io.Writer) error {
			return writeFields(w, [][2]string{{"Export", e.ID}, {"Source", e.SourceConnectionID}, {"Format", e.Format},
				{"Status", e.Status}, {"Progress", exportProgress(e)}, {"Items", intOrDash(e.ItemCount)},
				{"Size", optBytes(e.FileSizeBytes)}, {"Expires", optStr(e.ExpiresAt)}, {"Error", optStr(e.Error)}, {"Created", e.CreatedAt}})
		})
	}
	wait := func(cmd *cobra.Command, c *client.Client, sourceID, exportID string) (*client.SourceExport, error) {
		bar := newItemProgress(cmd.ErrOrStderr(), "export "+shortID(exportID))
		e, err := c.WaitSourceExport(cmd.Context(), sourceID, exportID, 500*time.Millisecond, func(e *client.SourceExport) {
			if e.ProgressTotal != nil && e.ProgressCurrent != nil {
				bar.set(*e.ProgressCurrent, *e.ProgressTotal)
			}
		})
		bar.finish()
		return e, err
	}

	list := &cobra.Command{
		Use: "list SOURCE_ID", Short: "List a source's exports, newest first", Args: exactArgs(1),
		Example: `  agentry exports list 0192… -o table`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			out := []client.SourceExport{}
			for e, err := range c.SourceExports(cmd.Context(), args[0]) {
				if err != nil {
					return err
				}
				out = append(out, e)
			}
			return a.print(cmd, out, func(w io.Writer) error {
				rows := make([][]string, len(out))
				for i, e := range out {
					rows[i] = []string{e.ID, e.Format, e.Status, exportProgress(&e), optBytes(e.FileSizeBytes), e.CreatedAt}
				}
				return writeTable(w, []string{"Export", "Format", "Status", "Progress", "Size", "Created"}, rows)
			})
		},
	}
	estimate := &cobra.Command{
		Use: "estimate SOURCE_ID", Short: "Estimate the size of an export without starting it", Args: exactArgs(1),
		Example: `  agentry exports estimate 0192… --format parquet --metadata-filter '{"team":"docs"}'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := request()
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			est, err := c.EstimateSourceExport(cmd.Context(), args[0], r)
			if err != nil {
				return err
			}
			return a.print(cmd, est, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Source", est.SourceConnectionID}, {"Estimated size", humanBytes(est.EstimatedSizeBytes)}})
			})
		},
	}
	filterFlags(estimate)
	var waitFlag bool
	create := &cobra.Command{
		Use: "create SOURCE_ID", Short: "Start an export (with --wait, follow it to the end)", Args: exactArgs(1),
		Example: `  agentry exports create 0192… --format csv --date-from 2026-11-01T00:00:00Z --wait`,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := request()
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			e, err := c.CreateSourceExport(cmd.Context(), args[0], r)
			if err != nil {
				return err
			}
			if waitFlag {
				if e, err = wait(cmd, c, args[0], e.ID); err != nil {
					return err
				}
			}
			return printExport(cmd, e)
		},
	}
	filterFlags(create)
	create.Flags().BoolVar(&waitFlag, "wait", false, "wait until the export has finished, showing its progress")
	get := &cobra.Command{
		Use: "get SOURCE_ID EXPORT_ID", Short: "Show an export's status and progress", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			e, err := c.GetSourceExport(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return printExport(cmd, e)
		},
	}
	waitCmd := &cobra.Command{
		Use: "wait SOURCE_ID EXPORT_ID", Short: "Wait for an export to finish, showing its progress", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			e, err := wait(cmd, c, args[0], args[1])
			if err != nil {
				return err
			}
			return printExport(cmd, e)
		},
	}
	cancel := &cobra.Command{
		Use: "cancel SOURCE_ID EXPORT_ID", Short: "Cancel a pending or running export", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			e, err := c.CancelSourceExport(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return printExport(cmd, e)
		},
	}
	var outFile string
	download := &cobra.Command{
		Use: "download SOURCE_ID EXPORT_ID", Short: "Download a completed export (to -O FILE, or its own name)", Args: exactArgs(2),
		Example: `  agentry exports download 0192… 0193… -O docs.parquet
  agentry exports download 0192… 0193… -O - | head`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.DownloadSourceExport(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			defer d.Close()
			name := outFile
			if name == "" {
				name = d.FileName
			}
			if name == "" || strings.ContainsAny(name, `/\`) && outFile == "" {
				name = "export-" + args[1]
			}
			var w io.Writer = cmd.OutOrStdout()
			if name != "-" {
				f, err := os.Create(name)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			bar := progressFor(cmd.ErrOrStderr(), name, d.ContentLength)
			n, err := io.Copy(bar.Writer(w), d.Body)
			bar.Finish()
			if err != nil {
				return err
			}
			if name != "-" {
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%s)\n", name, humanBytes(n))
			}
			return nil
		},
	}
	download.Flags().StringVarP(&outFile, "output-file", "O", "", `file to write ("-" for standard output; default: the export's file name)`)
	del := &cobra.Command{
		Use: "delete SOURCE_ID EXPORT_ID", Short: "Delete an export and its file", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteSourceExport(cmd.Context(), args[0], args[1]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "deleted export %s\n", args[1])
			return nil
		},
	}
	cmd.AddCommand(list, estimate, create, get, waitCmd, cancel, download, del)
	return cmd
}

func exportProgress(e *client.SourceExport) string {
	if e.ProgressCurrent == nil || e.ProgressTotal == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", *e.ProgressCurrent, *e.ProgressTotal)
}

func intOrDash(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func optBytes(p *int64) string {
	if p == nil {
		return "-"
	}
	return humanBytes(*p)
}

func optStr(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

func shortID(id string) string {
	if len(id) > 13 {
		return id[:13] + "…"
	}
	return id
}

// itemProgress draws a background job's progress in items on a terminal
// (stderr), and nothing elsewhere.
type itemProgress struct {
	w     io.Writer
	label string
	drawn bool
}

func newItemProgress(stderr io.Writer, label string) *itemProgress {
	if !isTerminal(stderr) {
		return &itemProgress{}
	}
	return &itemProgress{w: stderr, label: label}
}

func (p *itemProgress) set(done, total int) {
	if p.w == nil {
		return
	}
	const width = 24
	frac := 0.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	filled := int(frac * width)
	bar := strings.Repeat("=", filled)
	if filled < width {
		bar += ">" + strings.Repeat(" ", width-filled-1)
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3.0f%%  %d/%d   ", p.label, bar, frac*100, done, total)
	p.drawn = true
}

func (p *itemProgress) finish() {
	if p.w != nil && p.drawn {
		fmt.Fprintln(p.w)
	}
}
