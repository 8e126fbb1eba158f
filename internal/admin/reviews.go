package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/spf13/cobra"
)

// reviewsCommand lets operators decide human_in_the_loop steps: the API
// contract has no operation for it, and a parked run otherwise waits for
// its deadline's on_timeout policy.
func reviewsCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "reviews", Short: "List and decide runs waiting for a human review"}
	var account string
	list := &cobra.Command{
		Use: "list", Short: "List undecided reviews, oldest first",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			// Rows that cannot be read are reported after the others.
			rs, readErr := runs.OpenReviews(ctx, db, account, 500)
			if readErr != nil && len(rs) == 0 {
				return readErr
			}
			var rows [][]string
			var js []map[string]any
			for _, r := range rs {
				rows = append(rows, []string{r.RunID, r.StepKey, r.AccountID, r.Deadline.Format(time.RFC3339), r.OnTimeout, r.Instructions})
				js = append(js, map[string]any{"run_id": r.RunID, "step_key": r.StepKey, "account_id": r.AccountID, "instructions": r.Instructions,
					"content": r.Content, "requested_at": r.RequestedAt, "deadline": r.Deadline, "on_timeout": r.OnTimeout})
			}
			if err := o.print(out, js, []string{"RUN", "STEP", "ACCOUNT", "DEADLINE", "ON TIMEOUT", "INSTRUCTIONS"}, rows); err != nil {
				return err
			}
			return readErr
		}),
	}
	list.Flags().StringVar(&account, "account", "", "only this account's reviews")
	o.printsTable(list)
	var approve, reject bool
	var edited, comment string
	decide := &cobra.Command{
		Use: "decide RUN_ID STEP_KEY (--approve [--edited TEXT] | --reject)", Short: "Approve or reject a review; the run resumes",
		Example: "  agentry admin reviews decide 0190… review --approve\n  agentry admin reviews decide 0190… review --reject",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if approve == reject {
				return errors.New("give exactly one of --approve or --reject")
			}
			// The decision resumes the run through the runs service the
			// server assembles, so it is recorded and enqueued exactly as
			// an API decision is; the serving processes work the job.
			ctx := cmd.Context()
			cfg, err := o.serverConfig()
			if err != nil {
				return err
			}
			srv, err := server.Operator(ctx, cfg)
			if err != nil {
				return err
			}
			defer srv.Close(context.Background())
			out, svc := cmd.OutOrStdout(), srv.Runs
			r, err := svc.Repo.RunForWorker(ctx, args[0])
			if err != nil {
				return notFound(err, "run", args[0])
			}
			if _, err := svc.Decide(ctx, r.AccountID, r.ID, args[1], runs.Decision{Approved: approve, Edited: edited, Comment: comment}); err != nil {
				switch {
				case errors.Is(err, runs.ErrReviewDecided):
					return fmt.Errorf("review %s of run %s is already decided", args[1], r.ID)
				case errors.Is(err, runs.ErrReviewRunFinished), errors.Is(err, runs.ErrEditNotAllowed):
					return err
				}
				return notFound(err, "review "+args[1]+" of run", r.ID)
			}
			fmt.Fprintf(out, "decided; run %s resumes\n", r.ID)
			return nil
		},
	}
	decide.Flags().BoolVar(&approve, "approve", false, "approve: the content (or --edited) flows on")
	decide.Flags().BoolVar(&reject, "reject", false, "reject: the branch ends")
	decide.Flags().StringVar(&edited, "edited", "", "the reviewer's edited content, for steps that allow edits")
	decide.Flags().StringVar(&comment, "comment", "", "why, kept with the decision")
	cmd.AddCommand(list, decide)
	return cmd
}
