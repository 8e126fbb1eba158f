package offline

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitSentences splits text into trimmed sentences: at . ! ? followed by
// space and an upper-case letter, digit or quote, and at blank lines and
// list bullets. Abbreviations like "e.g." and decimals like "42.195" stay
// whole because no space follows the dot or the next word is lower-case.
func splitSentences(text string) []string {
	var out []string
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		para = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(para), "-*•#>"))
		if para == "" {
			continue
		}
		start := 0
		for i := 0; i < len(para); i++ {
			c := para[i]
			if c != '.' && c != '!' && c != '?' {
				continue
			}
			j := i + 1
			for j < len(para) && (para[j] == '"' || para[j] == '\'' || para[j] == ')') {
				j++
			}
			if j >= len(para) || para[j] != ' ' {
				continue
			}
			k := j
			for k < len(para) && para[k] == ' ' {
				k++
			}
			if k >= len(para) {
				continue
			}
			r, _ := utf8.DecodeRuneInString(para[k:])
			if !(unicode.IsUpper(r) || unicode.IsDigit(r) || r == '"' || r == '\'' || r == '(') {
				continue
			}
			if s := strings.TrimSpace(para[start:j]); s != "" {
				out = append(out, s)
			}
			start = k
			i = k - 1
		}
		if s := strings.TrimSpace(para[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// words returns the lower-cased words of s.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// contentWords are the words of s that are not stopwords.
func contentWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if _, stop := stopwords[w]; !stop && len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

// keywords ranks the content words of text by frequency, then by first
// appearance, and returns at most n of them.
func keywords(text string, n int) []string {
	count := map[string]int{}
	first := map[string]int{}
	for i, w := range contentWords(text) {
		if _, seen := first[w]; !seen {
			first[w] = i
		}
		count[w]++
	}
	list := make([]string, 0, len(count))
	for w := range count {
		list = append(list, w)
	}
	sort.Slice(list, func(i, j int) bool {
		if count[list[i]] != count[list[j]] {
			return count[list[i]] > count[list[j]]
		}
		return first[list[i]] < first[list[j]]
	})
	return list[:min(n, len(list))]
}

var (
	reEmail    = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	reURL      = regexp.MustCompile(`https?://[^\s<>"')\]]+`)
	reDate     = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	reNumber   = regexp.MustCompile(`-?\d+(?:[.,]\d+)*(?:\.\d+)?`)
	reProperNP = regexp.MustCompile(`\b[A-Z][a-zA-Z\-]+(?:\s+[A-Z][a-zA-Z\-]+)*`)
)

// properNames returns capitalised word runs that do not start a sentence
// (sentence-initial capitals say nothing about names).
func properNames(text string) []string {
	var out []string
	for _, loc := range reProperNP.FindAllStringIndex(text, -1) {
		before := strings.TrimRight(text[:loc[0]], " \t\"'(")
		if before == "" || strings.HasSuffix(before, ".") || strings.HasSuffix(before, "?") ||
			strings.HasSuffix(before, "!") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "\n") {
			continue
		}
		out = append(out, text[loc[0]:loc[1]])
	}
	return out
}

// truncateRunes cuts s to at most n runes.
func truncateRunes(s string, n int) string {
	if n < 0 {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// firstWords returns at most n words of s, trimmed of end punctuation.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.TrimRight(strings.Join(f, " "), ".,;:!?")
}
