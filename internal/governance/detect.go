package governance

import (
	"regexp"
	"strings"
)

// Detectors of personal data and secrets. Each pattern is a cheap first
// pass; candidates are then checked (digit counts, the Luhn checksum,
// reserved number ranges) so ordinary numbers and dates do not trip them.

var (
	reEmail = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	// A run of digits with the separators card numbers are written with.
	reCard = regexp.MustCompile(`\d(?:[ \-]?\d){12,18}`)
	// Phone numbers: an optional +country, optional (area), then groups
	// of digits separated by space, dot or dash.
	rePhone = regexp.MustCompile(`(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{1,4}\)[\s.\-]?)?\d{2,4}(?:[\s.\-]\d{2,4}){1,4}`)
	// US social security numbers and UK national insurance numbers.
	reSSN  = regexp.MustCompile(`\b(\d{3})-(\d{2})-(\d{4})\b`)
	reNINO = regexp.MustCompile(`\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b`)
)

// secretPatterns are well-known credential formats, by name.
var secretPatterns = []struct {
	name string
	hint string // a substring every match contains, to skip the regexp cheaply
	re   *regexp.Regexp
}{
	{"aws_access_key", "AKIA", regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`)},
	{"openai_api_key", "sk-", regexp.MustCompile(`\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}`)},
	{"anthropic_api_key", "sk-ant-", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}`)},
	{"github_token", "_", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}\b`)},
	{"slack_token", "xox", regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`)},
	{"google_api_key", "AIza", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
	{"stripe_secret_key", "_live_", regexp.MustCompile(`\b[sr]k_live_[0-9A-Za-z]{20,}\b`)},
	{"private_key", "PRIVATE KEY", regexp.MustCompile(`-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----`)},
	{"jwt", "eyJ", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
}

func findSecret(text string) (Finding, bool) {
	for _, p := range secretPatterns {
		if strings.Contains(text, p.hint) && p.re.MatchString(text) {
			return Finding{Rule: "secrets:" + p.name, Reason: "contains what looks like a secret (" + strings.ReplaceAll(p.name, "_", " ") + ")"}, true
		}
	}
	return Finding{}, false
}

func hasDigitRun(text string, n int) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			run++
			if run >= n {
				return true
			}
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '+':
		default:
			run = 0
		}
	}
	return false
}

func findPII(kind, text string) (Finding, bool) {
	switch kind {
	case "email":
		if strings.IndexByte(text, '@') >= 0 && reEmail.MatchString(text) {
			return Finding{Rule: "pii:email", Reason: "contains an e-mail address"}, true
		}
	case "card":
		if hasDigitRun(text, 13) {
			for _, m := range reCard.FindAllString(text, 20) {
				if d := digitsOf(m); len(d) >= 13 && len(d) <= 19 && luhn(d) {
					return Finding{Rule: "pii:card", Reason: "contains a payment card number (it passes the Luhn check)"}, true
				}
			}
		}
	case "phone":
		if hasDigitRun(text, 7) {
			for _, m := range rePhone.FindAllString(text, 20) {
				d := digitsOf(m)
				if len(d) >= 9 && len(d) <= 15 && !(len(d) >= 13 && luhn(d)) && !looksLikeDate(m) {
					return Finding{Rule: "pii:phone", Reason: "contains a phone number"}, true
				}
			}
		}
	case "national_id":
		// Both formats hold a run of at least six digits (with spaces or
		// dashes): without one, neither regexp needs to run.
		if !hasDigitRun(text, 6) {
			break
		}
		for _, m := range reSSN.FindAllStringSubmatch(text, 20) {
			if m[1] != "000" && m[1] != "666" && m[1][0] != '9' && m[2] != "00" && m[3] != "0000" {
				return Finding{Rule: "pii:national_id", Reason: "contains a national identification number (US social security number)"}, true
			}
		}
		if reNINO.MatchString(text) {
			return Finding{Rule: "pii:national_id", Reason: "contains a national identification number (UK national insurance number)"}, true
		}
	}
	return Finding{}, false
}

func digitsOf(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// luhn reports whether a digit string passes the Luhn checksum.
func luhn(d string) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

var reDateLike = regexp.MustCompile(`^\d{4}[\-.]\d{2}[\-.]\d{2}`)

func looksLikeDate(s string) bool { return reDateLike.MatchString(strings.TrimSpace(s)) }
