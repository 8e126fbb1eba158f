package evals

import (
	"encoding/json"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// On SQLite, the judgments journaled with a step attempt are stored
// compressed: S2 (a Snappy variant) against a dictionary of typical
// judgments, which takes a deterministic judgment of about 550 bytes of
// JSON to 80–160 in about a microsecond. Every byte of a step's row is
// written by the database's one writer, which every run of the server
// waits for (as a WAL frame, then again by the checkpoint), and judgments
// made most of a judged step's row. Rows written before (plain JSON)
// still read; PostgreSQL keeps plain JSON in its TEXT column. zstd packs
// them as small, but reloading its dictionary cost about 12 µs a value in
// the server.
//
// A stored value starts with the number of the dictionary it was packed
// with, so a better dictionary is added under a new number, never edited
// in place.

// judgmentsDict1Tag starts a value packed with judgmentsDict1; JSON starts
// with '['.
const judgmentsDict1Tag = 0x01

// judgmentsDict1 holds what judgments are made of: the journal's keys,
// the expectation checks' details and the explanations evals writes.
// Content later in a dictionary is cheaper to refer to, so the commonest
// (a passing deterministic judgment) comes last.
const judgmentsDict1 = `"evaluation_mode":"sample_and_flag","status":"failed","score":0,"flagged":true,"retry_triggered":true,"retry_count":1,` +
	`"details":{"checks":[],"explanation":"The judge (agentry_offline) scored 0.40: the output does not answer the question.","judge_model":"agentry_offline","judge_score":0.4,"pass_threshold":0.7}}]` +
	`{"check":"is_json","passed":false,"detail":"the output is not valid JSON: invalid character"},` +
	`{"check":"json_schema","passed":true,"detail":"the output is JSON valid against the schema"},` +
	`{"check":"json_schema","passed":false,"detail":"the output does not match the schema: at '': missing property 'name'"},` +
	`{"check":"regex","passed":true,"detail":"the output matches /^[A-Z]/"},{"check":"not_regex","passed":false,"detail":"the output matches /\\d+/, which it must not"},` +
	`{"check":"contains","passed":false,"detail":"the output does not contain \"total\""},{"check":"not_contains","passed":false,"detail":"the output contains \"secret\", which it must not"},` +
	`{"check":"equals","passed":false,"detail":"the output differs from the expected text"},{"check":"equals","passed":true,"detail":"the output equals the expected text"},` +
	`{"check":"max_length","passed":true,"detail":"the output has 120 characters (at most 500 allowed)"},` +
	`{"check":"numeric_range","passed":true,"detail":"the value 42 is within the range [0, 100]"},{"check":"numeric_range","passed":false,"detail":"the value 142 is outside the range [0, 100]"},` +
	`"explanation":"1 of 2 expectation checks passed. Score 0.50 against a pass threshold of 1.00: failed.","pass_threshold":1}},` +
	`"explanation":"The criterion has neither an evaluation prompt nor expectation checks: nothing to judge.","pass_threshold":1}},` +
	`"explanation":"2 of 2 expectation checks passed. The judge (agentry_offline) scored 0.90: the output answers the question. Score 0.95 against a pass threshold of 0.70: passed.",` +
	`"judge_model":"agentry_offline","judge_score":0.9,"pass_threshold":0.7}},` +
	`[{"id":"01a21005-b35a-798c-8e68-9a1e2bd8a1d5","criteria_id":"01a21005-b350-7b47-ab85-2dd4b87228d5","evaluation_mode":"eval_and_retry","status":"passed","score":1,` +
	`"evaluated_at":"2026-11-25T00:05:38.778626Z","details":{"checks":[{"check":"contains","passed":true,"detail":"the output contains \"total\""},` +
	`{"check":"not_contains","passed":true,"detail":"the output does not contain \"confidential\""},` +
	`{"check":"min_length","passed":true,"detail":"the output has 30 characters (at least 1 wanted)"}],` +
	`"explanation":"2 of 2 expectation checks passed. Score 1.00 against a pass threshold of 1.00: passed.","pass_threshold":1}}]`

// maxJudgmentsBytes bounds what one stored value may expand to (the
// engine writes a few kilobytes at most).
const maxJudgmentsBytes = 16 << 20

var judgmentsS2Dict1 = s2.MakeDict([]byte(judgmentsDict1), nil)

// PackJudgments packs judgments (a JSON array) as SQLite keeps them;
// a value packed already, or empty, is returned as it is. The server
// builds the runs area's repository with it (runs.NewRepo), whose
// FinishStep and the runs' journal pack with it on SQLite only.
func PackJudgments(js json.RawMessage) json.RawMessage {
	if len(js) == 0 || js[0] == judgmentsDict1Tag {
		return js
	}
	out := make([]byte, 1+s2.MaxEncodedLen(len(js)))
	out[0] = judgmentsDict1Tag
	return out[:1+len(judgmentsS2Dict1.Encode(out[1:], js))]
}

// unpackJudgments returns the JSON of a stored value, packed or not.
func unpackJudgments(stored []byte) ([]byte, error) {
	if len(stored) == 0 || stored[0] != judgmentsDict1Tag {
		return stored, nil
	}
	n, err := s2.DecodedLen(stored[1:])
	if err != nil {
		return nil, fmt.Errorf("stored judgments do not unpack: %w", err)
	}
	if n > maxJudgmentsBytes {
		return nil, fmt.Errorf("stored judgments expand beyond %d bytes", maxJudgmentsBytes)
	}
	plain, err := judgmentsS2Dict1.Decode(make([]byte, n), stored[1:])
	if err != nil {
		return nil, fmt.Errorf("stored judgments do not unpack: %w", err)
	}
	return plain, nil
}
