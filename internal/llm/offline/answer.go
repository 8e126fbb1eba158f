package offline

import (
	"regexp"
	"sort"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// prompt is a request taken apart into what steers the model and what it
// may quote.
type prompt struct {
	request   string   // the last user message in full (tool choice reads it)
	question  string   // the questions asked, or the instructions when none
	steer     string   // the last user message's instructions and questions
	system    string   // the system messages (steering only)
	sentences []string // material sentences, in prompt order
	text      string   // all material text
	toolTurn  bool     // tool results arrived after the last user message
}

// readPrompt separates instructions from material (see material.go).
// System messages steer; only the facts they state are material, never
// their instructions. Earlier user turns, documents' text and tool results
// are material. Assistant turns are left out so the model never quotes
// itself. Images are ignored: the offline model cannot see them.
func readPrompt(req llm.ChatRequest) prompt {
	var p prompt
	last := -1
	for i, m := range req.Messages {
		if m.Role == llm.RoleUser {
			last = i
		}
	}
	var ctx, steer, quest, system []string
	for i, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			continue
		}
		if m.Role == llm.RoleTool && i > last {
			p.toolTurn = true
		}
		for _, part := range m.Parts {
			switch part.Type {
			case llm.PartText:
				switch {
				case m.Role == llm.RoleSystem:
					system = append(system, part.Text)
					ctx = append(ctx, factsOf(part.Text)...)
				case m.Role == llm.RoleTool:
					ctx = append(ctx, part.Text)
				case i == last:
					p.request = strings.TrimSpace(p.request + "\n" + part.Text)
					instr, q, mat := splitUserText(part.Text)
					steer = append(steer, instr, q)
					if q != "" {
						quest = append(quest, q)
					}
					ctx = append(ctx, mat...)
				default:
					_, _, mat := splitUserText(part.Text)
					ctx = append(ctx, mat...)
				}
			case llm.PartDocument:
				if part.Text != "" {
					ctx = append(ctx, part.Text)
				} else if strings.HasPrefix(part.MIMEType, "text/") {
					ctx = append(ctx, string(part.Data))
				}
			}
		}
	}
	p.steer = strings.TrimSpace(strings.Join(steer, " "))
	p.question = strings.TrimSpace(strings.Join(quest, " "))
	p.system = strings.Join(system, "\n")
	p.text = strings.TrimSpace(strings.Join(ctx, "\n"))
	p.sentences = splitSentences(p.text)
	return p
}

// task is what the instruction asks for.
type task int

const (
	taskAnswer task = iota
	taskSummary
	taskReport
	taskUnsupported
)

var (
	summaryWords     = []string{"summar", "tl;dr", "tldr", "key points", "main points", "recap", "condense", "gist"}
	reReport         = regexp.MustCompile(`(?i)\b(write|prepare|produce|draft|compile|create)\b[^.?!]*\breport\b|\breport for\b|\bperiodic reports?\b|\bstatus report\b`)
	reUnsupportedVrb = regexp.MustCompile(`(?i)^\s*(please\s+)?(translate|rewrite|paraphrase|rephrase|compose|write (a|an|me a) (poem|story|song|essay|email|letter|joke)|generate (a|an|some) (poem|story|code|program|image)|solve|calculate|compute|prove)\b`)
)

// detectTask reads the user's instructions first, then the system prompt.
func detectTask(p prompt) task {
	for _, s := range []string{p.steer, p.system} {
		ls := strings.ToLower(s)
		if reUnsupportedVrb.MatchString(s) && s == p.steer {
			return taskUnsupported
		}
		if reReport.MatchString(s) {
			return taskReport
		}
		for _, k := range summaryWords {
			if strings.Contains(ls, k) {
				return taskSummary
			}
		}
		if p.question != "" {
			return taskAnswer // a question asked outright wins over a system default
		}
	}
	return taskAnswer
}

// summaryLength reads "in one sentence" style limits; 0 when none is set.
func summaryLength(q string) int {
	lq := strings.ToLower(q)
	for n, w := range []string{"one", "two", "three", "four", "five"} {
		if strings.Contains(lq, w+" sentence") || strings.Contains(lq, w+"-sentence") {
			return n + 1
		}
	}
	if strings.Contains(lq, "a sentence") || strings.Contains(lq, "single sentence") {
		return 1
	}
	return 0
}

// Messages the offline model gives when the prompt holds nothing to use.
const (
	noContextAnswer = "I have nothing to answer from: the prompt gives no text or context to draw on, and the offline model only answers from supplied text."
	noMatchAnswer   = "The supplied text does not appear to answer this."
	noReportAnswer  = "Nothing to report: this period's prompt supplied no material to report on."
)

// unsupportedAnswer says what the offline model cannot do.
func unsupportedAnswer(steer string) string {
	verb := strings.ToLower(strings.Fields(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(steer)), "please "))[0])
	return "The offline model cannot " + verb + ": it only quotes and extracts from the text it is given. Configure a language model for this task."
}

// Answer selection: a sentence must be at least minRelevance similar to
// the question (or match the answer type asked for), and further
// sentences within relativeRelevance of the best.
const (
	answerSentences   = 2
	minRelevance      = 0.08
	relativeRelevance = 0.85
	typeBonus         = 0.2
)

// answerKind is what a question word asks for.
type answerKind int

const (
	kindAny answerKind = iota
	kindPerson
	kindTime
	kindNumber
	kindPlace
)

func questionKind(q string) answerKind {
	lq := " " + strings.ToLower(q) + " "
	switch {
	case strings.Contains(lq, " how many ") || strings.Contains(lq, " how much ") || strings.Contains(lq, " what percentage") ||
		strings.Contains(lq, " what price") || strings.Contains(lq, " how long ") || strings.Contains(lq, " how old "):
		return kindNumber
	case strings.Contains(lq, " who ") || strings.Contains(lq, " whom ") || strings.Contains(lq, " whose "):
		return kindPerson
	case strings.Contains(lq, " when ") || strings.Contains(lq, " what date") || strings.Contains(lq, " what year") ||
		strings.Contains(lq, " what time") || strings.Contains(lq, " which day"):
		return kindTime
	case strings.Contains(lq, " where "):
		return kindPlace
	}
	return kindAny
}

var (
	reYear    = regexp.MustCompile(`\b(1[89]|20)\d\d\b|\b\d{1,2}(:\d\d)?\s?(am|pm)\b|\b\d{1,2}:\d\d\b`)
	reDigit   = regexp.MustCompile(`\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|million|billion)\b`)
	rePlaceIn = regexp.MustCompile(`\b(in|at|from|near|on)\s+(the\s+)?[A-Z0-9]`)
)

func matchesKind(s string, k answerKind) bool {
	switch k {
	case kindPerson:
		if len(people(s)) > 0 {
			return true
		}
		for _, w := range words(s) {
			if roleWords[w] {
				return true
			}
		}
	case kindTime:
		return len(dates(s)) > 0 || reYear.MatchString(strings.ToLower(s)) || containsMonthOrDay(s)
	case kindNumber:
		return reDigit.MatchString(strings.ToLower(s))
	case kindPlace:
		return rePlaceIn.MatchString(s)
	}
	return false
}

func containsMonthOrDay(s string) bool {
	for _, w := range words(s) {
		if _, ok := months[w]; (ok && len(w) > 3) || weekdays[w] {
			return true
		}
	}
	return false
}

type scoredSentence struct {
	i     int
	score float32
}

// answer returns, in their original order, the material sentences that
// best answer the question: similar to it and of the kind it asks for.
func answer(e *Embedder, p prompt) string {
	if len(p.sentences) == 0 {
		return noContextAnswer
	}
	if p.question == "" {
		return summarize(e, p, 2)
	}
	q := e.Embed(p.question)
	kind := questionKind(p.question)
	qn := normalizeSentence(p.question)
	var sc []scoredSentence
	for i, s := range p.sentences {
		if isQuestion(s) || normalizeSentence(s) == qn {
			continue // never answer a question with a question, nor echo it
		}
		score := Cosine(q, e.Embed(s))
		if kind != kindAny && score >= minRelevance/2 && matchesKind(s, kind) {
			score += typeBonus
		}
		sc = append(sc, scoredSentence{i, score})
	}
	if len(sc) == 0 {
		return noMatchAnswer
	}
	sort.SliceStable(sc, func(a, b int) bool { return sc[a].score > sc[b].score })
	best := sc[0].score
	if best < minRelevance {
		return noMatchAnswer
	}
	var keep []int
	for _, x := range sc[:min(answerSentences, len(sc))] {
		if x.score >= minRelevance && x.score >= best*relativeRelevance {
			keep = append(keep, x.i)
		}
	}
	sort.Ints(keep)
	out := make([]string, len(keep))
	for i, k := range keep {
		out[i] = p.sentences[k]
	}
	return strings.Join(out, " ")
}

func normalizeSentence(s string) string { return strings.Join(words(s), " ") }

// rankByCentrality orders the material's sentence indexes by how much
// of the whole text each one carries, the opening sentences favoured
// (news and reports put the point first) and fragments disfavoured.
func rankByCentrality(e *Embedder, p prompt) []int {
	doc := e.Embed(p.text)
	sc := make([]scoredSentence, len(p.sentences))
	for i, s := range p.sentences {
		score := Cosine(doc, e.Embed(s))
		switch i {
		case 0:
			score += 0.15
		case 1:
			score += 0.05
		}
		if n := len(strings.Fields(s)); n < 4 {
			score -= 0.1
		}
		if isQuestion(s) {
			score -= 0.2
		}
		sc[i] = scoredSentence{i, score}
	}
	sort.SliceStable(sc, func(a, b int) bool { return sc[a].score > sc[b].score })
	out := make([]int, len(sc))
	for i, x := range sc {
		out[i] = x.i
	}
	return out
}

// summarize returns the n most central sentences in their original order.
func summarize(e *Embedder, p prompt, n int) string {
	if len(p.sentences) == 0 {
		return noContextAnswer
	}
	order := rankByCentrality(e, p)
	keep := append([]int(nil), order[:min(n, len(order))]...)
	sort.Ints(keep)
	out := make([]string, len(keep))
	for i, k := range keep {
		out[i] = p.sentences[k]
	}
	return strings.Join(out, " ")
}

// summaryText answers a summarising instruction: a short extract, and
// the key points when asked for them.
func summaryText(e *Embedder, p prompt) string {
	if len(p.sentences) == 0 {
		return noContextAnswer
	}
	instr := p.steer + " " + p.system
	n := summaryLength(instr)
	wantPoints := strings.Contains(strings.ToLower(instr), "key points") || strings.Contains(strings.ToLower(instr), "main points")
	if n == 0 {
		n = 3
		if wantPoints {
			n = max(1, min(3, (len(p.sentences)+1)/3))
		}
	}
	sum := summarize(e, p, n)
	if !wantPoints || summaryLength(instr) > 0 {
		return sum
	}
	order := rankByCentrality(e, p)
	var points []int
	for _, i := range order[min(n, len(order)):] {
		if len(points) == 4 {
			break
		}
		if !isQuestion(p.sentences[i]) {
			points = append(points, i)
		}
	}
	if len(points) == 0 {
		return sum
	}
	sort.Ints(points)
	var b strings.Builder
	b.WriteString(sum)
	b.WriteString("\n\nKey points:")
	for _, i := range points {
		b.WriteString("\n- " + p.sentences[i])
	}
	return b.String()
}

// reOpen marks sentences about unresolved matters.
var reOpen = regexp.MustCompile(`(?i)\b(pending|open questions?|open issues?|unresolved|undecided|tbd|to be (decided|confirmed|approved|agreed)|unclear|risks?|blocked|blockers?|delayed|waiting|awaits|awaiting|not yet|outstanding|under discussion|still ha(s|ve) to|under review)\b`)

// report writes a periodic report from the material: a summary, the
// sentences with figures, dates or names as highlights, and what the
// material leaves open.
func report(e *Embedder, p prompt) string {
	if len(p.sentences) == 0 {
		return noReportAnswer
	}
	sum := summarize(e, p, min(2, len(p.sentences)))
	inSum := map[string]bool{}
	for _, s := range splitSentences(sum) {
		inSum[s] = true
	}
	var highlights, open []string
	for _, s := range p.sentences {
		switch {
		case isQuestion(s) || reOpen.MatchString(s):
			open = append(open, s)
		case inSum[s]:
		case len(highlights) < 5 && (reDigit.MatchString(s) || len(dates(s)) > 0 || len(people(s)) > 0 || len(organizations(s)) > 0):
			highlights = append(highlights, s)
		}
	}
	var b strings.Builder
	b.WriteString("Summary: " + sum)
	if len(highlights) > 0 {
		b.WriteString("\n\nHighlights:")
		for _, h := range highlights {
			b.WriteString("\n- " + h)
		}
	}
	b.WriteString("\n\nOpen questions:")
	if len(open) == 0 {
		b.WriteString("\n- None stated in the material.")
	}
	for _, o := range open[:min(5, len(open))] {
		b.WriteString("\n- " + o)
	}
	return b.String()
}

// rankSentences orders sentences by similarity to query, most similar first.
func rankSentences(e *Embedder, query string, sentences []string) []string {
	q := e.Embed(query)
	type scored struct {
		s     string
		score float32
	}
	sc := make([]scored, len(sentences))
	for i, s := range sentences {
		sc[i] = scored{s, Cosine(q, e.Embed(s))}
	}
	sort.SliceStable(sc, func(a, b int) bool { return sc[a].score > sc[b].score })
	out := make([]string, len(sc))
	for i, x := range sc {
		out[i] = x.s
	}
	return out
}

// newFiller prepares schema filling for prompt p.
func newFiller(e *Embedder, p prompt) *filler {
	n := summaryLength(p.steer + " " + p.system)
	if n == 0 {
		n = 3
	}
	f := &filler{question: p.question, summary: summarize(e, p, n), sentences: p.sentences, text: p.text, emb: e,
		isoDates: strings.Contains(strings.ToLower(p.steer+" "+p.system), "iso date") || strings.Contains(strings.ToLower(p.steer+" "+p.system), "iso 8601")}
	if len(p.sentences) == 0 {
		f.summary = ""
	}
	if p.question != "" || len(p.sentences) == 0 {
		f.answer = answer(e, p)
	} else {
		f.answer = f.summary
	}
	return f
}
