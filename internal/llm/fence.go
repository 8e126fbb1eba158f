package llm

import "strings"

// StripCodeFence removes the ``` fence (```json …) that models often wrap a
// JSON answer in, so the answer can be parsed; other text is only trimmed.
func StripCodeFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSuffix(strings.TrimSpace(s), "```")
}
