-- +goose Up
-- Solutions (the table and its agent links came with the agents area in
-- 00004) also group knowledge bases and sources; the assistants keep their
-- conversations (plans proposed, accepted or declined, and what accepting
-- did), the agent assistant its per-step turns, and feedback on any of them.

CREATE TABLE solution_knowledge_bases (
    solution_id       TEXT NOT NULL REFERENCES solutions (id) ON DELETE CASCADE,
    knowledge_base_id TEXT NOT NULL,
    account_id        TEXT NOT NULL,
    created_at        DATETIME NOT NULL,
    PRIMARY KEY (solution_id, knowledge_base_id)
);
CREATE INDEX solution_knowledge_bases_kb ON solution_knowledge_bases (knowledge_base_id);

CREATE TABLE solution_sources (
    solution_id TEXT NOT NULL REFERENCES solutions (id) ON DELETE CASCADE,
    source_id   TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (solution_id, source_id)
);
CREATE INDEX solution_sources_source ON solution_sources (source_id);

-- One turn of a planning assistant. solution_id is NULL for the standalone
-- assistants; kind is solution, knowledge_base, source or manual (a turn
-- added through POST /solutions/{id}/conversations). actions is the JSON
-- plan (or the caller's actions_taken); results what accepting did.
CREATE TABLE assistant_conversations (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    solution_id TEXT REFERENCES solutions (id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,
    user_input  TEXT NOT NULL,
    ai_response TEXT,
    actions     TEXT,
    accepted    BOOLEAN,
    results     TEXT,
    created_at  DATETIME NOT NULL,
    decided_at  DATETIME
);
CREATE INDEX assistant_conversations_account ON assistant_conversations (account_id, solution_id, created_at);

-- One turn of the agent assistant: generate-steps (step_type
-- "agent_workflow") or step-config for one step.
CREATE TABLE agent_assistant_turns (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    agent_id         TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    step_type        TEXT NOT NULL,
    step_id          TEXT,
    user_input       TEXT NOT NULL,
    ai_note          TEXT,
    resulting_config TEXT,
    accepted         BOOLEAN,
    created_at       DATETIME NOT NULL
);
CREATE INDEX agent_assistant_turns_agent ON agent_assistant_turns (account_id, agent_id, step_type, created_at);

-- Thumbs up or down on an assistant's answer; flagged negative feedback is
-- what operators review (agentry admin assistant-feedback).
CREATE TABLE assistant_feedback (
    id                    TEXT PRIMARY KEY,
    account_id            TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id               TEXT NOT NULL DEFAULT '',
    feature               TEXT NOT NULL,
    rating                TEXT NOT NULL,
    comment               TEXT,
    conversation_id       TEXT,
    agent_conversation_id TEXT,
    prompt_call_id        TEXT,
    context               TEXT,
    flagged               BOOLEAN NOT NULL,
    flag_reason           TEXT,
    created_at            DATETIME NOT NULL
);
CREATE INDEX assistant_feedback_flagged ON assistant_feedback (flagged, created_at);
CREATE INDEX assistant_feedback_account ON assistant_feedback (account_id, created_at);

-- +goose Down
DROP TABLE assistant_feedback;
DROP TABLE agent_assistant_turns;
DROP TABLE assistant_conversations;
DROP TABLE solution_sources;
DROP TABLE solution_knowledge_bases;
