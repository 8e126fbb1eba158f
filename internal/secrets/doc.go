// Package secrets owns account secrets: write-only values an account
// stores on the server (S3 keys, tokens for outbound calls) and that
// definitions name as {{secrets.NAME}} instead of holding them. Values are
// sealed with AES-256-GCM under the server's secrets key before they are
// stored, each bound to its account and name, and are only ever opened to
// be used by a step of that account's runs: the API lists names and times,
// never values, and nothing logs, exports, streams or echoes them.
package secrets
