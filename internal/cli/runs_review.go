package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// runsReview is `agentry runs review …`: listing and deciding the human
// reviews runs wait on (an Agentry extension of the API).
func (a *App) runsReview() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "List and decide the human reviews runs wait on",
		Long: `A run reaching a human_in_the_loop step parks (status waiting_human) until
one of the account's owners or admins, or a user the step names in
assignee_user_ids, approves or rejects it. These commands use Agentry's
review extension of the API. See docs/runs.md.`,
	}
	cmd.AddCommand(a.runsReviewList(), a.runsReviewDecide(client.DecisionApprove), a.runsReviewDecide(client.DecisionReject))
	return cmd
}

func (a *App) runsReviewList() *cobra.Command {
	var (
		o   client.ReviewListOptions
		all bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the pending reviews you may decide, oldest first",
		Long: `List the undecided reviews you may decide, oldest first: one page (--page,
--limit), or all with --all. JSON output is an array of reviews.`,
		Example: `  agentry runs review list -o table
  agentry runs review list --run 0190…`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.RunReview{}
			if all {
				for rv, err := range c.PendingReviews(cmd.Context(), o) {
					if err != nil {
						return err
					}
					items = append(items, rv)
				}
			} else {
				p, err := c.ListPendingReviews(cmd.Context(), o)
				if err != nil {
					return err
				}
				items = append(items, p.Items...)
				if p.HasNext {
					fmt.Fprintf(cmd.ErrOrStderr(), "page %d of %d (%d reviews): --page %d for more, or --all\n", p.Page, p.Pages, p.Total, p.Page+1)
				}
			}
			return a.print(cmd, items, func(w io.Writer) error { return reviewsTable(w, items) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.RunID, "run", "", "only this run's reviews")
	f.IntVar(&o.Page, "page", 1, "page to show")
	f.IntVar(&o.Limit, "limit", 50, "reviews per page (at most 100)")
	f.BoolVar(&all, "all", false, "list every review, fetching page after page")
	return cmd
}

// runsReviewDecide is `runs review approve` or `runs review reject`.
func (a *App) runsReviewDecide(decision string) *cobra.Command {
	var (
		req                  client.ReviewDecisionRequest
		edited, editedFile   string
		short, long, example string
	)
	if decision == client.DecisionApprove {
		short = "Approve a review: the run continues with the content (or your edit)"
		long = `Approve the review a run waits on; the run continues, passing on the content,
or with --edited / --edited-file your edited version (steps with allow_edit).
--step names the review when the run waits on several.`
		example = `  agentry runs review approve 0190… --comment "checked the figures"
  agentry runs review approve 0190… --edited-file fixed.md`
	} else {
		short = "Reject a review: the step's branch ends"
		long = `Reject the review a run waits on; the run continues without the step's
branch. --step names the review when the run waits on several.`
		example = `  agentry runs review reject 0190… --comment "wrong customer"`
	}
	cmd := &cobra.Command{
		Use:     decision + " RUN_ID",
		Short:   short,
		Long:    long,
		Example: example,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Decision = decision
			switch {
			case edited != "" && editedFile != "":
				return usageErrorf("give --edited or --edited-file, not both")
			case editedFile == "-":
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				s := string(b)
				req.EditedContent = &s
			case editedFile != "":
				b, err := os.ReadFile(editedFile)
				if err != nil {
					return usageErrorf("%v", err)
				}
				s := string(b)
				req.EditedContent = &s
			case edited != "":
				req.EditedContent = &edited
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			rv, err := c.DecideReview(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return a.print(cmd, rv, func(w io.Writer) error { return reviewsTable(w, []client.RunReview{*rv}) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.StepKey, "step", "", "the review's step key, when the run waits on several")
	f.StringVar(&req.Comment, "comment", "", "why; kept with the decision")
	if decision == client.DecisionApprove {
		f.StringVar(&edited, "edited", "", "the content to pass on instead (steps with allow_edit)")
		f.StringVar(&editedFile, "edited-file", "", "read the edited content from a file (- for stdin)")
	}
	return cmd
}

func reviewsTable(w io.Writer, rs []client.RunReview) error {
	rows := make([][]string, len(rs))
	for i, r := range rs {
		rows[i] = []string{r.RunID, r.StepKey, r.Status, r.Deadline, runsCell(r.Instructions, 40), runsCell(r.Content, 40)}
	}
	return writeTable(w, []string{"Run ID", "Step", "Status", "Deadline", "Instructions", "Content"}, rows)
}
