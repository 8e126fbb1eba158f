package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(memoryCommand) }

func itoaPtr(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

// memoryCommand is `agentry memory …`: memory banks, their compaction and
// the memory-bank assistant.
func memoryCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "memory", Aliases: []string{"memory-banks"}, Short: "Manage memory banks, compact them, and ask the memory-bank assistant"}
	show := func(cmd *cobra.Command, b *client.MemoryBank) error {
		return a.print(cmd, b, func(w io.Writer) error {
			return writeFields(w, [][2]string{{"ID", b.ID}, {"Name", b.Name}, {"Type", b.Type}, {"Mode", b.Mode},
				{"Source", deref(b.SourceConnectionID)}, {"Retention days", itoaPtr(b.RetentionDays)}, {"Max turns", itoaPtr(b.MaxTurns)},
				{"Max tokens", itoaPtr(b.MaxSizeTokens)}, {"Max age days", itoaPtr(b.MaxAgeDays)}})
		})
	}
	var (
		desc, typ, mode, model, prompt                  string
		dims, size, overlap, retention, turns, tok, age int
	)
	thresholds := func(c *cobra.Command) {
		c.Flags().StringVar(&desc, "description", "", "description")
		c.Flags().StringVar(&prompt, "compaction-prompt", "", "prompt compaction summarises with")
		c.Flags().IntVar(&retention, "retention-days", 0, "days entries are kept")
		c.Flags().IntVar(&turns, "max-turns", 0, "compact a partition past this many entries")
		c.Flags().IntVar(&tok, "max-size-tokens", 0, "compact a partition past this many tokens")
		c.Flags().IntVar(&age, "max-age-days", 0, "compact entries older than this")
	}
	create := &cobra.Command{
		Use: "create NAME", Short: "Create a memory bank", Args: exactArgs(1),
		Example: `  agentry memory create "Support chats" --type conversation --max-turns 200 --retention-days 90
  agentry memory create Facts --type general --mode balanced`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			b, err := c.CreateMemoryBank(cmd.Context(), client.CreateMemoryBankRequest{Name: args[0], Type: typ, Mode: mode,
				Description: optString(cmd, "description", desc), CompactionPrompt: optString(cmd, "compaction-prompt", prompt),
				EmbeddingModel: optString(cmd, "embedding-model", model), Dimensions: optInt(cmd, "dimensions", dims),
				ChunkSize: optInt(cmd, "chunk-size", size), ChunkOverlap: optInt(cmd, "chunk-overlap", overlap),
				RetentionDays: optInt(cmd, "retention-days", retention), MaxTurns: optInt(cmd, "max-turns", turns),
				MaxSizeTokens: optInt(cmd, "max-size-tokens", tok), MaxAgeDays: optInt(cmd, "max-age-days", age)})
			if err != nil {
				return err
			}
			return show(cmd, b)
		},
	}
	thresholds(create)
	create.Flags().StringVar(&typ, "type", "", "conversation (default) or general")
	create.Flags().StringVar(&mode, "mode", "", "fast_and_cheap (default), balanced, slow_and_thorough or custom")
	create.Flags().StringVar(&model, "embedding-model", "", "embedding model (custom mode)")
	create.Flags().IntVar(&dims, "dimensions", 0, "embedding dimensions (custom mode)")
	create.Flags().IntVar(&size, "chunk-size", 0, "chunk size (custom mode)")
	create.Flags().IntVar(&overlap, "chunk-overlap", 0, "chunk overlap (custom mode)")
	var newName string
	update := &cobra.Command{
		Use: "update BANK_ID", Short: "Change a memory bank (0 or \"\" clears a setting)", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			b, err := c.UpdateMemoryBank(cmd.Context(), args[0], client.UpdateMemoryBankRequest{Name: optString(cmd, "name", newName),
				Description: optString(cmd, "description", desc), CompactionPrompt: optString(cmd, "compaction-prompt", prompt),
				RetentionDays: optInt(cmd, "retention-days", retention), MaxTurns: optInt(cmd, "max-turns", turns),
				MaxSizeTokens: optInt(cmd, "max-size-tokens", tok), MaxAgeDays: optInt(cmd, "max-age-days", age)})
			if err != nil {
				return err
			}
			return show(cmd, b)
		},
	}
	thresholds(update)
	update.Flags().StringVar(&newName, "name", "", "new name")
	var listType string
	list := &cobra.Command{
		Use: "list", Short: "List memory banks", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListMemoryBanks(cmd.Context(), client.MemoryBankListOptions{Limit: 100, Type: listType})
			if err != nil {
				return err
			}
			return a.print(cmd, p.Items, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, b := range p.Items {
					rows[i] = []string{b.ID, b.Name, b.Type, b.Mode}
				}
				return writeTable(w, []string{"ID", "NAME", "TYPE", "MODE"}, rows)
			})
		},
	}
	list.Flags().StringVar(&listType, "type", "", "only conversation or general banks")
	get := &cobra.Command{
		Use: "get BANK_ID", Short: "Show a memory bank", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			b, err := c.GetMemoryBank(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return show(cmd, b)
		},
	}
	simple := func(use, short string, fn func(cmd *cobra.Command, c *client.Client, id string) error) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: exactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			return fn(cmd, c, args[0])
		}}
	}
	del := simple("delete BANK_ID", "Delete a memory bank no agent uses", func(cmd *cobra.Command, c *client.Client, id string) error {
		if err := c.DeleteMemoryBank(cmd.Context(), id); err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), "deleted", id)
		return nil
	})
	reset := simple("reset BANK_ID", "Delete every entry of a bank and its source (DELETE …/source)", func(cmd *cobra.Command, c *client.Client, id string) error {
		if err := c.DeleteMemoryBankSource(cmd.Context(), id); err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), "reset", id)
		return nil
	})
	agents := simple("agents BANK_ID", "List the agents using a bank", func(cmd *cobra.Command, c *client.Client, id string) error {
		list, err := c.MemoryBankAgents(cmd.Context(), id)
		if err != nil {
			return err
		}
		return a.print(cmd, list, func(w io.Writer) error {
			rows := make([][]string, len(list))
			for i, g := range list {
				rows[i] = []string{g.AgentID, g.AgentName}
			}
			return writeTable(w, []string{"AGENT ID", "NAME"}, rows)
		})
	})
	compact := simple("compact BANK_ID", "Queue a compaction of the bank now", func(cmd *cobra.Command, c *client.Client, id string) error {
		r, err := c.CompactMemoryBank(cmd.Context(), id)
		if err != nil {
			return err
		}
		return a.print(cmd, r, func(w io.Writer) error {
			return writeFields(w, [][2]string{{"Bank", r.MemoryBankID}, {"Status", r.Status}})
		})
	})
	var days int
	var from, to string
	stats := simple("stats BANK_ID", "Show entry statistics of a bank", func(cmd *cobra.Command, c *client.Client, id string) error {
		st, err := c.MemoryBankStats(cmd.Context(), id, client.MemoryBankStatsOptions{Days: days, StartDate: from, EndDate: to})
		if err != nil {
			return err
		}
		return a.print(cmd, st, func(w io.Writer) error {
			return writeFields(w, [][2]string{{"Entries", fmt.Sprint(st["total_entries"])}, {"Tokens", fmt.Sprint(st["total_tokens"])},
				{"Keys", fmt.Sprint(st["distinct_keys"])}, {"Summaries", fmt.Sprint(st["summary_entries"])}})
		})
	})
	stats.Flags().IntVar(&days, "days", 0, "days back (default 30)")
	stats.Flags().StringVar(&from, "start-date", "", "first day, YYYY-MM-DD")
	stats.Flags().StringVar(&to, "end-date", "", "last day, YYYY-MM-DD")
	templates := &cobra.Command{
		Use: "templates", Short: "List ready-made bank settings", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			list, err := c.MemoryBankTemplates(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(cmd, list, func(w io.Writer) error {
				rows := make([][]string, len(list))
				for i, t := range list {
					rows[i] = []string{fmt.Sprint(t["name"]), fmt.Sprint(t["description"])}
				}
				return writeTable(w, []string{"NAME", "DESCRIPTION"}, rows)
			})
		},
	}
	var (
		samples             []string
		direction, bankType string
		count               int
	)
	testCompaction := &cobra.Command{
		Use:   "test-compaction [BANK_ID]",
		Short: "Dry-run a compaction prompt on a bank's entries, or (no bank) on --sample entries",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			req := client.TestCompactionRequest{CompactionPrompt: optString(cmd, "compaction-prompt", prompt), SampleEntries: samples,
				GenerateDirection: optString(cmd, "generate", direction), EntryCount: count, BankType: bankType}
			var r *client.CompactionTest
			if len(args) == 1 {
				r, err = c.TestMemoryBankCompaction(cmd.Context(), args[0], req)
			} else {
				r, err = c.TestCompaction(cmd.Context(), req)
			}
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error {
				sum := ""
				if r.CompactionSummary != nil {
					sum = *r.CompactionSummary
				}
				return writeFields(w, [][2]string{{"Summary", sum}, {"Verdict", r.Evaluation.Verdict}, {"Score", strconv.Itoa(r.Evaluation.Score)},
					{"Reasoning", r.Evaluation.Reasoning}})
			})
		},
	}
	testCompaction.Flags().StringVar(&prompt, "compaction-prompt", "", "prompt to test (default: the bank's)")
	testCompaction.Flags().StringSliceVar(&samples, "sample", nil, "a sample entry (repeat)")
	testCompaction.Flags().StringVar(&direction, "generate", "", "have the model generate sample entries following this direction")
	testCompaction.Flags().IntVar(&count, "entry-count", 0, "entries to generate (2–20)")
	testCompaction.Flags().StringVar(&bankType, "bank-type", "", "conversation or general (no bank)")
	cmd.AddCommand(create, update, list, get, del, reset, agents, compact, stats, a.memoryEntries(), a.memoryKeys(), templates, testCompaction, memoryAssistantCommand(a))
	return cmd
}

// memoryAssistantCommand is `agentry memory assistant …`.
func memoryAssistantCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "assistant", Short: "Describe a memory bank and get settings proposed"}
	ask := &cobra.Command{
		Use: "ask DESCRIPTION", Short: "Propose bank settings from a description", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.MemoryAssistant(cmd.Context(), client.MemoryAssistantRequest{UserInput: args[0]})
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Conversation", r.ConversationID}, {"Note", r.Note}, {"Name", fmt.Sprint(r.Config["name"])},
					{"Type", fmt.Sprint(r.Config["type"])}, {"Mode", fmt.Sprint(r.Config["mode"])}})
			})
		},
	}
	var limit, offset int
	history := &cobra.Command{
		Use: "history", Short: "Show your latest assistant turns", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.MemoryAssistantHistory(cmd.Context(), limit, offset)
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error {
				rows := make([][]string, len(r.Turns))
				for i, t := range r.Turns {
					acc := ""
					if t.Accepted != nil {
						acc = strconv.FormatBool(*t.Accepted)
					}
					rows[i] = []string{t.ConversationID, t.UserInput, acc}
				}
				return writeTable(w, []string{"CONVERSATION", "INPUT", "ACCEPTED"}, rows)
			})
		},
	}
	history.Flags().IntVar(&limit, "limit", 0, "turns (1–50, default 5)")
	history.Flags().IntVar(&offset, "offset", 0, "newest turns to skip")
	decide := func(use, short string, accepted bool) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: exactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DecideMemoryAssistant(cmd.Context(), args[0], accepted); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), map[bool]string{true: "accepted", false: "declined"}[accepted], args[0])
			return nil
		}}
	}
	cmd.AddCommand(ask, history, decide("accept CONVERSATION_ID", "Accept a proposal: the bank is created (or updated)", true),
		decide("decline CONVERSATION_ID", "Decline a proposal", false))
	return cmd
}
