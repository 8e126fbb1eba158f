-- +goose Up
-- The account's default model (an extension): the catalog model prompt
-- steps that name none are answered by, over the server's default. NULL:
-- the server's default.
ALTER TABLE accounts ADD COLUMN default_model TEXT;

-- +goose Down
ALTER TABLE accounts DROP COLUMN default_model;
