-- +goose Up
-- Account secrets: write-only values (credentials a step signs with),
-- sealed by the server's secrets key before they reach this table. The
-- ciphertext is bound to its account and name, so a row copied elsewhere
-- does not open; key_id tells which key sealed it.
CREATE TABLE account_secrets (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    ciphertext TEXT NOT NULL, -- base64
    key_id     TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    PRIMARY KEY (account_id, name)
);

-- +goose Down
DROP TABLE account_secrets;
