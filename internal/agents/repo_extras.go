package agents

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/solutions/solutionrow"
	"github.com/agentry/agentry/internal/store"
)

// The extras an agent's export reads back and its import looks up: its
// evaluation criteria and the solutions it belongs to. They are the
// evaluations' and the solutions' tables, so they are asked of those
// areas' leaf packages (evalrow, solutionrow), which take this area's
// querier; the import writes them with the agent, in its transaction
// (insertExtras, from CreateAgent). Each criterion keeps the keys of an
// imported item this version does not model in Extra, so nothing of a
// payload is lost on a round trip.

// Solution is a solution of the account as an agent's import links it and
// its export names it: the solutions area's row.
type Solution = solutionrow.Solution

// extrasRepo reads an agent's extras.
type extrasRepo struct{ db *store.DB }

func (s *Service) extras() extrasRepo { return extrasRepo{s.db} }

// criteria lists the evaluation criteria of an agent, oldest first.
func (q extrasRepo) criteria(ctx context.Context, accountID, agentID string) ([]evalrow.Criterion, error) {
	return evalrow.AgentCriteria(ctx, q.db.R, accountID, agentID)
}

// solutionsNamed finds the account's solutions with exactly these names;
// the result maps a name to the oldest solution of that name.
func (q extrasRepo) solutionsNamed(ctx context.Context, accountID string, names []string) (map[string]Solution, error) {
	return solutionrow.Named(ctx, q.db.R, accountID, names)
}

// agentSolutions lists the solutions an agent belongs to, by name.
func (q extrasRepo) agentSolutions(ctx context.Context, accountID, agentID string) ([]Solution, error) {
	return solutionrow.OfAgent(ctx, q.db.R, accountID, agentID)
}

// insertExtras writes an import's evaluation criteria and solution links
// in the transaction that creates the agent.
func insertExtras(ctx context.Context, tx *sql.Tx, a Agent, in NewAgent, now time.Time) error {
	for _, c := range in.EvaluationCriteria {
		c.ID, c.AccountID, c.AgentID = store.NewID(), a.AccountID, a.ID
		if err := evalrow.InsertCriterion(ctx, tx, c, now); err != nil {
			return err
		}
	}
	for _, sid := range in.SolutionIDs {
		if err := solutionrow.LinkAgent(ctx, tx, a.AccountID, sid, a.ID, now); err != nil {
			return err
		}
	}
	return nil
}
