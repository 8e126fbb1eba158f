// Package protect owns inbound mail protection: the account blocklist and
// its governance auto-block mode, the record of discarded messages, the
// account-wide overload circuit breaker, and the checks a message passes
// before it may start a run (sender authentication by SPF, DKIM and
// DMARC alignment; machine-generated mail; spam and virus verdicts an
// upstream filter wrote into the headers; the sender allowlist).
package protect
