package governance

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Redaction: what a block leaves of the text it stopped. Every match of a
// blocking policy's deterministic rules is replaced by the kind of data it
// is ("[email address]"), so the stored run says what was there without
// keeping it. A plain-language (llm) rule names no span, so when one
// blocks, the whole text is withheld. Flagging policies change nothing:
// flagged text is kept as it was.

// Labels put in place of what a rule matched.
const (
	labelEmail      = "[email address]"
	labelPhone      = "[phone number]"
	labelCard       = "[payment card number]"
	labelNationalID = "[national id number]"
	labelTerm       = "[blocked term]"
	labelPattern    = "[blocked pattern]"
	// Withheld replaces a whole text a plain-language rule blocked.
	Withheld = "[withheld: blocked by a governance policy]"
)

// Redact returns text with every match of the deterministic rules of the
// policies that block at stage replaced by its kind. v is the blocking
// verdict: when a plain-language rule gave it, the whole text is withheld.
func Redact(ps []*Policy, stage string, v Verdict, text string) string {
	if v.Rule == RuleLLM {
		return Withheld
	}
	for _, p := range ps {
		if p.Action != ActionBlock || !p.HasStage(stage) {
			continue
		}
		for i := range p.Rules {
			text = p.Rules[i].redact(text)
		}
	}
	return text
}

// redact replaces what the rule matches in text.
func (r *Rule) redact(text string) string {
	switch r.Type {
	case RulePII:
		// The narrower kinds first: an SSN or a card number is also a run
		// of digits the phone pattern takes.
		for _, k := range []string{"card", "national_id", "email", "phone"} {
			if slices.Contains(r.Kinds, k) {
				text = redactPII(k, text)
			}
		}
	case RuleSecrets:
		for _, p := range secretPatterns {
			if strings.Contains(text, p.hint) {
				text = p.re.ReplaceAllLiteralString(text, "[secret: "+strings.ReplaceAll(p.name, "_", " ")+"]")
			}
		}
	case RuleBlockedTerms:
		for _, t := range r.Terms {
			text = redactWord(text, t, r.CaseSensitive)
		}
	case RuleRegex:
		for _, re := range r.Patterns {
			text = re.ReplaceAllLiteralString(text, labelPattern)
		}
	}
	return text
}

// redactPII replaces the matches of one kind, with the checks findPII
// makes (Luhn, digit counts), so ordinary numbers stay.
func redactPII(kind, text string) string {
	switch kind {
	case "email":
		if strings.IndexByte(text, '@') >= 0 {
			text = reEmail.ReplaceAllLiteralString(text, labelEmail)
		}
	case "card":
		text = replaceIf(reCard, text, labelCard, func(m string) bool {
			d := digitsOf(m)
			return len(d) >= 13 && len(d) <= 19 && luhn(d)
		})
	case "phone":
		text = replaceIf(rePhone, text, labelPhone, func(m string) bool {
			d := digitsOf(m)
			return len(d) >= 9 && len(d) <= 15 && !(len(d) >= 13 && luhn(d)) && !looksLikeDate(m)
		})
	case "national_id":
		text = replaceIf(reSSN, text, labelNationalID, func(m string) bool {
			p := reSSN.FindStringSubmatch(m)
			return p != nil && p[1] != "000" && p[1] != "666" && p[1][0] != '9' && p[2] != "00" && p[3] != "0000"
		})
		text = reNINO.ReplaceAllLiteralString(text, labelNationalID)
	}
	return text
}

func replaceIf(re *regexp.Regexp, text, label string, ok func(string) bool) string {
	return re.ReplaceAllStringFunc(text, func(m string) string {
		if ok(m) {
			return label
		}
		return m
	})
}

// redactWord replaces term where it stands as a word (as containsWord
// finds it), case-insensitively unless caseSensitive (term is then lower
// case already).
func redactWord(text, term string, caseSensitive bool) string {
	pattern := regexp.QuoteMeta(term)
	if !caseSensitive {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(text, -1) {
		if !standsAlone(text, m[0], m[1]) {
			continue
		}
		b.WriteString(text[last:m[0]])
		b.WriteString(labelTerm)
		last = m[1]
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// standsAlone reports whether text[i:end] is not part of a longer word,
// by containsWord's rule.
func standsAlone(text string, i, end int) bool {
	term := text[i:end]
	before, _ := utf8.DecodeLastRuneInString(text[:i])
	after, _ := utf8.DecodeRuneInString(text[end:])
	return (i == 0 || !isWordRune(before) || !isWordRune(firstRune(term))) &&
		(end == len(text) || !isWordRune(after) || !isWordRune(lastRune(term)))
}

// scrubRules find every kind of personal data and secret.
var scrubRules = []Rule{{Type: RulePII, Kinds: PIIKinds}, {Type: RuleSecrets}}

// scrub replaces personal data and secrets in text by their kind: for
// text that is stored and shown whatever the policies say, such as a
// model's reason for a verdict, which may quote what it judged.
func scrub(text string) string {
	for i := range scrubRules {
		text = scrubRules[i].redact(text)
	}
	return text
}
