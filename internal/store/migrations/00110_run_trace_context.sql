-- +goose Up
-- runs.trace_context is the run's trace context (internal/telemetry
-- RunTrace): the W3C traceparent of the run's span, chosen when the run
-- is created, then the id of its parent span. Every replica that works on
-- the run, and every later attempt of it, hangs its spans under it, so one
-- run is one trace. NULL for runs created before it existed.
ALTER TABLE runs ADD COLUMN trace_context TEXT;

-- +goose Down
ALTER TABLE runs DROP COLUMN trace_context;
