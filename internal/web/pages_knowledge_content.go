package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// A content's page: its status (live until indexed or failed, with the
// reason), metadata, the extracted text a range at a time, its passages
// (chunks) a page at a time, and replacing it with new text or a new file
// (a new version; the id stays). The API keeps a content's current
// version only, so the page shows no history of older versions.

func (c *Console) contentRoutes() {
	c.page("GET "+kPrefix+"/contents/{id}", c.contentPage)
	c.page("GET "+kPrefix+"/contents/{id}/status", c.contentStatus)
	c.page("POST "+kPrefix+"/contents/{id}/replace", c.contentReplace)
	c.page("POST "+kPrefix+"/contents/{id}/upload", c.contentUpload)
	c.page("POST "+kPrefix+"/contents/{id}/delete", c.contentDelete)
}

// textWindow is how many characters of the text the page shows at once.
const textWindow = 5000

// chunksPerPage is how many passages the page shows at once.
const chunksPerPage = 20

type contentView struct {
	Content       *client.Content
	Title         string
	Live          bool
	Start, End    int // the text shown
	PrevStart     int // -1 on the first window
	NextStart     int // -1 on the last window
	Chunks        []client.ContentEmbedding
	ChunkPage     int
	ChunkPages    int
	ChunkTotal    int
	Dimensions    int
	ReplaceText   string
	MaxUpload     int64
	Problems      []problem
	NoticeMessage string
}

func (v contentView) flash() string { return v.NoticeMessage }

func (c *Console) contentPage(req *Request) error {
	return c.renderContent(req, http.StatusOK, contentView{NoticeMessage: notice(req)})
}

func (c *Console) renderContent(req *Request, status int, v contentView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	start, _ := strconv.Atoi(q.Get("start"))
	start = max(start, 0)
	id := req.PathValue("id")
	if v.Content, err = cl.GetContent(req.Ctx(), id, start, start+textWindow); err != nil {
		return err
	}
	ct := v.Content
	v.MaxUpload = client.MaxUploadSize
	v.Title = contentTitle(ct)
	v.Live = ct.ContentStatus != client.ContentIndexed && ct.ContentStatus != client.ContentFailed
	v.Start, v.End = ct.TextContentStart, ct.TextContentEnd
	v.PrevStart, v.NextStart = -1, -1
	if v.Start > 0 {
		v.PrevStart = max(0, v.Start-textWindow)
	}
	if v.End < ct.TextContentTotalLength {
		v.NextStart = v.End
	}
	v.ChunkPage, _ = strconv.Atoi(q.Get("chunks"))
	v.ChunkPage = max(v.ChunkPage, 1)
	chunks, err := cl.ListContentEmbeddings(req.Ctx(), id, v.ChunkPage, chunksPerPage)
	if err != nil {
		return err
	}
	v.Chunks, v.ChunkPages, v.ChunkTotal = chunks.Items, chunks.Pages, chunks.Total
	if len(v.Chunks) > 0 {
		v.Dimensions = len(v.Chunks[0].Vector)
	}
	return req.Page(status, "knowledge_content.html", v.Title, "knowledge", v)
}

// contentTitle is a content's title, else the last part of its URL.
func contentTitle(ct *client.Content) string {
	if ct.Title != nil && strings.TrimSpace(*ct.Title) != "" {
		return *ct.Title
	}
	if i := strings.LastIndex(ct.ContentURL, "/"); i >= 0 && i < len(ct.ContentURL)-1 {
		return ct.ContentURL[i+1:]
	}
	if ct.ContentURL != "" {
		return ct.ContentURL
	}
	return ct.ID
}

// contentStatus is the status block alone, which htmx polls every 2
// seconds while the content is on its way; once it is indexed or failed
// the block comes back without its trigger, so the polling stops.
func (c *Console) contentStatus(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	ct, err := cl.GetContent(req.Ctx(), req.PathValue("id"), 0, 1)
	if err != nil {
		return err
	}
	live := ct.ContentStatus != client.ContentIndexed && ct.ContentStatus != client.ContentFailed
	if !live && req.URL.Query().Get("was") == "live" {
		// The text and passages are there now: reload the whole page.
		req.W.Header().Set("HX-Refresh", "true")
	}
	return req.Fragment(http.StatusOK, "knowledge_content.html", "content-status", contentView{Content: ct, Live: live})
}

func (c *Console) contentReplace(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	text := req.PostFormValue("text")
	if _, err := cl.ReplaceContentText(req.Ctx(), req.PathValue("id"), client.InlineText{Text: text}); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderContent(req, http.StatusUnprocessableEntity, contentView{Problems: ps, ReplaceText: text})
		}
		return err
	}
	return req.Redirect(kPrefix + "/contents/" + req.PathValue("id") + "?done=replaced")
}

func (c *Console) contentDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	ct, err := cl.GetContent(req.Ctx(), req.PathValue("id"), 0, 1)
	if err != nil {
		return err
	}
	if err := cl.DeleteContent(req.Ctx(), ct.ID); err != nil {
		return err
	}
	return req.Redirect(kPrefix + "/sources/" + ct.SourceConnectionID)
}
