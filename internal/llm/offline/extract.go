package offline

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Deterministic extractors for the entities a structured answer asks
// for. Each returns what it finds in order of first appearance, without
// duplicates; none guesses.

var months = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3,
	"apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

var weekdays = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true,
	"saturday": true, "sunday": true}

// orgSuffixes end organisation names ("Acme Corp", "Bank of Spain" is
// caught by orgHeads).
var orgSuffixes = map[string]bool{"inc": true, "corp": true, "corporation": true, "ltd": true, "llc": true,
	"gmbh": true, "ag": true, "sa": true, "plc": true, "group": true, "bank": true, "university": true,
	"institute": true, "foundation": true, "company": true, "co": true, "labs": true, "systems": true,
	"technologies": true, "partners": true, "holdings": true, "agency": true, "ministry": true, "council": true,
	"association": true, "society": true, "capital": true, "ventures": true, "industries": true, "bv": true,
	"limited": true, "software": true, "studios": true, "media": true, "airlines": true, "motors": true,
	"foods": true, "telecom": true, "energy": true, "logistics": true, "robotics": true, "pharmaceuticals": true,
	"pharma": true, "insurance": true, "solutions": true, "networks": true, "communications": true,
	"services": true, "consulting": true, "bancorp": true, "trust": true, "fund": true, "hospital": true,
	"school": true, "college": true, "press": true, "airways": true, "railways": true, "electric": true}

// orgHeads start organisation names followed by "of" ("University of Oslo").
var orgHeads = map[string]bool{"university": true, "bank": true, "ministry": true, "department": true,
	"institute": true, "college": true, "council": true, "office": true, "board": true}

// notNames are capitalised words that never make a person's name.
var notNames = map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "these": true,
	"those": true, "it": true, "its": true, "we": true, "our": true, "they": true, "their": true, "he": true, "she": true,
	"i": true, "you": true, "in": true, "on": true, "at": true, "for": true, "and": true, "but": true, "or": true,
	"if": true, "when": true, "after": true, "before": true, "with": true, "by": true, "from": true, "to": true,
	"of": true, "as": true, "new": true, "north": true, "south": true, "east": true, "west": true, "san": true,
	"los": true, "las": true, "united": true, "street": true, "city": true, "state": true, "states": true,
	"ceo": true, "cfo": true, "cto": true, "coo": true, "vp": true, "mr": true, "mrs": true, "ms": true, "dr": true,
	"prof": true, "president": true, "chairman": true, "director": true, "manager": true, "today": true,
	"yesterday": true, "tomorrow": true, "revenue": true, "sales": true, "profit": true, "q1": true, "q2": true,
	"q3": true, "q4": true, "please": true, "dear": true, "hello": true, "hi": true, "thanks": true,
	"europe": true, "asia": true, "africa": true, "america": true, "london": true, "paris": true, "berlin": true,
	"york": true, "tokyo": true, "customer": true, "customers": true, "team": true, "project": true,
	"there": true, "here": true, "what": true, "who": true, "how": true, "why": true, "where": true,
	"which": true, "all": true, "some": true, "no": true, "not": true, "summary": true, "report": true,
	"meeting": true, "update": true, "internet": true, "english": true, "french": true, "german": true}

// roleWords follow or precede a person's name.
var roleWords = map[string]bool{"ceo": true, "cfo": true, "cto": true, "coo": true, "founder": true,
	"cofounder": true, "co-founder": true, "director": true, "manager": true, "president": true, "chair": true,
	"chairman": true, "chairwoman": true, "head": true, "lead": true, "engineer": true, "analyst": true,
	"spokesperson": true, "spokesman": true, "spokeswoman": true, "minister": true, "mayor": true, "owner": true,
	"editor": true, "author": true, "professor": true, "doctor": true, "chief": true, "vp": true, "partner": true,
	"principal": true, "curator": true, "keynote": true, "speaker": true, "radiologist": true, "coordinator": true,
	"librarian": true, "executive": true, "officer": true, "dr": true, "mr": true, "mrs": true, "ms": true, "prof": true,
	"senator": true, "governor": true, "judge": true, "coach": true, "captain": true, "secretary": true}

// personVerbs after a single capitalised word make it a person's name.
var personVerbs = map[string]bool{"said": true, "says": true, "told": true, "announced": true, "joined": true,
	"wrote": true, "asked": true, "replied": true, "explained": true, "added": true, "noted": true, "leads": true,
	"led": true, "founded": true, "signed": true, "approved": true, "presented": true, "will": false}

// reCapRun matches runs of capitalised words on one line, never across a
// sentence end (a word's trailing dot ends the run).
var reCapRun = regexp.MustCompile(`[A-Z][\p{L}'’\-]*(?:[ \t]+(?:of[ \t]+|de[ \t]+|van[ \t]+|von[ \t]+|&[ \t]+)?[A-Z][\p{L}'’\-]*)*`)

var reTrailingSuffix = regexp.MustCompile(`^,?\s+(Inc|Ltd|LLC|Corp|GmbH|AG|PLC|plc)\b\.?`)

type span struct {
	text       string
	start, end int
}

// capitalRuns finds runs of capitalised words, each with whether it starts
// a sentence.
func capitalRuns(text string) []span {
	var out []span
	for _, loc := range reCapRun.FindAllStringIndex(text, -1) {
		out = append(out, span{strings.TrimRight(text[loc[0]:loc[1]], "."), loc[0], loc[1]})
	}
	return out
}

func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ',' })
}

func isOrgName(words []string) bool {
	if len(words) == 0 {
		return false
	}
	last := strings.Trim(words[len(words)-1], ".,")
	if orgSuffixes[last] && len(words) > 1 {
		return true
	}
	return len(words) > 2 && orgHeads[words[0]] && words[1] == "of"
}

// organizations finds names ending in a company or institution word, and
// "University of …" style names.
func organizations(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range capitalRuns(text) {
		ws := lowerWords(r.text)
		// Drop a leading article or sentence word: "The Acme Group".
		t := r.text
		for len(ws) > 1 && notNames[ws[0]] && !orgHeads[ws[0]] {
			t = strings.TrimSpace(t[strings.IndexByte(t, ' ')+1:])
			ws = ws[1:]
		}
		// Extend to a following "Inc." or "Ltd." after a comma.
		if !isOrgName(ws) {
			rest := text[r.end:]
			if m := reTrailingSuffix.FindString(rest); m != "" {
				t += strings.TrimRight(m, ".")
				ws = append(ws, strings.ToLower(strings.Trim(strings.TrimLeft(m, ", "), ".")))
			}
		}
		if isOrgName(ws) && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// people finds persons' names: runs of two or more capitalised words that
// are not organisations, places or calendar words, and single names that a
// role or a verb of speech marks as a person ("Jane is CEO", "Omar said").
func people(text string) []string {
	var out []string
	seen := map[string]bool{}
	orgs := map[string]bool{}
	for _, o := range organizations(text) {
		orgs[o] = true
	}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range capitalRuns(text) {
		fields := strings.Fields(r.text)
		ws := lowerWords(r.text)
		if isOrgName(ws) || orgs[r.text] || strings.Contains(r.text, "&") {
			continue
		}
		// A possessive ends a name ("Pinecrest's Dublin office").
		for i, f := range fields {
			if strings.HasSuffix(f, "'s") || strings.HasSuffix(f, "’s") {
				fields, ws = fields[:i+1], ws[:i+1]
				fields[i] = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s")
				ws[i] = strings.ToLower(fields[i])
				break
			}
		}
		// A title inside the run starts the name ("Pinecrest CEO Robert Lang").
		for i := len(ws) - 1; i >= 0; i-- {
			if roleWords[ws[i]] && i < len(ws)-1 {
				fields, ws = fields[i+1:], ws[i+1:]
				break
			}
		}
		// Drop leading titles and sentence words ("CEO Jane Doe", "Dr Ada Lovelace", "Yesterday Omar").
		for len(ws) > 0 && (notNames[strings.Trim(ws[0], ".")] || roleWords[ws[0]]) {
			ws, fields = ws[1:], fields[1:]
		}
		// Stop at a calendar or organisation word.
		for i, w := range ws {
			w = strings.Trim(w, ".")
			if _, m := months[w]; m || weekdays[w] || orgSuffixes[w] || notNames[w] || w == "of" {
				fields = fields[:i]
				break
			}
		}
		if len(fields) == 0 {
			continue
		}
		name := strings.TrimRight(strings.Join(fields, " "), ".,")
		if len(fields) >= 2 && len(fields) <= 4 {
			if !allCapsWord(fields[0]) {
				add(name)
			}
			continue
		}
		if len(fields) == 1 && !allCapsWord(name) && len(name) > 1 {
			after := lowerWords(text[min(r.end, len(text)):min(len(text), r.end+40)])
			before := lowerWords(text[max(0, r.start-30):r.start])
			switch {
			case len(after) > 0 && personVerbs[strings.Trim(after[0], ".,")]:
				add(name)
			case len(after) > 1 && (after[0] == "is" || after[0] == "was" || after[0] == "(") && roleAhead(after[1:]):
				add(name)
			case len(before) > 0 && roleWords[strings.Trim(before[len(before)-1], ".,")]:
				add(name)
			}
		}
	}
	return out
}

func roleAhead(ws []string) bool {
	for i, w := range ws {
		if i > 2 {
			break
		}
		if roleWords[strings.Trim(w, ".,()")] {
			return true
		}
	}
	return false
}

func allCapsWord(s string) bool {
	return len(s) > 1 && strings.ToUpper(s) == s
}

var (
	reISODate   = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	reMonthDay  = regexp.MustCompile(`\b(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	reDayMonth  = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?,?\s+(\d{4})\b`)
	reMonthYear = regexp.MustCompile(`\b(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{4})\b`)
	reQuarter   = regexp.MustCompile(`\b(Q[1-4])\s+(\d{4})\b`)
	reMoney     = regexp.MustCompile(`(?i)(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand|bn|m|k)\b)?|\b\d[\d,]*(?:\.\d+)?\s?(?:million|billion|thousand)?\s?(?:dollars|euros|pounds|usd|eur|gbp)\b|\b(?:USD|EUR|GBP)\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|m|bn|k)\b)?)`)
	rePercent   = regexp.MustCompile(`(?i)-?\d+(?:\.\d+)?\s?(?:%|percent\b|per cent\b)`)
	rePhone     = regexp.MustCompile(`(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{2,4}\)[\s.\-]?)?\d{2,4}[\s.\-]\d{2,4}[\s.\-]?\d{2,6}`)
)

type dated struct {
	at  int
	iso string
}

// dates finds calendar dates and returns them as ISO 8601 (YYYY-MM-DD,
// or YYYY-MM for a month), and quarters as written ("Q3 2025"), in order
// of appearance.
func dates(text string) []string {
	var found []dated
	taken := make([]bool, len(text)+1)
	mark := func(loc []int, iso string) {
		for i := loc[0]; i < loc[1]; i++ {
			if taken[i] {
				return
			}
		}
		for i := loc[0]; i < loc[1]; i++ {
			taken[i] = true
		}
		found = append(found, dated{loc[0], iso})
	}
	for _, m := range reISODate.FindAllStringSubmatchIndex(text, -1) {
		mo, _ := strconv.Atoi(text[m[4]:m[5]])
		d, _ := strconv.Atoi(text[m[6]:m[7]])
		if mo >= 1 && mo <= 12 && d >= 1 && d <= 31 {
			mark(m[:2], text[m[0]:m[1]])
		}
	}
	for _, m := range reMonthDay.FindAllStringSubmatchIndex(text, -1) {
		mark(m[:2], isoDate(text[m[6]:m[7]], text[m[2]:m[3]], text[m[4]:m[5]]))
	}
	for _, m := range reDayMonth.FindAllStringSubmatchIndex(text, -1) {
		mark(m[:2], isoDate(text[m[6]:m[7]], text[m[4]:m[5]], text[m[2]:m[3]]))
	}
	for _, m := range reMonthYear.FindAllStringSubmatchIndex(text, -1) {
		y, _ := strconv.Atoi(text[m[4]:m[5]])
		mark(m[:2], fmt.Sprintf("%04d-%02d", y, months[strings.ToLower(text[m[2]:m[3]])]))
	}
	for _, m := range reQuarter.FindAllStringSubmatchIndex(text, -1) {
		mark(m[:2], text[m[2]:m[3]]+" "+text[m[4]:m[5]])
	}
	// In order of appearance.
	for i := 1; i < len(found); i++ {
		for j := i; j > 0 && found[j].at < found[j-1].at; j-- {
			found[j], found[j-1] = found[j-1], found[j]
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range found {
		if f.iso != "" && !seen[f.iso] {
			seen[f.iso] = true
			out = append(out, f.iso)
		}
	}
	return out
}

func isoDate(year, month, day string) string {
	y, _ := strconv.Atoi(year)
	d, _ := strconv.Atoi(day)
	m := months[strings.ToLower(strings.TrimSuffix(month, "."))]
	if m == 0 || d < 1 || d > 31 {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// findAll returns the distinct matches of re in text, in order.
func findAll(re *regexp.Regexp, text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range re.FindAllString(text, 50) {
		m = strings.TrimSpace(m)
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

func moneyAmounts(text string) []string { return findAll(reMoney, text) }
func percentages(text string) []string  { return findAll(rePercent, text) }
func emails(text string) []string       { return findAll(reEmail, text) }
func urls(text string) []string {
	var out []string
	for _, u := range findAll(reURL, text) {
		out = append(out, strings.TrimRight(u, ".,;:"))
	}
	return out
}

// phones finds telephone numbers: digit groups with at least seven digits
// that are not dates.
func phones(text string) []string {
	var out []string
	for _, m := range findAll(rePhone, text) {
		digits := 0
		for _, r := range m {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits >= 7 && !reISODate.MatchString(m) {
			out = append(out, m)
		}
	}
	return out
}

// title is the material's heading: its first line when that is short and
// unpunctuated, else its first sentence, trimmed to twelve words.
func title(text string, sentences []string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	first := strings.TrimSpace(strings.TrimLeft(strings.SplitN(text, "\n", 2)[0], "#*-• "))
	if n := len(strings.Fields(first)); n > 0 && n <= 12 && !strings.ContainsAny(first[len(first)-1:], ".?!") {
		return first
	}
	if len(sentences) == 0 {
		return firstWords(first, 12)
	}
	return firstWords(sentences[0], 12)
}

// fieldKind names the entity a schema property asks for, by its name and
// description; "" for free text.
func fieldKind(name, desc string) string {
	has := func(keys ...string) bool { return nameHas(name, keys...) }
	ld := strings.ToLower(desc)
	switch {
	case has("email", "emails", "mail"):
		return "email"
	case has("phone", "phones", "telephone", "mobile", "tel"):
		return "phone"
	case has("url", "urls", "link", "links", "href", "uri", "website"):
		return "url"
	case has("date", "dates", "day", "deadline", "when", "published", "due") || strings.Contains(ld, "iso date"):
		return "date"
	case has("organization", "organizations", "organisation", "organisations", "company", "companies", "org", "orgs",
		"employer", "vendor", "supplier", "bank", "institution"):
		return "org"
	case has("people", "person", "persons", "names", "author", "authors", "participants", "attendees", "ceo",
		"contact", "assignee", "speaker", "customer", "sender", "recipient") ||
		(has("name") && !has("company", "file", "product", "project", "organization")) || strings.Contains(ld, "names of people") || strings.Contains(ld, "list of names"):
		return "person"
	case has("amount", "amounts", "price", "cost", "revenue", "total", "budget", "salary", "fee", "value", "income", "profit", "spend"):
		return "money"
	case has("percent", "percentage", "rate", "growth", "share"):
		return "percent"
	}
	return ""
}

// kindValues extracts the values of a field kind from text.
func kindValues(kind, text string) []string {
	switch kind {
	case "email":
		return emails(text)
	case "phone":
		return phones(text)
	case "url":
		return urls(text)
	case "date":
		return dates(text)
	case "org":
		return organizations(text)
	case "person":
		return people(text)
	case "money":
		return moneyAmounts(text)
	case "percent":
		return percentages(text)
	}
	return nil
}
