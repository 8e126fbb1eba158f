package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// Output formats.
const (
	formatJSON  = "json"
	formatTable = "table"
)

// format is -o, or table on a terminal and JSON otherwise, so pipes and
// scripts get machine-readable output without asking.
func (a *App) format(w io.Writer) (string, error) {
	switch a.Output {
	case formatJSON, formatTable:
		return a.Output, nil
	case "":
		if isTerminal(w) {
			return formatTable, nil
		}
		return formatJSON, nil
	}
	return "", usageErrorf("unknown output format %q: use json or table", a.Output)
}

// print writes v as indented JSON, or through table in table format
// (autoTable when the command has none).
func (a *App) print(cmd *cobra.Command, v any, table func(w io.Writer) error) error {
	w := cmd.OutOrStdout()
	f, err := a.format(w)
	if err != nil {
		return err
	}
	if f == formatTable {
		if table != nil {
			return table(w)
		}
		return autoTable(w, v)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// isTerminal reports whether w is a character device (a terminal), without
// a dependency: pipes, files and buffers are not.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeTable writes aligned columns with an upper-case header row.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(header, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// writeFields writes label/value pairs, one per line, aligned.
func writeFields(w io.Writer, pairs [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range pairs {
		fmt.Fprintf(tw, "%s:\t%s\n", p[0], p[1])
	}
	return tw.Flush()
}

// orNone shows an empty value as "-" in tables.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stdinIsTerminal reports whether prompts can be answered.
func stdinIsTerminal(cmd *cobra.Command) bool {
	in := cmd.InOrStdin()
	if in == os.Stdin {
		return isTerminal(os.Stdin)
	}
	return isTerminal(in)
}
