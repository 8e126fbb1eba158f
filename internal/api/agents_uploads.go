package api

import (
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/fault"
	"github.com/danielgtaylor/huma/v2"
)

// Input uploads. The file part of the multipart body is streamed straight
// to the blob store: huma reads no body for this operation (its input has
// no Body), the input's resolver hands the handler the request's body
// reader, and the handler walks the parts with mime/multipart. Everything
// else — authentication, versions, request ids, the error shapes — is the
// same middleware as for every operation.

// multipartSlack is what a multipart body may carry beyond the file itself
// (boundaries, part headers, small fields) before its declared length
// alone shows the file is too large.
const multipartSlack = 1 << 20

// maxFormField bounds a form field other than the file.
const maxFormField = 64 << 10

const uploadPath = "/agents/{agent_id}/upload-input"

type uploadInput struct {
	AgentID       string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	body          io.Reader
	contentType   string
	contentLength int64
}

// Resolve captures the raw body; huma calls it after the parameters.
func (in *uploadInput) Resolve(ctx huma.Context) []error {
	in.body, in.contentType, in.contentLength = ctx.BodyReader(), ctx.Header("Content-Type"), -1
	if n, err := strconv.ParseInt(ctx.Header("Content-Length"), 10, 64); err == nil {
		in.contentLength = n
	}
	return nil
}

type uploadOutput struct{ Body UploadAgentInputResponse }

// registerUploadInput registers POST /agents/{agent_id}/upload-input and
// documents its multipart body, which huma cannot infer from an input
// without a Body.
func (s *Server) registerUploadInput(o huma.Operation) {
	o.DefaultStatus = http.StatusAccepted
	register(s, o, s.uploadAgentInput)
	if item := s.api.OpenAPI().Paths[uploadPath]; item != nil && item.Post != nil {
		item.Post.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"multipart/form-data": {Schema: &huma.Schema{Type: huma.TypeObject, Required: []string{"file"},
				Properties: map[string]*huma.Schema{"file": {Type: huma.TypeString, Format: "binary",
					Description: "The file, at most 200 MiB."}}}},
		}}
	}
}

func (s *Server) uploadAgentInput(ctx context.Context, in *uploadInput) (*uploadOutput, error) {
	p := principal(ctx)
	svc := s.agents()
	if err := svc.AcceptUploads(ctx, p.AccountID, in.AgentID); err != nil {
		return nil, fault.Name(err, "Agent")
	}
	limit := svc.MaxUploadBytes()
	if in.contentLength > limit+multipartSlack {
		return nil, fault.UploadTooLarge(limit, nil)
	}
	boundary, err := multipartBoundary(in.contentType)
	if err != nil {
		return nil, err
	}
	mr := multipart.NewReader(in.body, boundary)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, Invalid([]any{"body", "file"}, "Field required", "missing")
		}
		if err != nil {
			return nil, Invalid([]any{"body"}, "The multipart body could not be read: "+err.Error(), "value_error")
		}
		if part.FormName() != "file" {
			if n, _ := io.CopyN(io.Discard, part, maxFormField+1); n > maxFormField {
				return nil, Invalid([]any{"body", part.FormName()}, "Form fields other than file are limited to 64 KiB", "value_error")
			}
			continue
		}
		body := &readErr{r: part}
		u, err := svc.StoreUpload(ctx, agents.UploadInput{AccountID: p.AccountID, AgentID: in.AgentID, UserID: p.UserID,
			Filename: part.FileName(), DeclaredType: part.Header.Get("Content-Type"), Body: body})
		var tooLarge *fault.TooLarge
		switch {
		case errors.As(err, &tooLarge):
			return nil, err
		case err != nil && body.err != nil:
			// The client's body broke off or was not valid multipart: its
			// fault, not the server's.
			return nil, Invalid([]any{"body", "file"}, "The file part could not be read: "+body.err.Error(), "value_error")
		case err != nil:
			return nil, fault.Name(err, "Agent")
		}
		return &uploadOutput{Body: uploadResponse(u)}, nil
	}
}

// readErr remembers a failure of the request body, to tell a client's
// broken upload from a failure of the blob store.
type readErr struct {
	r   io.Reader
	err error
}

func (b *readErr) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.err = err
	}
	return n, err
}

type uploadStatusInput struct {
	AgentID  string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	UploadID string `path:"upload_id" format:"uuid" doc:"The upload's id."`
}

func (s *Server) getAgentInputUpload(ctx context.Context, in *uploadStatusInput) (*uploadOutput, error) {
	u, err := s.agents().Upload(ctx, principal(ctx).AccountID, in.AgentID, in.UploadID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &uploadOutput{Body: uploadResponse(u)}, nil
}
