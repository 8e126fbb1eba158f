package server

import "strings"

// ConsoleURL is the address people reach the console at: --public-url
// when set, else the listen address (127.0.0.1 for a bare ":port").
func (c Config) ConsoleURL() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	if strings.HasPrefix(c.Addr, ":") {
		return "http://127.0.0.1" + c.Addr
	}
	return "http://" + c.Addr
}
