package solutions

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// The built-in planner reads a request without a model. It finds what the
// request names (URLs, e-mail addresses, quoted names, a cadence, a time of
// day), what the user wants done (a summary, answers, alerts on change,
// extraction, a webhook) and maps these onto the resource kinds (rss,
// website or upload sources; knowledge bases) and the agent templates it
// knows. The same request always yields the same plan.

var (
	reURL      = regexp.MustCompile(`https?://[^\s"'<>()\[\]]+`)
	reEmail    = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	reQuote    = regexp.MustCompile("\"([^\"]{1,120})\"|“([^”]{1,120})”")
	reTime     = regexp.MustCompile(`\bat ([0-9]{1,2})(?::([0-9]{2}))?\s*(am|pm)?\b`)
	reWordSeps = regexp.MustCompile(`[^a-z0-9@]+`)
)

// Lookup finds one of the account's resources by name (case-insensitive):
// the planner needs it for requests that change or delete what exists.
type Lookup func(resource, name string) (id string, ok bool)

type reading struct {
	lower, padded string
	urls          []string
	webhook       string
	emails        []string
	quoted        []string
	cadence       string // hourly, daily, weekly, monthly or ""
	cron          string
}

func (r reading) has(words ...string) bool {
	for _, w := range words {
		if strings.Contains(r.padded, " "+w+" ") {
			return true
		}
	}
	return false
}

var weekdays = map[string]int{"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6}

func read(input string) reading {
	r := reading{lower: strings.ToLower(input)}
	r.padded = " " + reWordSeps.ReplaceAllString(strings.NewReplacer("e-mail", "email", "e mail", "email").Replace(r.lower), " ") + " "
	for _, u := range reURL.FindAllString(input, 10) {
		u = strings.TrimRight(u, ".,;:!?")
		if p, err := url.Parse(u); err == nil && p.Host != "" {
			r.urls = append(r.urls, u)
		}
	}
	if r.has("webhook", "endpoint") && len(r.urls) > 0 {
		r.webhook, r.urls = r.urls[len(r.urls)-1], r.urls[:len(r.urls)-1]
	}
	r.emails = reEmail.FindAllString(input, 5)
	for _, m := range reQuote.FindAllStringSubmatch(input, 5) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" {
				r.quoted = append(r.quoted, g)
				break
			}
		}
	}
	hour, minute := 8, 0
	if m := reTime.FindStringSubmatch(r.lower); m != nil {
		h, _ := strconv.Atoi(m[1])
		mi, _ := strconv.Atoi(m[2])
		if m[3] == "pm" && h < 12 {
			h += 12
		}
		if m[3] == "am" && h == 12 {
			h = 0
		}
		if h < 24 && mi < 60 {
			hour, minute = h, mi
		}
	}
	dow := -1
	for name, n := range weekdays {
		if r.has(name, name+"s") {
			dow = n
		}
	}
	switch {
	case r.has("hourly", "every hour", "each hour"):
		r.cadence, r.cron = "hourly", fmt.Sprintf("%d * * * *", minute)
	case dow >= 0 || r.has("weekly", "week", "weekend"):
		if dow < 0 {
			dow = 1
		}
		r.cadence, r.cron = "weekly", fmt.Sprintf("%d %d * * %d", minute, hour, dow)
	case r.has("monthly", "month"):
		r.cadence, r.cron = "monthly", fmt.Sprintf("%d %d 1 * *", minute, hour)
	case r.has("daily", "day", "morning", "evening", "night", "nightly", "tonight") || reTime.MatchString(r.lower):
		r.cadence, r.cron = "daily", fmt.Sprintf("%d %d * * *", minute, hour)
	}
	return r
}

// what the user wants an agent to do
type intent int

const (
	intentNone intent = iota
	intentReport
	intentSummarize
	intentAnswer
	intentNotify
	intentExtract
	intentWebhook
)

func (r reading) intent() intent {
	switch {
	case r.webhook != "" || r.has("webhook"):
		return intentWebhook
	case r.has("extract", "extracts", "json", "fields", "parse", "structured"):
		return intentExtract
	case r.has("changes", "change", "changed", "notify", "alert", "alerts", "updates", "updated") && !r.has("summary", "digest", "report", "summaries", "summarize", "summarise"):
		return intentNotify
	case r.cron != "" && r.has("summary", "summaries", "digest", "report", "reports", "recap", "roundup", "newsletter", "briefing", "overview", "summarize", "summarise"):
		return intentReport
	case r.has("summary", "summaries", "summarize", "summarise", "digest", "tldr", "recap", "condense", "shorten"):
		return intentSummarize
	case r.has("answer", "answers", "question", "questions", "ask", "faq", "support", "chatbot", "chat", "help", "assistant", "lookup", "search", "find"):
		return intentAnswer
	case r.has("report", "reports", "briefing", "newsletter"):
		return intentReport
	}
	return intentNone
}

// wantsSources says whether the request names a place knowledge comes from.
func (r reading) wantsUploads() bool {
	return r.has("upload", "uploads", "uploaded", "documents", "document", "docs", "files", "file", "pdf", "pdfs", "manuals",
		"manual", "policies", "policy", "handbook", "contracts", "contract", "notes", "wiki", "knowledge", "library", "articles", "papers")
}

func (r reading) isFeed(u string) bool {
	l := strings.ToLower(u)
	return strings.Contains(l, "rss") || strings.Contains(l, "feed") || strings.Contains(l, "atom") || strings.HasSuffix(l, ".xml") ||
		(r.has("rss", "feed", "feeds", "atom", "podcast", "blog") && !r.has("website", "site", "page", "pages"))
}

func host(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return strings.TrimPrefix(p.Hostname(), "www.")
}

func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Offline plans a request for an assistant kind. me is the caller's e-mail
// address ("e-mail me"); lookup finds existing resources by name (nil: none).
func Offline(kind, input, me string, lookup Lookup) (string, []Action) {
	r := read(input)
	if acts, note, ok := offlineRemove(kind, r, lookup); ok {
		return note, acts
	}
	var actions []Action
	add := func(a Action) int {
		actions = append(actions, a)
		return len(actions)
	}
	name := ""
	if len(r.quoted) > 0 {
		name = clip(r.quoted[0], 100)
	}
	polling := "daily"
	if r.cadence == "hourly" || r.cadence == "weekly" {
		polling = r.cadence
	}
	var sources []int
	var sourceNames []string
	for _, u := range r.urls {
		typ, what := "website", "website"
		if r.isFeed(u) {
			typ, what = "rss", "RSS feed"
		}
		n := clip(host(u)+" "+map[string]string{"rss": "feed", "website": "site"}[typ], 120)
		if name != "" && len(r.urls) == 1 {
			n = name
		}
		sources = append(sources, add(Action{Type: CreateSource, Description: fmt.Sprintf("Create a %s source for %s, checked %s", what, u, polling),
			Params: map[string]any{"body": map[string]any{"name": n, "source_type": typ, "url_id": u, "polling": polling}}}))
		sourceNames = append(sourceNames, n)
	}
	in := intentNone
	if kind == KindSolution {
		in = r.intent()
	}
	needKnowledge := kind != KindSolution || in == intentAnswer || in == intentReport || in == intentNotify || len(r.urls) > 0 || r.wantsUploads()
	// Answers come from uploads only when the request names documents; a
	// bare "assistant" answers from the model alone.
	if len(sources) == 0 && needKnowledge && (kind != KindSolution || r.wantsUploads() || in == intentNotify) {
		n := "Uploaded documents"
		if name != "" {
			n = name
		}
		sources = append(sources, add(Action{Type: CreateSource, Description: "Create a source for documents you upload (files or text), indexed on arrival",
			Params: map[string]any{"body": map[string]any{"name": n, "source_type": "custom_index"}}}))
		sourceNames = append(sourceNames, n)
	}
	if kind == KindSource {
		if len(actions) == 0 {
			return "I could not find a source in this request. Name a feed or site URL, or say that you will upload documents.", nil
		}
		return fmt.Sprintf("Proposed %d source(s). Accept to create them, or decline to change nothing.", len(actions)), actions
	}
	kb := 0
	if len(sources) > 0 {
		ids := make([]any, len(sources))
		for i, n := range sources {
			ids[i] = fmt.Sprintf("$action_%d", n)
		}
		n := "Knowledge: " + strings.Join(sourceNames, ", ")
		if name != "" {
			n = name
		}
		n = clip(n, 200)
		kb = add(Action{Type: CreateKnowledgeBase, Description: fmt.Sprintf("Create a knowledge base %q over %s", n, strings.Join(sourceNames, ", ")),
			Params: map[string]any{"body": map[string]any{"name": n, "description": clip("Made by the assistant for: "+input, 1000), "source_ids": ids}}})
	}
	if kind == KindKnowledgeBase {
		return fmt.Sprintf("Proposed %d action(s): the sources and a knowledge base over them. Accept to create them, or decline to change nothing.", len(actions)), actions
	}
	to := ""
	if len(r.emails) > 0 {
		to = r.emails[0]
	} else if r.has("email", "emails", "mail", "inbox") && me != "" {
		to = me
	}
	agent, note := offlineAgent(r, in, input, name, kb, to)
	if agent != nil {
		add(*agent)
	}
	if len(actions) == 0 {
		return "I could not map this request onto a plan. Name what the agent should do (summarise, answer questions, alert on changes, extract fields, post to a webhook) and where its knowledge comes from (a feed or site URL, or documents you upload).", nil
	}
	return fmt.Sprintf("Proposed %d action(s). %sAccept to create them in order, or decline to change nothing.", len(actions), note), actions
}

// offlineAgent builds the create_agent action of a request.
func offlineAgent(r reading, in intent, input, name string, kb int, to string) (*Action, string) {
	kbRef := ""
	if kb > 0 {
		kbRef = fmt.Sprintf("$action_%d", kb)
	}
	var tmpl def.TemplateName
	trigger := def.TriggerDynamicInput
	var what string
	switch in {
	case intentReport:
		tmpl, trigger, what = def.TemplateScheduledReport, def.TriggerSchedule, r.cadence+" report"
	case intentNotify:
		if kbRef == "" {
			return nil, ""
		}
		tmpl, trigger, what = def.TemplateContentChangeNotifier, def.TriggerNewContent, "change notifier"
	case intentSummarize:
		tmpl, what = def.TemplateSummarizer, "summarizer"
		if kbRef != "" && r.cron != "" {
			tmpl, trigger, what = def.TemplateScheduledReport, def.TriggerSchedule, r.cadence+" summary"
		} else if kbRef != "" && r.has("new", "uploaded", "arrive", "arrives", "added", "incoming") {
			trigger = def.TriggerNewContent
		}
	case intentExtract:
		tmpl, what = def.TemplateJSONExtractor, "extractor"
		if kbRef != "" && r.has("upload", "uploads", "uploaded", "new", "arrive", "arrives", "added") {
			trigger = def.TriggerNewContent
		}
	case intentWebhook:
		tmpl, what = def.TemplateWebhookPipeline, "webhook pipeline"
		if kbRef != "" {
			trigger = def.TriggerNewContent
		}
	case intentAnswer:
		tmpl, what = def.TemplateSimpleQA, "assistant"
		if kbRef != "" {
			tmpl, what = def.TemplateRetrievalExample, "question answering"
		}
	default:
		if kbRef == "" {
			// No template fits better: an agent that follows the request
			// as its instruction for every input.
			tmpl, what = def.TemplateSimpleQA, "assistant"
		} else {
			tmpl, what = def.TemplateRetrievalExample, "question answering"
		}
	}
	if trigger == def.TriggerSchedule && r.cron == "" {
		r.cron, r.cadence = "0 8 * * *", "daily"
	}
	params := def.TemplateParams{Trigger: trigger, NotifyEmail: to, WebhookURL: r.webhook}
	if kbRef != "" && tmpl != def.TemplateSimpleQA {
		params.KnowledgeBaseID = kbRef
	}
	agentName := name
	if agentName == "" {
		agentName = strings.ToUpper(what[:1]) + what[1:]
		if len(r.urls) > 0 {
			agentName += " for " + host(r.urls[0])
		}
	}
	agentName = clip(agentName, 200)
	d, trig, err := def.NewFromTemplate(tmpl, agentName, params)
	if err != nil {
		return nil, ""
	}
	d.Description = clip(input, 1000)
	if in == intentNone && tmpl == def.TemplateSimpleQA {
		d.Walk("", func(v def.Visit) bool {
			if v.Step.Type == def.StepPromptCall {
				v.Step.Config["system_template"] = clip("Follow this instruction for every input: "+input, 4000)
			}
			return true
		})
	}
	trig1 := map[string]any{"trigger_type": string(trig)}
	desc := fmt.Sprintf("Create the agent %q from the %s template (trigger %s", agentName, tmpl, trig)
	if trig == def.TriggerSchedule {
		trig1["schedules"] = []any{map[string]any{"cron_expression": r.cron, "timezone": "UTC"}}
		desc += fmt.Sprintf(", %s at %q UTC", r.cadence, r.cron)
	}
	if trig == def.TriggerNewContent && kbRef != "" {
		trig1["knowledge_base_id"] = kbRef
		desc += ", on new content of the knowledge base"
	}
	desc += ")"
	steps := []string{}
	d.Walk("", func(v def.Visit) bool { steps = append(steps, string(v.Step.Type)); return true })
	desc += ": " + strings.Join(steps, " → ")
	note := ""
	if to != "" {
		desc += ", e-mailing " + to
	} else if r.has("email", "emails", "mail", "inbox") {
		note = "No e-mail address was found for you, so the agent shows its result instead of e-mailing it; add a send_email step later. "
	}
	payload := map[string]any{
		"agent":   map[string]any{"name": agentName, "description": clip(input, 1000), "definition": d},
		"trigger": trig1,
	}
	return &Action{Type: CreateAgent, Description: desc, Params: map[string]any{"body": map[string]any{
		"name": agentName, "description": clip(input, 1000), "trigger_type": string(trig), "agent_definition": payload}}}, note
}

// offlineRemove plans deleting resources named in quotes.
func offlineRemove(kind string, r reading, lookup Lookup) ([]Action, string, bool) {
	if !r.has("delete", "remove", "drop") || lookup == nil {
		return nil, "", false
	}
	resources := allowedResources[kind]
	var actions []Action
	var missing []string
	for _, n := range r.quoted {
		found := false
		for _, res := range []string{ResourceAgent, ResourceKnowledgeBase, ResourceSource} {
			if !slices.Contains(resources, res) {
				continue
			}
			if id, ok := lookup(res, n); ok {
				found = true
				typ := map[string]string{ResourceAgent: DeleteAgent, ResourceKnowledgeBase: DeleteKnowledgeBase, ResourceSource: DeleteSource}[res]
				actions = append(actions, Action{Type: typ, IsDestructive: true, Description: fmt.Sprintf("Delete the %s %q", strings.ReplaceAll(res, "_", " "), n),
					Params: map[string]any{"id": id}})
			}
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%q", n))
		}
	}
	if len(actions) == 0 {
		note := "Name what to delete in quotes."
		if len(missing) > 0 {
			note = "Nothing is named " + strings.Join(missing, ", ") + "."
		}
		return nil, note, true
	}
	note := fmt.Sprintf("Proposed %d deletion(s); accepting needs confirm_deletions: true.", len(actions))
	if len(missing) > 0 {
		note += " Nothing is named " + strings.Join(missing, ", ") + "."
	}
	return actions, note, true
}
