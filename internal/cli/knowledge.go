package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() {
	addAPICommand(sourcesCommand)
	addAPICommand(contentsCommand)
	addAPICommand(kbCommand)
}

func optString(cmd *cobra.Command, name string, v string) *string {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func optInt(cmd *cobra.Command, name string, v int) *int {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func parseMeta(raw string) (map[string]any, error) {
	if raw == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, usageErrorf("--metadata must be a JSON object: %v", err)
	}
	return m, nil
}

// sourcesCommand is `agentry sources …`.
func sourcesCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "sources", Short: "Manage knowledge sources: content stores, RSS feeds and web sites"}
	var (
		typ, url, mode, polling, action, sepsFlag, lang, model string
		chunkSize, overlap, dims, maxItems, retention          int
	)
	create := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a source (custom_index by default; rss and website take --url)",
		Example: `  agentry sources create Handbook --index-mode balanced
  agentry sources create News --type rss --url https://example.com/feed.xml --polling hourly
  agentry sources create Docs --type website --url https://docs.example.com/`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			req := client.CreateSourceRequest{Name: args[0], SourceType: typ, URLID: optString(cmd, "url", url),
				IndexMode: optString(cmd, "index-mode", mode), Polling: optString(cmd, "polling", polling),
				PollingAction: optString(cmd, "polling-action", action), ChunkSeparators: optString(cmd, "separators", sepsFlag),
				ChunkLanguage: optString(cmd, "chunk-language", lang), EmbeddingModel: optString(cmd, "embedding-model", model),
				ChunkSize: optInt(cmd, "chunk-size", chunkSize), ChunkOverlap: optInt(cmd, "chunk-overlap", overlap),
				Dimensions: optInt(cmd, "dimensions", dims), PollingMaxItems: optInt(cmd, "polling-max-items", maxItems),
				Retention: optInt(cmd, "retention", retention)}
			s, err := c.CreateSource(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(cmd, s, func(w io.Writer) error { return writeFields(w, sourceFields(s)) })
		},
	}
	f := create.Flags()
	f.StringVar(&typ, "type", "custom_index", "custom_index, rss or website")
	f.StringVar(&url, "url", "", "feed or site URL (rss, website), or a URL record id")
	f.StringVar(&mode, "index-mode", "", "fast_and_cheap, balanced, slow_and_thorough or custom")
	f.StringVar(&polling, "polling", "", "hourly, daily, weekly, never, or a duration (6h)")
	f.StringVar(&action, "polling-action", "", "index (new items) or update (new and changed)")
	f.StringVar(&sepsFlag, "separators", "", "JSON list of chunk separators")
	f.StringVar(&lang, "chunk-language", "", "markdown, html, python, go, …")
	f.StringVar(&model, "embedding-model", "", "embedding model id (the offline embedder by default)")
	f.IntVar(&chunkSize, "chunk-size", 0, "chunk size in characters")
	f.IntVar(&overlap, "chunk-overlap", 0, "chunk overlap in characters")
	f.IntVar(&dims, "dimensions", 0, "embedding dimensions")
	f.IntVar(&maxItems, "polling-max-items", 0, "items read per poll")
	f.IntVar(&retention, "retention", 0, "days content is kept")

	list := &cobra.Command{
		Use: "list", Short: "List the account's sources", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			out := []client.Source{}
			for s, err := range c.Sources(cmd.Context(), client.SourceListOptions{}) {
				if err != nil {
					return err
				}
				out = append(out, s)
			}
			return a.print(cmd, out, func(w io.Writer) error {
				rows := make([][]string, len(out))
				for i, s := range out {
					rows[i] = []string{s.ID, s.Name, s.SourceType, strconv.Itoa(s.ContentCount), deref(s.URL)}
				}
				return writeTable(w, []string{"ID", "Name", "Type", "Contents", "URL"}, rows)
			})
		},
	}
	get := &cobra.Command{
		Use: "get SOURCE_ID", Short: "Show a source", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := c.GetSource(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(cmd, s, func(w io.Writer) error { return writeFields(w, sourceFields(s)) })
		},
	}
	var newName, newPolling string
	var newRetention int
	update := &cobra.Command{
		Use: "update SOURCE_ID", Short: "Rename a source, or change its polling or retention", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := c.UpdateSource(cmd.Context(), args[0], client.UpdateSourceRequest{Name: optString(cmd, "name", newName),
				Polling: optString(cmd, "polling", newPolling), RetentionDays: optInt(cmd, "retention", newRetention)})
			if err != nil {
				return err
			}
			return a.print(cmd, s, func(w io.Writer) error { return writeFields(w, sourceFields(s)) })
		},
	}
	update.Flags().StringVar(&newName, "name", "", "new name")
	update.Flags().StringVar(&newPolling, "polling", "", "new polling interval")
	update.Flags().IntVar(&newRetention, "retention", 0, "days content is kept")
	del := &cobra.Command{
		Use: "delete SOURCE_ID", Short: "Delete a source and its contents", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteSource(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "deleted")
			return nil
		},
	}
	var title, meta, ctype string
	addText := &cobra.Command{
		Use: "add-text SOURCE_ID TEXT", Short: "Add a short text (at most 8192 bytes; - reads standard input)", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := args[1]
			if text == "-" {
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 8193))
				if err != nil {
					return err
				}
				text = string(b)
			}
			m, err := parseMeta(meta)
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.AddSourceText(cmd.Context(), args[0], client.InlineText{Text: text, ContentType: ctype, Title: optString(cmd, "title", title), Metadata: m})
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error { return writeFields(w, uploadFields(r)) })
		},
	}
	addText.Flags().StringVar(&title, "title", "", "title (merged into metadata.title)")
	addText.Flags().StringVar(&meta, "metadata", "", "metadata, a JSON object")
	addText.Flags().StringVar(&ctype, "content-type", "text/plain", "text/plain, text/markdown, text/html, text/csv, application/json…")
	var upMeta, upTitle string
	up := &cobra.Command{
		Use:   "upload SOURCE_ID PATH…",
		Short: "Upload files (a directory uploads every file in it, recursively), with a progress bar",
		Example: `  agentry sources upload $SRC ./handbook           # every file under ./handbook
  agentry sources upload $SRC report.pdf --metadata '{"team":"finance"}'`,
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := parseMeta(upMeta)
			if err != nil {
				return err
			}
			var files []string
			for _, p := range args[1:] {
				st, err := os.Stat(p)
				if err != nil {
					return usageErrorf("%v", err)
				}
				if !st.IsDir() {
					files = append(files, p)
					continue
				}
				err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != p {
						return filepath.SkipDir
					}
					if !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
						files = append(files, path)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			var out []client.ContentUpload
			for _, file := range files {
				u := client.Upload{Fields: map[string]string{}}
				if m != nil {
					u.Metadata = m
				}
				if upTitle != "" {
					u.Fields["title"] = upTitle
				}
				var r client.ContentUpload
				if err := a.uploadFile(cmd, c, "/sources/"+args[0]+"/upload", file, u, &r); err != nil {
					return fmt.Errorf("%s: %w", file, err)
				}
				out = append(out, r)
			}
			return a.print(cmd, out, func(w io.Writer) error {
				rows := make([][]string, len(out))
				for i, r := range out {
					rows[i] = []string{deref(r.SourceConnectionContentVersionID), r.Filename, r.Status}
				}
				return writeTable(w, []string{"Content", "File", "Status"}, rows)
			})
		},
	}
	up.Flags().StringVar(&upMeta, "metadata", "", "metadata for every file, a JSON object")
	up.Flags().StringVar(&upTitle, "title", "", "title (for a single file)")
	cmd.AddCommand(create, list, get, update, del, addText, up, migrationCommand(a), sourceContentsCommand(a))
	return cmd
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sourceFields(s *client.Source) [][2]string {
	return [][2]string{{"ID", s.ID}, {"Name", s.Name}, {"Type", s.SourceType}, {"URL", deref(s.URL)}, {"Index mode", deref(s.IndexMode)},
		{"Contents", strconv.Itoa(s.ContentCount)}, {"Polling", deref(s.Polling)}, {"Next poll", deref(s.NextPollAt)}, {"Created", s.CreatedAt}}
}

func uploadFields(r *client.ContentUpload) [][2]string {
	return [][2]string{{"Content", deref(r.SourceConnectionContentVersionID)}, {"Version", deref(r.ContentVersionID)},
		{"File", r.Filename}, {"Status", r.Status}}
}

// contentsCommand is `agentry contents …`.
func contentsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "contents", Short: "Read, replace and delete the contents of sources"}
	var start, end int
	get := &cobra.Command{
		Use: "get CONTENT_ID", Short: "Show a content, its status and a range of its text", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			ct, err := c.GetContent(cmd.Context(), args[0], start, end)
			if err != nil {
				return err
			}
			return a.print(cmd, ct, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"ID", ct.ID}, {"Title", deref(ct.Title)}, {"Status", ct.ContentStatus},
					{"Type", ct.ContentType}, {"Source", ct.SourceName}, {"Error", deref(ct.Error)}, {"Text", deref(ct.TextContent)}})
			})
		},
	}
	get.Flags().IntVar(&start, "start", 0, "first character of the text shown")
	get.Flags().IntVar(&end, "end", 5000, "character after the last shown")
	del := &cobra.Command{
		Use: "delete CONTENT_ID", Short: "Delete a content and its passages", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteContent(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "deleted")
			return nil
		},
	}
	var ctype string
	replace := &cobra.Command{
		Use: "replace CONTENT_ID TEXT", Short: "Replace a content with inline text (a new version)", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.ReplaceContentText(cmd.Context(), args[0], client.InlineText{Text: args[1], ContentType: ctype})
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error { return writeFields(w, uploadFields(r)) })
		},
	}
	replace.Flags().StringVar(&ctype, "content-type", "text/plain", "media type of the text")
	upload := &cobra.Command{
		Use: "upload CONTENT_ID FILE", Short: "Replace a content with a file (a new version), with a progress bar", Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			var r client.ContentUpload
			if err := a.uploadFile(cmd, c, "/contents/"+args[0]+"/upload", args[1], client.Upload{}, &r); err != nil {
				return err
			}
			return a.print(cmd, &r, func(w io.Writer) error { return writeFields(w, uploadFields(&r)) })
		},
	}
	var page, limit int
	embeddings := &cobra.Command{
		Use: "embeddings CONTENT_ID", Short: "List a content's passages and vectors", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListContentEmbeddings(cmd.Context(), args[0], page, limit)
			if err != nil {
				return err
			}
			return a.print(cmd, p, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, e := range p.Items {
					rows[i] = []string{strconv.Itoa(e.TextStart), strconv.Itoa(e.TextEnd), strconv.Itoa(len(e.Vector)), clip(e.Text, 60)}
				}
				return writeTable(w, []string{"Start", "End", "Dims", "Text"}, rows)
			})
		},
	}
	embeddings.Flags().IntVar(&page, "page", 1, "page")
	embeddings.Flags().IntVar(&limit, "limit", 20, "passages per page (1-100)")
	cmd.AddCommand(get, del, replace, upload, embeddings)
	return cmd
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// kbCommand is `agentry kb …`.
func kbCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "kb", Aliases: []string{"knowledge-bases"}, Short: "Manage knowledge bases and search them"}
	var (
		sources        []string
		desc, reranker string
		topN, topK     int
		threshold      float64
	)
	kbReq := func(cmd *cobra.Command) client.KnowledgeBaseRequest {
		r := client.KnowledgeBaseRequest{Description: optString(cmd, "description", desc), RerankerModel: optString(cmd, "reranker", reranker),
			DefaultTopN: optInt(cmd, "top-n", topN), DefaultTopK: optInt(cmd, "top-k", topK)}
		if cmd.Flags().Changed("source") {
			r.SourceIDs = &sources
		}
		if cmd.Flags().Changed("threshold") {
			r.DefaultScoreThreshold = &threshold
		}
		return r
	}
	kbFlags := func(c *cobra.Command) {
		c.Flags().StringSliceVar(&sources, "source", nil, "source id (repeat for several)")
		c.Flags().StringVar(&desc, "description", "", "description")
		c.Flags().StringVar(&reranker, "reranker", "", "reranker model (offline, or one the operator configured)")
		c.Flags().IntVar(&topN, "top-n", 0, "default passages retrieved")
		c.Flags().IntVar(&topK, "top-k", 0, "default passages kept after reranking")
		c.Flags().Float64Var(&threshold, "threshold", 0, "default minimum score")
	}
	show := func(cmd *cobra.Command, k *client.KnowledgeBase) error {
		return a.print(cmd, k, func(w io.Writer) error {
			ids := make([]string, len(k.Sources))
			for i, s := range k.Sources {
				ids[i] = s.ID + " (" + s.Name + ")"
			}
			return writeFields(w, [][2]string{{"ID", k.ID}, {"Name", k.Name}, {"Sources", strings.Join(ids, ", ")}, {"Reranker", deref(k.RerankerModel)}})
		})
	}
	create := &cobra.Command{
		Use: "create NAME --source SOURCE_ID…", Short: "Create a knowledge base over sources", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r := kbReq(cmd)
			r.Name = &args[0]
			k, err := c.CreateKnowledgeBase(cmd.Context(), r)
			if err != nil {
				return err
			}
			return show(cmd, k)
		},
	}
	kbFlags(create)
	var newName string
	update := &cobra.Command{
		Use: "update KB_ID", Short: "Change a knowledge base", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r := kbReq(cmd)
			r.Name = optString(cmd, "name", newName)
			k, err := c.UpdateKnowledgeBase(cmd.Context(), args[0], r)
			if err != nil {
				return err
			}
			return show(cmd, k)
		},
	}
	kbFlags(update)
	update.Flags().StringVar(&newName, "name", "", "new name")
	list := &cobra.Command{
		Use: "list", Short: "List knowledge bases", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListKnowledgeBases(cmd.Context(), client.SourceListOptions{Limit: 100})
			if err != nil {
				return err
			}
			return a.print(cmd, p.Items, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, k := range p.Items {
					rows[i] = []string{k.ID, k.Name, strconv.Itoa(len(k.Sources))}
				}
				return writeTable(w, []string{"ID", "Name", "Sources"}, rows)
			})
		},
	}
	get := &cobra.Command{
		Use: "get KB_ID", Short: "Show a knowledge base", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			k, err := c.GetKnowledgeBase(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return show(cmd, k)
		},
	}
	del := &cobra.Command{
		Use: "delete KB_ID", Short: "Delete a knowledge base no agent uses", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteKnowledgeBase(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "deleted")
			return nil
		},
	}
	var sTopN, sTopK, sDepth int
	var sThreshold, sWeight float64
	var filter, sMode string
	var sFeedback, sExplain bool
	search := &cobra.Command{
		Use:   "search KB_ID QUERY",
		Short: "Search a knowledge base (an Agentry extension)",
		Example: `  agentry kb search $KB "how do refunds work" --top-k 3 --filter '{"team":"support"}'
  agentry kb search $KB "refund window" --explain --mode full_text`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := parseMeta(filter)
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			req := client.KnowledgeSearchRequest{Query: args[1], TopN: optInt(cmd, "top-n", sTopN), TopK: optInt(cmd, "top-k", sTopK), MetadataFilter: m,
				Mode: sMode, CandidateDepth: optInt(cmd, "candidate-depth", sDepth), Feedback: optBool(cmd, "feedback", sFeedback),
				VectorWeight: optFloat(cmd, "vector-weight", sWeight), Explain: sExplain}
			if cmd.Flags().Changed("threshold") {
				req.ScoreThreshold = &sThreshold
			}
			r, err := c.SearchKnowledgeBase(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error {
				rows := make([][]string, len(r.Results))
				for i, h := range r.Results {
					rows[i] = []string{strconv.Itoa(i + 1), fmt.Sprintf("%.3f", h.Score), h.Title, clip(h.Text, 70)}
					if sExplain && h.Explain != nil {
						e := h.Explain
						rows[i] = append(rows[i], optNum(e.FullTextScore, "%.3f"), optRank(e.FullTextRank), optNum(e.VectorSimilarity, "%.3f"), optRank(e.VectorRank))
					}
				}
				head := []string{"#", "Score", "Title", "Passage"}
				if sExplain {
					head = append(head, "Full text", "FT rank", "Vector", "V rank")
				}
				return writeTable(w, head, rows)
			})
		},
	}
	search.Flags().IntVar(&sTopN, "top-n", 0, "passages retrieved")
	search.Flags().IntVar(&sTopK, "top-k", 0, "passages kept")
	search.Flags().Float64Var(&sThreshold, "threshold", 0, "minimum score")
	search.Flags().StringVar(&filter, "filter", "", "metadata filter, a JSON object")
	search.Flags().StringVar(&sMode, "mode", "", "override the search mode: hybrid, full_text or vector")
	search.Flags().Float64Var(&sWeight, "vector-weight", 0, "override the vector side's weight (0 to 1)")
	search.Flags().IntVar(&sDepth, "candidate-depth", 0, "override the candidates each side contributes (10 to 1000)")
	search.Flags().BoolVar(&sFeedback, "feedback", false, "override RM3 feedback (--feedback=false turns it off)")
	search.Flags().BoolVar(&sExplain, "explain", false, "show how each result was ranked")
	cmd.AddCommand(create, list, get, update, del, search, searchSettingsCommand(a))
	return cmd
}

func optBool(cmd *cobra.Command, name string, v bool) *bool {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func optFloat(cmd *cobra.Command, name string, v float64) *float64 {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func optNum(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

func optRank(v *int) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(*v)
}

// searchSettingsCommand is `agentry kb settings`: a knowledge base's
// search settings (an Agentry extension).
func searchSettingsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "settings", Short: "Show or change a knowledge base's search settings (an Agentry extension)"}
	printSettings := func(cmd *cobra.Command, r *client.SearchSettings) error {
		return a.print(cmd, r, func(w io.Writer) error {
			rr := "none"
			if r.RerankerModel != nil {
				rr = *r.RerankerModel
			}
			return writeFields(w, [][2]string{{"Mode", r.Mode}, {"Vector weight", strconv.FormatFloat(r.VectorWeight, 'g', -1, 64)},
				{"Candidate depth", strconv.Itoa(r.CandidateDepth)}, {"Feedback", strconv.FormatBool(r.Feedback)}, {"Reranker", rr},
				{"Set explicitly", orNone(strings.Join(r.Explicit, ", "))}, {"Defaults for", r.Basis}})
		})
	}
	get := &cobra.Command{
		Use: "get KB_ID", Short: "Show a knowledge base's search settings", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.KnowledgeBaseSearchSettings(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printSettings(cmd, r)
		},
	}
	var mode, reranker string
	var weight float64
	var depth int
	var feedback bool
	var reset []string
	set := &cobra.Command{
		Use:   "set KB_ID",
		Short: "Change a knowledge base's search settings; flags not given stay",
		Example: `  agentry kb settings set $KB --mode hybrid --vector-weight 0.3 --feedback
  agentry kb settings set $KB --reset vector_weight,feedback`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.UpdateKnowledgeBaseSearchSettings(cmd.Context(), args[0], client.SearchSettingsUpdate{
				Mode: optString(cmd, "mode", mode), VectorWeight: optFloat(cmd, "vector-weight", weight),
				CandidateDepth: optInt(cmd, "candidate-depth", depth), Feedback: optBool(cmd, "feedback", feedback),
				RerankerModel: optString(cmd, "reranker", reranker), Reset: reset})
			if err != nil {
				return err
			}
			return printSettings(cmd, r)
		},
	}
	set.Flags().StringVar(&mode, "mode", "", "hybrid, full_text or vector")
	set.Flags().Float64Var(&weight, "vector-weight", 0, "the vector side's weight in hybrid mode (0 to 1)")
	set.Flags().IntVar(&depth, "candidate-depth", 0, "candidates each side contributes (10 to 1000)")
	set.Flags().BoolVar(&feedback, "feedback", false, "RM3 feedback (--feedback=false turns it off)")
	set.Flags().StringVar(&reranker, "reranker", "", `reranker model ("" removes it)`)
	set.Flags().StringSliceVar(&reset, "reset", nil, "fields back to their defaults: mode, vector_weight, candidate_depth, feedback, reranker_model")
	cmd.AddCommand(get, set)
	return cmd
}

// minArgs is cobra.MinimumNArgs with a usage error.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}
