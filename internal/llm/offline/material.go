package offline

import (
	"regexp"
	"strings"
	"unicode"
)

// This file separates what a prompt asks from what it gives to work on.
// Instructions ("You are…", "Summarise the following…", "Return JSON with
// the keys…", "Question:" and "Context:" labels) steer the model: they pick
// the task and its shape. Only the material (the text the instructions
// point at, earlier turns, documents and tool results) is ever quoted back.
// A model that answers with its own instructions looks broken, so when in
// doubt a sentence that reads like an instruction is treated as one.

// instructionStarts are first words of sentences that tell the model what
// to do rather than state a fact.
var instructionStarts = map[string]bool{
	"you": true, "your": true, "you're": true, "act": true, "always": true, "never": true, "don't": true, "do": true,
	"summarise": true, "summarize": true, "answer": true, "extract": true, "convert": true, "write": true,
	"reply": true, "respond": true, "return": true, "translate": true, "classify": true, "categorise": true,
	"categorize": true, "list": true, "give": true, "provide": true, "produce": true, "generate": true,
	"create": true, "describe": true, "explain": true, "rewrite": true, "review": true, "analyse": true,
	"analyze": true, "read": true, "use": true, "find": true, "identify": true, "tell": true, "draft": true,
	"compose": true, "output": true, "format": true, "evaluate": true, "judge": true, "rate": true, "score": true,
	"check": true, "compare": true, "please": true, "from": true, "based": true, "using": true, "given": true,
	"consider": true, "here": true, "below": true, "keep": true, "be": true, "only": true, "make": true,
	"state": true, "cite": true, "say": true, "include": true, "mention": true, "focus": true, "avoid": true,
	"condense": true, "shorten": true, "outline": true, "name": true, "fill": true, "pick": true, "choose": true,
}

// instructionPhrases mark a sentence as scaffolding wherever they occur.
var instructionPhrases = []string{
	"the following", "the text below", "the document below", "the passages below", "the context below",
	"json object", "one json", "valid json", "json schema", "nothing else", "key points", "in one sentence",
	"use null", "the keys", "as an ai", "helpful assistant", "this period's report",
}

// materialLabels introduce material; questionLabels introduce the question.
var (
	materialLabels = map[string]bool{"context": true, "passages": true, "passage": true, "documents": true,
		"document": true, "text": true, "input": true, "material": true, "notes": true, "article": true,
		"content": true, "data": true, "source": true, "sources": true, "email": true, "message": true,
		"transcript": true, "background": true, "facts": true, "report": true, "excerpt": true, "record": true}
	questionLabels = map[string]bool{"question": true, "query": true, "q": true, "task": true,
		"instruction": true, "instructions": true, "request": true, "ask": true}
	reLabel = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z ]{0,30}?)\s*:\s*(.*)$`)
)

// isInstruction says whether a sentence steers rather than informs.
func isInstruction(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	ls := strings.ToLower(s)
	for _, p := range instructionPhrases {
		if strings.Contains(ls, p) {
			return true
		}
	}
	f := strings.FieldsFunc(ls, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if len(f) == 0 {
		return false
	}
	if instructionStarts[f[0]] {
		// "Answer: 42" or "Use of funds rose" are not instructions; an
		// imperative is followed by an object, not a colon or a noun
		// phrase's "of".
		if len(f) > 1 && f[1] == "of" {
			return false
		}
		return true
	}
	return len(f) > 1 && (f[0] == "as" && (f[1] == "a" || f[1] == "an") || f[0] == "if" && f[1] == "you")
}

// modelTaskStarts are imperatives that only a model is asked to do.
var modelTaskStarts = map[string]bool{"summarise": true, "summarize": true, "answer": true, "extract": true,
	"convert": true, "reply": true, "respond": true, "return": true, "translate": true, "classify": true,
	"categorise": true, "categorize": true, "rewrite": true, "paraphrase": true, "output": true, "evaluate": true}

// isModelInstruction: an instruction that clearly addresses the model,
// wherever it stands.
func isModelInstruction(s string) bool {
	ls := strings.ToLower(strings.TrimSpace(s))
	for _, p := range instructionPhrases {
		if strings.Contains(ls, p) {
			return true
		}
	}
	f := strings.FieldsFunc(ls, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	return len(f) > 0 && (modelTaskStarts[f[0]] || f[0] == "you" || f[0] == "your")
}

// isQuestion says whether a sentence asks something.
func isQuestion(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasSuffix(s, "?")
}

// labelOf reads "Context: …" and "Question: …" lines.
func labelOf(line string) (label, rest string, ok bool) {
	m := reLabel.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	l := strings.ToLower(strings.TrimSpace(m[1]))
	if materialLabels[l] || questionLabels[l] {
		return l, strings.TrimSpace(m[2]), true
	}
	// Two-word labels such as "Reference output" or "Source text".
	if f := strings.Fields(l); len(f) == 2 && (materialLabels[f[1]] || questionLabels[f[1]]) {
		return f[1], strings.TrimSpace(m[2]), true
	}
	return "", "", false
}

// splitUserText takes one message apart into its instructions (including
// questions) and its material.
func splitUserText(s string) (instruction, question string, material []string) {
	var instr, quest, mat, qlines []string
	section := "" // "", "material" or "question"
	var plain []string
	flushPlain := func() {
		if len(plain) == 0 {
			return
		}
		i, q, m := splitPlain(strings.Join(plain, "\n"))
		instr = append(instr, i...)
		quest = append(quest, q...)
		mat = append(mat, m...)
		plain = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l, rest, ok := labelOf(line); ok {
			flushPlain()
			if questionLabels[l] {
				section = "question"
			} else {
				section = "material"
			}
			line = rest
		}
		switch section {
		case "question":
			qlines = append(qlines, line)
		case "material":
			mat = append(mat, line)
		default:
			plain = append(plain, line)
		}
	}
	flushPlain()
	if q := strings.TrimSpace(strings.Join(qlines, "\n")); q != "" {
		// A labelled question may carry its own material ("Question: Who
		// leads it? Jane leads it."); without a question mark or an
		// imperative it is all question.
		i, qq, m := splitPlain(q)
		if len(i)+len(qq) == 0 {
			quest = append(quest, q)
		} else {
			quest = append(quest, i...)
			quest = append(quest, qq...)
			mat = append(mat, m...)
		}
	}
	return strings.Join(instr, " "), strings.Join(quest, " "), trimBlank(mat)
}

// splitPlain handles unlabelled text: leading instruction and question
// sentences are kept apart, the rest is material. An instruction may end
// in a colon with the material on the same line ("Summarise: …").
func splitPlain(s string) (instr, quest, mat []string) {
	paras := paragraphs(s)
	for pi, para := range paras {
		if len(mat) > 0 {
			mat = append(mat, para)
			continue
		}
		// "Summarise this: Acme reported…" on one line.
		if i := strings.Index(para, ": "); i > 0 && i < 200 && isInstruction(para[:i]) && !strings.ContainsAny(para[:i], ".?!") {
			instr = append(instr, para[:i+1])
			para = strings.TrimSpace(para[i+2:])
		} else if strings.HasSuffix(para, ":") && isInstruction(para) {
			instr = append(instr, para)
			continue
		}
		sents := splitSentences(para)
		k := 0
		for k < len(sents) && (isInstruction(sents[k]) || isQuestion(sents[k])) {
			if isQuestion(sents[k]) && !isInstruction(sents[k]) {
				quest = append(quest, sents[k])
			} else {
				instr = append(instr, sents[k])
			}
			k++
		}
		if k < len(sents) {
			// Within the material only sentences that clearly address the
			// model steer ("Summarise it."); an e-mail's "Please send the
			// invoice." is material.
			var rest []string
			for _, x := range sents[k:] {
				if isModelInstruction(x) {
					instr = append(instr, x)
				} else {
					rest = append(rest, x)
				}
			}
			switch {
			case k == 0 && len(rest) == len(sents):
				mat = append(mat, para) // untouched: keep its lines and bullets
			case len(rest) > 0:
				mat = append(mat, strings.Join(rest, "\n"))
			}
			mat = append(mat, paras[pi+1:]...)
			return instr, quest, mat
		}
	}
	return instr, quest, mat
}

// paragraphs splits at blank lines; lines within a paragraph keep their
// breaks, so lists and headings survive.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func trimBlank(lines []string) []string {
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	if text == "" {
		return nil
	}
	return []string{text}
}

// factsOf keeps the sentences of a system message that state facts: a
// system prompt steers, and only what it gives as material ("Context:",
// a policy pasted below the instructions) may be quoted.
func factsOf(s string) []string {
	var keep []string
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l, rest, ok := labelOf(line); ok {
			if questionLabels[l] {
				continue
			}
			line = rest
		}
		var ss []string
		for _, x := range splitSentences(line) {
			// A sentence with an address, link or date carries data
			// even when phrased as an instruction ("Write to …").
			data := reEmail.MatchString(x) || reURL.MatchString(x) || reISODate.MatchString(x)
			if data || !isInstruction(x) && !isQuestion(x) && !strings.HasSuffix(x, ":") {
				ss = append(ss, x)
			}
		}
		if len(ss) > 0 {
			keep = append(keep, strings.Join(ss, " "))
		}
	}
	if len(keep) == 0 {
		return nil
	}
	return []string{strings.Join(keep, "\n")}
}
