package server_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/server"
)

// TestBootstrapKeyLength: a chosen owner key shorter than 32 characters, or
// one with spaces, is refused at start with an error that says why.
func TestBootstrapKeyLength(t *testing.T) {
	for key, want := range map[string]string{
		"short":                                 "at least 32",
		"agk_0123456789abcdef0123456789a":       "at least 32", // 31
		"agk_0123456789 abcdef0123456789abcdef": "spaces",
	} {
		c := server.Defaults()
		c.BootstrapAPIKey = key
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "SERVICE_BOOTSTRAP_API_KEY") {
			t.Errorf("bootstrap key %q: %v, want an error naming SERVICE_BOOTSTRAP_API_KEY and %q", key, err, want)
		}
	}
	for _, key := range []string{"", "agk_0123456789abcdef0123456789ab"} { // random; exactly 32
		c := server.Defaults()
		c.BootstrapAPIKey = key
		if err := c.Validate(); err != nil {
			t.Errorf("bootstrap key %q: %v", key, err)
		}
	}
}

// TestVersionHeadersSetting: SERVICE_VERSION_HEADERS must hold valid header
// names; a bad one stops the start with an error naming the setting.
func TestVersionHeadersSetting(t *testing.T) {
	c := server.Defaults()
	c.VersionHeaders = "X-Custom-Version, X-Other-Version"
	if err := c.Validate(); err != nil {
		t.Errorf("valid names: %v", err)
	}
	c.VersionHeaders = "X-Custom-Version, Bad Name"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "SERVICE_VERSION_HEADERS") {
		t.Errorf("bad name: %v", err)
	}
}
