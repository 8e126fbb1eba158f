package web_test

import (
	"regexp"
	"testing"
)

// regexpFind returns the first group of pattern in s, failing the test
// when it does not match.
func regexpFind(t testing.TB, s, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in:\n%s", pattern, s)
	}
	return m[1]
}
