package s3

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Multipart uploads carry an object of a length not known in advance
// (a streamed upload, an export being written) part by part, so no more
// than one part is ever held in memory.

// MinPartSize is the smallest part S3 accepts but for the last (5 MiB);
// MaxParts is the most one upload may have.
const (
	MinPartSize = 5 << 20
	MaxParts    = 10000
)

// CreateMultipartUpload begins an upload to bucket/key and returns its id.
func (c *Client) CreateMultipartUpload(ctx context.Context, bucket, key string, o PutOptions) (string, error) {
	resp, done, err := c.do(ctx, request{op: "CreateMultipartUpload", method: http.MethodPost, bucket: bucket, key: key,
		query: url.Values{"uploads": {""}}, header: o.header()})
	if err != nil {
		return "", err
	}
	defer done()
	defer resp.Body.Close()
	var doc struct {
		UploadID string `xml:"UploadId"`
	}
	if err := readAnswer(resp, maxAnswerBody, "CreateMultipartUpload", &doc); err != nil {
		return "", err
	}
	if doc.UploadID == "" {
		return "", fmt.Errorf("s3 CreateMultipartUpload %s/%s: no upload id in the answer", bucket, key)
	}
	return doc.UploadID, nil
}

// Part is an uploaded part, as CompleteMultipartUpload names it.
type Part struct {
	Number int
	ETag   string
}

// UploadPart uploads part number n (1 to MaxParts) of an upload.
func (c *Client) UploadPart(ctx context.Context, bucket, key, uploadID string, n int, body []byte) (Part, error) {
	if n < 1 || n > MaxParts {
		return Part{}, fmt.Errorf("s3 UploadPart %s/%s: part number %d out of 1..%d", bucket, key, n, MaxParts)
	}
	if len(body) > MaxPutSize {
		return Part{}, fmt.Errorf("s3 UploadPart %s/%s: a part of %d bytes is larger than 5 GiB", bucket, key, len(body))
	}
	q := url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {uploadID}}
	resp, done, err := c.do(ctx, request{op: "UploadPart", method: http.MethodPut, bucket: bucket, key: key, query: q, body: body})
	if err != nil {
		return Part{}, err
	}
	defer done()
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if etag == "" {
		return Part{}, fmt.Errorf("s3 UploadPart %s/%s: no ETag in the answer", bucket, key)
	}
	return Part{Number: n, ETag: etag}, nil
}

// CompleteMultipartUpload joins the parts into the object.
func (c *Client) CompleteMultipartUpload(ctx context.Context, bucket, key, uploadID string, parts []Part) error {
	type xmlPart struct {
		PartNumber int    `xml:"PartNumber"`
		ETag       string `xml:"ETag"`
	}
	doc := struct {
		XMLName xml.Name  `xml:"CompleteMultipartUpload"`
		Parts   []xmlPart `xml:"Part"`
	}{}
	for _, p := range parts {
		doc.Parts = append(doc.Parts, xmlPart{PartNumber: p.Number, ETag: p.ETag})
	}
	body, err := xml.Marshal(doc)
	if err != nil {
		return err
	}
	resp, done, err := c.do(ctx, request{op: "CompleteMultipartUpload", method: http.MethodPost, bucket: bucket, key: key,
		query: url.Values{"uploadId": {uploadID}}, header: http.Header{"Content-Type": {"application/xml"}}, body: body})
	if err != nil {
		return err
	}
	defer done()
	defer resp.Body.Close()
	// The store may answer 200 and still report a failure in the body
	// (it sends the status before it knows the outcome).
	var answer struct {
		XMLName xml.Name
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if err := readAnswer(resp, maxAnswerBody, "CompleteMultipartUpload", &answer); err != nil {
		return err
	}
	if answer.XMLName.Local == "Error" {
		return &Error{Op: "CompleteMultipartUpload", Bucket: bucket, Key: key, StatusCode: resp.StatusCode, Code: answer.Code, Message: answer.Message}
	}
	return nil
}

// AbortMultipartUpload discards an upload and the parts it stored.
func (c *Client) AbortMultipartUpload(ctx context.Context, bucket, key, uploadID string) error {
	resp, done, err := c.do(ctx, request{op: "AbortMultipartUpload", method: http.MethodDelete, bucket: bucket, key: key,
		query: url.Values{"uploadId": {uploadID}}})
	if err != nil {
		return err
	}
	defer done()
	resp.Body.Close()
	return nil
}

// Upload is an incomplete multipart upload.
type Upload struct {
	Key       string
	UploadID  string
	Initiated time.Time
}

// UploadsPage is one page of a bucket's incomplete uploads.
type UploadsPage struct {
	Uploads                           []Upload
	IsTruncated                       bool
	NextKeyMarker, NextUploadIDMarker string
}

// ListMultipartUploads lists one page of the incomplete uploads under
// prefix, after the markers of the previous page.
func (c *Client) ListMultipartUploads(ctx context.Context, bucket, prefix, keyMarker, uploadIDMarker string) (UploadsPage, error) {
	q := url.Values{"uploads": {""}}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	if keyMarker != "" {
		q.Set("key-marker", keyMarker)
	}
	if uploadIDMarker != "" {
		q.Set("upload-id-marker", uploadIDMarker)
	}
	resp, done, err := c.do(ctx, request{op: "ListMultipartUploads", method: http.MethodGet, bucket: bucket, query: q})
	if err != nil {
		return UploadsPage{}, err
	}
	defer done()
	defer resp.Body.Close()
	var doc struct {
		IsTruncated        bool   `xml:"IsTruncated"`
		NextKeyMarker      string `xml:"NextKeyMarker"`
		NextUploadIDMarker string `xml:"NextUploadIdMarker"`
		Uploads            []struct {
			Key       string `xml:"Key"`
			UploadID  string `xml:"UploadId"`
			Initiated string `xml:"Initiated"`
		} `xml:"Upload"`
	}
	if err := readAnswer(resp, maxListBody, "ListMultipartUploads", &doc); err != nil {
		return UploadsPage{}, err
	}
	page := UploadsPage{IsTruncated: doc.IsTruncated, NextKeyMarker: doc.NextKeyMarker, NextUploadIDMarker: doc.NextUploadIDMarker}
	for _, u := range doc.Uploads {
		at, err := time.Parse(time.RFC3339, u.Initiated)
		if err != nil {
			return page, fmt.Errorf("s3 ListMultipartUploads %s: upload %s of %s: bad Initiated time %q", bucket, u.UploadID, u.Key, u.Initiated)
		}
		page.Uploads = append(page.Uploads, Upload{Key: u.Key, UploadID: u.UploadID, Initiated: at})
	}
	return page, nil
}
