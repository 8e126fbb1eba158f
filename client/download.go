package client

import (
	"context"
	"io"
	"mime"
	"net/http"
)

// Download is a response body to stream; the caller must Close it.
type Download struct {
	Body          io.ReadCloser
	ContentType   string
	ContentLength int64 // -1 when unknown
	FileName      string
	Header        http.Header
}

// Close releases the connection.
func (d *Download) Close() error { return d.Body.Close() }

// Download fetches path and returns its body unread, so that large files
// go straight to their destination instead of through memory.
func (c *Client) Download(ctx context.Context, path string, opts ...CallOption) (*Download, error) {
	opts = append([]CallOption{WithRequestHeader("Accept", "*/*")}, opts...)
	req, co, err := c.newRequest(ctx, http.MethodGet, path, nil, "", opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(req, co)
	if err != nil {
		return nil, err
	}
	d := &Download{Body: resp.Body, ContentType: resp.Header.Get("Content-Type"),
		ContentLength: resp.ContentLength, Header: resp.Header}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		d.FileName = params["filename"]
	}
	return d, nil
}
