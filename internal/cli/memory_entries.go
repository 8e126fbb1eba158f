package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// Browsing a bank (extensions): `agentry memory entries BANK_ID` and
// `agentry memory keys BANK_ID`, a page at a time by cursor or all of it;
// added to `agentry memory` in memoryCommand.

func (a *App) memoryEntries() *cobra.Command {
	var (
		o   client.MemoryEntriesOptions
		key string
		all bool
	)
	cmd := &cobra.Command{
		Use:   "entries BANK_ID",
		Short: "List a bank's entries, newest first, by key and text",
		Long: `List a memory bank's live entries (turns, general entries and compaction's
summaries), newest first (an extension: GET /memory_banks/{id}/entries).
--key keeps one conversation_key (group_key for general banks; --key ""
keeps the entries written without one), --q those whose content contains
the text, case-insensitive. One page at a time (--cursor with the cursor
printed on stderr), or every entry with --all.`,
		Example: `  agentry memory entries 0190… --key cust-ada -o table
  agentry memory entries 0190… --q refund --all | jq -r '.[].content'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("key") {
				o.Key = &key
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.MemoryEntry{}
			if all {
				for e, err := range c.AllMemoryBankEntries(cmd.Context(), args[0], o) {
					if err != nil {
						return err
					}
					items = append(items, e)
				}
			} else {
				p, err := c.MemoryBankEntries(cmd.Context(), args[0], o)
				if err != nil {
					return err
				}
				items = append(items, p.Data...)
				if p.NextCursor != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "more entries: --cursor %s for the next page, or --all\n", *p.NextCursor)
				}
			}
			return a.print(cmd, items, func(w io.Writer) error {
				rows := make([][]string, len(items))
				for i, e := range items {
					kind := "entry"
					if e.Summary {
						kind = "summary"
					}
					rows[i] = []string{e.CreatedAt, orNone(e.Key), orNone(deref(e.Speaker)), kind, strconv.Itoa(e.Tokens), oneLine(e.Content, 60)}
				}
				return writeTable(w, []string{"CREATED", "KEY", "SPEAKER", "KIND", "TOKENS", "CONTENT"}, rows)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&key, "key", "", `only this conversation_key's (group_key's) entries; "" for those without one`)
	f.StringVar(&o.Search, "q", "", "only entries whose content contains this text (case-insensitive, at most 200 bytes)")
	f.StringVar(&o.Cursor, "cursor", "", "the cursor of the page to show (printed after the previous one)")
	f.IntVar(&o.Limit, "limit", 50, "entries per page (at most 100)")
	f.BoolVar(&all, "all", false, "list every entry, fetching page after page")
	return cmd
}

func (a *App) memoryKeys() *cobra.Command {
	var o client.MemoryKeysOptions
	cmd := &cobra.Command{
		Use:   "keys BANK_ID",
		Short: "List a bank's keys with their entry counts and last activity",
		Long: `List the keys of a memory bank's live entries (conversation_key, or group_key
for general banks) in byte order, each with its number of entries and the
time of its newest (an extension: GET /memory_banks/{id}/keys). One page at
a time: --cursor with the cursor printed on stderr.`,
		Example: `  agentry memory keys 0190… --prefix cust- -o table`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.MemoryBankKeys(cmd.Context(), args[0], o)
			if err != nil {
				return err
			}
			if p.NextCursor != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "more keys: --cursor %s for the next page\n", *p.NextCursor)
			}
			return a.print(cmd, p.Data, func(w io.Writer) error {
				rows := make([][]string, len(p.Data))
				for i, k := range p.Data {
					rows[i] = []string{orNone(k.Key), strconv.Itoa(k.Entries), k.LastActivity}
				}
				return writeTable(w, []string{"KEY", "ENTRIES", "LAST ACTIVITY"}, rows)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Prefix, "prefix", "", "only keys starting with this")
	f.StringVar(&o.Cursor, "cursor", "", "the cursor of the page to show (printed after the previous one)")
	f.IntVar(&o.Limit, "limit", 50, "keys per page (at most 100)")
	return cmd
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
