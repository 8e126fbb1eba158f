package admin

import (
	"context"
	"io"
	"time"

	"github.com/agentry/agentry/internal/solutions"
	"github.com/agentry/agentry/internal/store"
	"github.com/spf13/cobra"
)

// feedbackCommand lists assistant feedback the solutions area flagged
// (negative feedback whose comment reports harm, leaked data, destroyed
// resources, a security or billing problem): what operators review.
func feedbackCommand(o *options) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use: "assistant-feedback", Short: "List flagged AI assistant feedback, newest first",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			// The solutions area owns the feedback; listing it needs none of
			// the service's other parts (agents, the assistant model).
			fs, err := solutions.New(db, nil, nil, "").FlaggedFeedback(ctx, min(max(limit, 1), 1000))
			if err != nil {
				return err
			}
			var rows [][]string
			var js []map[string]any
			for _, f := range fs {
				comment, reason := "", ""
				if f.Comment != nil {
					comment = *f.Comment
				}
				if f.FlagReason != nil {
					reason = *f.FlagReason
				}
				rows = append(rows, []string{f.ID, f.AccountID, f.Feature, f.CreatedAt.Format(time.RFC3339), reason, comment})
				js = append(js, map[string]any{"feedback_id": f.ID, "account_id": f.AccountID, "user_id": f.UserID, "feature": f.Feature,
					"rating": f.Rating, "comment": f.Comment, "flag_reason": f.FlagReason, "created_at": f.CreatedAt})
			}
			return o.print(out, js, []string{"FEEDBACK", "ACCOUNT", "FEATURE", "AT", "REASON", "COMMENT"}, rows)
		}),
	}
	cmd.Flags().IntVar(&limit, "limit", 100, "how many (up to 1000)")
	o.printsTable(cmd)
	return cmd
}
