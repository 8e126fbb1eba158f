package web

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// A source's background jobs: exports (start, progress, cancel, download)
// and its embedding migration (start, progress, cancel). The jobs block
// refreshes itself every 2 seconds while one of them is under way.

func (c *Console) jobRoutes() {
	c.page("GET "+kPrefix+"/sources/{id}/jobs", c.sourceJobs)
	c.page("POST "+kPrefix+"/sources/{id}/exports", c.exportStart)
	c.page("POST "+kPrefix+"/sources/{id}/exports/{export}/cancel", c.exportCancel)
	c.page("GET "+kPrefix+"/sources/{id}/exports/{export}/download", c.exportDownload)
	c.page("POST "+kPrefix+"/sources/{id}/migration", c.migrationStart)
	c.page("POST "+kPrefix+"/sources/{id}/migration/cancel", c.migrationCancel)
}

// exportFormats are the formats an export writes.
var exportFormats = []string{"jsonl", "csv", "parquet", "zip"}

type jobsView struct {
	SourceID      string
	Exports       []client.SourceExport
	Migration     *client.EmbeddingMigration
	MigrationLive bool
	Model         string // the source's embedding model and size now
	Dimensions    int
	Live          bool // an export or the migration is under way
}

// readJobs reads the source's 10 newest exports and its latest migration.
func readJobs(req *Request, cl *client.Client, src *client.Source) (jobsView, error) {
	v := jobsView{SourceID: src.ID, Model: "agentry_offline_embed"}
	if src.EmbeddingModel != nil && *src.EmbeddingModel != "" {
		v.Model = *src.EmbeddingModel
	}
	if src.Dimensions != nil {
		v.Dimensions = *src.Dimensions
	}
	ex, err := cl.ListSourceExports(req.Ctx(), src.ID, client.SourceExportListOptions{Limit: 10})
	if err != nil {
		return v, err
	}
	v.Exports = ex.Items
	for i := range v.Exports {
		if !v.Exports[i].Finished() {
			v.Live = true
		}
	}
	if v.Migration, err = cl.EmbeddingMigration(req.Ctx(), src.ID); err != nil {
		return v, err
	}
	if m := v.Migration; m != nil && (m.Status == "pending" || m.Status == "running") {
		v.MigrationLive, v.Live = true, true
	}
	return v, nil
}

func (c *Console) sourceJobs(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	src, err := cl.GetSource(req.Ctx(), req.PathValue("id"))
	if err != nil {
		return err
	}
	v, err := readJobs(req, cl, src)
	if err != nil {
		return err
	}
	return req.Fragment(http.StatusOK, "knowledge_source.html", "jobs", v)
}

func (c *Console) exportStart(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	body := client.SourceExportRequest{Format: req.PostFormValue("format")}
	if q := strings.TrimSpace(req.PostFormValue("query_filter")); q != "" {
		body.QueryFilter = &q
	}
	if _, err := cl.CreateSourceExport(req.Ctx(), req.PathValue("id"), body); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderSource(req, http.StatusUnprocessableEntity, sourceView{Problems: ps})
		}
		return err
	}
	return req.Redirect(kPrefix + "/sources/" + req.PathValue("id") + "?done=export#jobs")
}

func (c *Console) exportCancel(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.CancelSourceExport(req.Ctx(), req.PathValue("id"), req.PathValue("export")); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderSource(req, http.StatusConflict, sourceView{Problems: ps})
		}
		return err
	}
	return req.Redirect(kPrefix + "/sources/" + req.PathValue("id") + "?done=export-cancelled#jobs")
}

// exportDownload streams the export's file through from the API.
func (c *Console) exportDownload(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	d, err := cl.DownloadSourceExport(req.Ctx(), req.PathValue("id"), req.PathValue("export"))
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && (ae.StatusCode == http.StatusConflict || ae.StatusCode == http.StatusGone) {
			return req.Error(ae.StatusCode, ae.Message)
		}
		return err
	}
	defer d.Close()
	name := strings.NewReplacer(`"`, "", "\r", "", "\n", "").Replace(d.FileName)
	if name == "" {
		name = "export-" + req.PathValue("export")
	}
	ct := d.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	req.W.Header().Set("Content-Type", ct)
	req.W.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if d.ContentLength >= 0 {
		req.W.Header().Set("Content-Length", strconv.FormatInt(d.ContentLength, 10))
	}
	_, err = io.Copy(req.W, d.Body)
	return err
}

func (c *Console) migrationStart(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	model := strings.TrimSpace(req.PostFormValue("model"))
	dims, err := strconv.Atoi(strings.TrimSpace(req.PostFormValue("dimensions")))
	if err != nil {
		return c.renderSource(req, http.StatusUnprocessableEntity, sourceView{Problems: []problem{{Severity: "error", Path: "target_dimensions",
			Message: "The size must be a whole number of dimensions."}}})
	}
	if _, err := cl.StartEmbeddingMigration(req.Ctx(), req.PathValue("id"), model, dims); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderSource(req, http.StatusUnprocessableEntity, sourceView{Problems: ps})
		}
		return err
	}
	return req.Redirect(kPrefix + "/sources/" + req.PathValue("id") + "?done=migration#jobs")
}

func (c *Console) migrationCancel(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.CancelEmbeddingMigration(req.Ctx(), req.PathValue("id")); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderSource(req, http.StatusConflict, sourceView{Problems: ps})
		}
		return err
	}
	return req.Redirect(kPrefix + "/sources/" + req.PathValue("id") + "?done=migration-cancelled#jobs")
}
