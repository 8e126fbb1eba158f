package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentry/agentry/client"
)

// Uploads from the browser: static/knowledge.js sends the file itself as
// the request body (fetch would give no upload progress; XMLHttpRequest
// does), its name in X-File-Name and the CSRF token in its header. The
// handler pipes the body into the API's multipart upload as it arrives:
// the console never holds the file (up to the API's 200 MiB), and the
// answer is JSON for the script.

// fileNameHeader carries the file's name, URI-encoded (headers are ASCII).
const fileNameHeader = "X-File-Name"

// uploadAnswer is what the script reads: the content and its status, or
// the reason the upload was refused.
type uploadAnswer struct {
	ContentID string `json:"content_id,omitempty"`
	Status    string `json:"status,omitempty"` // uploaded or duplicate
	Filename  string `json:"filename,omitempty"`
	URL       string `json:"url,omitempty"` // the content's console page
	Error     string `json:"error,omitempty"`
}

func (c *Console) sourceUpload(req *Request) error {
	return c.streamUpload(req, func(cl *client.Client, u client.Upload) (*client.ContentUpload, error) {
		return cl.UploadSourceFile(req.Ctx(), req.PathValue("id"), u)
	})
}

func (c *Console) contentUpload(req *Request) error {
	return c.streamUpload(req, func(cl *client.Client, u client.Upload) (*client.ContentUpload, error) {
		return cl.ReplaceContentFile(req.Ctx(), req.PathValue("id"), u)
	})
}

// streamUpload passes the request's body to send as the upload's file.
func (c *Console) streamUpload(req *Request, send func(*client.Client, client.Upload) (*client.ContentUpload, error)) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	name, err := url.PathUnescape(req.Header.Get(fileNameHeader))
	if err != nil || strings.TrimSpace(name) == "" {
		return answerUpload(req, http.StatusBadRequest, uploadAnswer{Error: "The upload has no file name (" + fileNameHeader + ")."})
	}
	if req.ContentLength > client.MaxUploadSize {
		return answerUpload(req, http.StatusRequestEntityTooLarge, uploadAnswer{Filename: name, Error: "The file is larger than the 200 MiB the API accepts."})
	}
	ct := req.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/octet-stream"
	}
	u := client.Upload{FileName: name, ContentType: ct, Content: http.MaxBytesReader(req.W, req.Body, client.MaxUploadSize)}
	if req.ContentLength > 0 {
		u.Size = req.ContentLength
	}
	up, err := send(cl, u)
	if err != nil {
		var ae *client.APIError
		switch {
		case errors.Is(err, client.ErrUploadTooLarge):
			return answerUpload(req, http.StatusRequestEntityTooLarge, uploadAnswer{Filename: name, Error: "The file is larger than the 200 MiB the API accepts."})
		case errors.As(err, &ae) && ae.StatusCode < 500:
			return answerUpload(req, ae.StatusCode, uploadAnswer{Filename: name, Error: ae.Message})
		}
		return err
	}
	a := uploadAnswer{Status: up.Status, Filename: up.Filename}
	if up.SourceConnectionContentVersionID != nil {
		a.ContentID = *up.SourceConnectionContentVersionID
		a.URL = kPrefix + "/contents/" + a.ContentID
	}
	return answerUpload(req, http.StatusOK, a)
}

func answerUpload(req *Request, status int, a uploadAnswer) error {
	req.W.Header().Set("Content-Type", "application/json")
	req.W.WriteHeader(status)
	return json.NewEncoder(req.W).Encode(a)
}
