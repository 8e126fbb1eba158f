package offline

import (
	"sort"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// prompt is a request taken apart into what the offline model reasons on.
type prompt struct {
	question  string   // the instruction or question to answer
	sentences []string // context sentences, in prompt order
	text      string   // all context text
	toolTurn  bool     // tool results arrived after the last user message
}

// readPrompt splits a request into question and context. The question is
// the last user message, or its first line (or the part before a colon)
// when the rest of the message is the material to work on. Context is
// everything else the caller supplied: system messages, earlier user
// turns, documents' text and tool results. Assistant turns are left out so
// the model never quotes itself. Images are ignored: the offline model
// cannot see them.
func readPrompt(req llm.ChatRequest) prompt {
	var p prompt
	last := -1
	for i, m := range req.Messages {
		if m.Role == llm.RoleUser {
			last = i
		}
	}
	var ctx []string
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
				if i == last {
					q, rest := splitInstruction(part.Text)
					if p.question != "" {
						p.question += " "
					}
					p.question += q
					if rest != "" {
						ctx = append(ctx, rest)
					}
					continue
				}
				ctx = append(ctx, part.Text)
			case llm.PartDocument:
				if part.Text != "" {
					ctx = append(ctx, part.Text)
				} else if strings.HasPrefix(part.MIMEType, "text/") {
					ctx = append(ctx, string(part.Data))
				}
			}
		}
	}
	p.text = strings.Join(ctx, "\n")
	p.sentences = splitSentences(p.text)
	if len(p.sentences) == 0 && p.question != "" {
		// With nothing else to go on, the question's own sentences are
		// the only material ("Summarise: …" in one line lands here).
		p.sentences = splitSentences(p.question)
		p.text = p.question
	}
	return p
}

// splitInstruction separates an instruction from the material it applies
// to: "Summarise this:\n<text>" or "Answer from the notes: <text>".
func splitInstruction(s string) (instruction, material string) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i > 0 {
		first, rest := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
		if rest != "" && len(first) < 300 {
			return first, rest
		}
	}
	// "What is X? X is …": a leading question, then the material.
	if i := strings.Index(s, "? "); i > 0 && i < 300 {
		if after := strings.TrimSpace(s[i+2:]); len(after) > 20 {
			return s[:i+1], after
		}
	}
	if i := strings.Index(s, ": "); i > 0 {
		before, after := s[:i], strings.TrimSpace(s[i+2:])
		if len(after) > 2*len(before) && len(after) > 80 {
			return before, after
		}
	}
	return s, ""
}

// task is what the instruction asks for.
type task int

const (
	taskAnswer task = iota
	taskSummary
)

func detectTask(q string) task {
	lq := strings.ToLower(q)
	for _, k := range []string{"summar", "tl;dr", "tldr", "key points", "main points", "recap", "condense", "gist"} {
		if strings.Contains(lq, k) {
			return taskSummary
		}
	}
	return taskAnswer
}

// summaryLength reads "in one sentence" style limits; default three.
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
	return 3
}

// Messages the offline model gives when the prompt holds nothing to use.
const (
	noContextAnswer = "I am Agentry's offline model. I can only answer from text supplied in the prompt, and this prompt contains none to answer from."
	noMatchAnswer   = "The supplied text does not appear to answer this."
)

// Answer selection thresholds: sentences must be at least minRelevance
// similar to the question and within relativeRelevance of the best one.
const (
	answerSentences   = 3
	minRelevance      = 0.08
	relativeRelevance = 0.6
)

// summarize returns the leading sentences of the context.
func summarize(p prompt, n int) string {
	if len(p.sentences) == 0 {
		return noContextAnswer
	}
	return strings.Join(p.sentences[:min(n, len(p.sentences))], " ")
}

// answer returns, in their original order, the context sentences the
// embedder ranks closest to the question.
func answer(e *Embedder, p prompt) string {
	if len(p.sentences) == 0 {
		return noContextAnswer
	}
	q := e.Embed(p.question)
	type scored struct {
		i int
		s float32
	}
	sc := make([]scored, len(p.sentences))
	for i, s := range p.sentences {
		sc[i] = scored{i, Cosine(q, e.Embed(s))}
	}
	sort.SliceStable(sc, func(a, b int) bool { return sc[a].s > sc[b].s })
	best := sc[0].s
	if best < minRelevance {
		return noMatchAnswer
	}
	var keep []int
	for _, x := range sc[:min(answerSentences, len(sc))] {
		if x.s >= minRelevance && x.s >= best*relativeRelevance {
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
	return &filler{question: p.question, answer: answer(e, p), summary: summarize(p, summaryLength(p.question)),
		sentences: p.sentences, text: p.text, emb: e}
}
