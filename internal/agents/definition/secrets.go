package definition

import (
	"regexp"
	"strings"
)

// Account secrets are write-only values an account stores on the server
// (credentials, tokens). A definition never holds one: it names it, as
// {{secrets.NAME}}, in the few fields that take credentials, and the engine
// resolves the name for the run's account when the step runs. A definition
// is exported and shown in clear, so the value never appears in it.

// secretName is the rule every secret name follows: an identifier, so that
// {{secrets.NAME}} reads unambiguously.
var secretName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// MaxSecretNameLength bounds a secret's name.
const MaxSecretNameLength = 64

// ValidSecretName reports whether name may name an account secret: a letter
// or underscore, then up to 63 letters, digits or underscores.
func ValidSecretName(name string) bool { return secretName.MatchString(name) }

// SecretRef returns NAME when s is exactly one reference {{secrets.NAME}}
// (spaces inside the braces allowed) to a validly named secret.
func SecretRef(s string) (string, bool) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(s), "{{")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, "}}")
	if !ok {
		return "", false
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(inner), "secrets.")
	if !ok || !ValidSecretName(name) {
		return "", false
	}
	return name, true
}
