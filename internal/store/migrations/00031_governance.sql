-- +goose Up
-- Conversations with the governance assistant: the request, the plan it
-- proposed (JSON list of actions) and, once decided, whether it was
-- accepted and what each action did.
CREATE TABLE governance_conversations (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id          TEXT,
    user_input       TEXT NOT NULL,
    ai_response      TEXT,
    proposed_actions TEXT NOT NULL,
    accepted         BOOLEAN,
    results          TEXT,
    created_at       DATETIME NOT NULL,
    decided_at       DATETIME
);
CREATE INDEX governance_conversations_account ON governance_conversations (account_id, created_at);

-- What governance policies caught: one row per flag or block, with where
-- (run input or a step's output) and which rule. The matched text itself is
-- never stored: it may be the very data the policy protects.
CREATE TABLE governance_violations (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id    TEXT,
    run_id      TEXT,
    step_id     TEXT,
    policy_id   TEXT,
    stage       TEXT NOT NULL,
    action      TEXT NOT NULL,
    rule        TEXT NOT NULL,
    reason      TEXT NOT NULL,
    occurred_at DATETIME NOT NULL
);
CREATE INDEX governance_violations_account ON governance_violations (account_id, occurred_at);

-- +goose Down
DROP TABLE governance_violations;
DROP TABLE governance_conversations;
