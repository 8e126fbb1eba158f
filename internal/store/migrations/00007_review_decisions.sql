-- +goose Up
-- Who may decide a review and how it was decided (the review extension of
-- the API), and whether the run has taken the decision in (consumed_at):
-- a parked run with a decided, unconsumed review is one to resume.
ALTER TABLE run_reviews ADD COLUMN assignee_user_ids TEXT NOT NULL DEFAULT '[]';
ALTER TABLE run_reviews ADD COLUMN allow_edit BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE run_reviews ADD COLUMN comment TEXT;
ALTER TABLE run_reviews ADD COLUMN decided_by TEXT;
ALTER TABLE run_reviews ADD COLUMN timed_out BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE run_reviews ADD COLUMN consumed_at DATETIME;
CREATE INDEX run_reviews_account_open ON run_reviews (account_id, decided_at, requested_at);

-- +goose Down
DROP INDEX run_reviews_account_open;
ALTER TABLE run_reviews DROP COLUMN consumed_at;
ALTER TABLE run_reviews DROP COLUMN timed_out;
ALTER TABLE run_reviews DROP COLUMN decided_by;
ALTER TABLE run_reviews DROP COLUMN comment;
ALTER TABLE run_reviews DROP COLUMN allow_edit;
ALTER TABLE run_reviews DROP COLUMN assignee_user_ids;
