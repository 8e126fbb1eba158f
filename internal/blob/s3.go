package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/s3"
)

// s3Store keeps blobs in an S3-compatible bucket.
type s3Store struct {
	client *s3.Client
	bucket string
	opts   s3.PutOptions
	// partSize is what a write holds in memory at a time: a blob that
	// fits goes up in one PutObject, a larger one in parts of this size.
	partSize int
}

// defaultPartSize bounds the memory of one write to 8 MiB and the size of
// a blob to 8 MiB × 10,000 parts (78 GiB).
const defaultPartSize = 8 << 20

// openS3Store opens s3://BUCKET with the parameters gocloud.dev's s3blob
// took that mean something here: region, endpoint, use_path_style (or
// s3ForcePathStyle), disable_https, profile, ssetype, kmskeyid, anonymous.
// The checksum settings it took are accepted and have no effect (this
// client sends no checksum headers, which is what S3-compatible stores
// expect); the others (accelerate, dualstack, fips, role, …) are refused
// by name rather than ignored.
func openS3Store(_ context.Context, u *url.URL, q url.Values) (*s3Store, error) {
	if u.Host == "" {
		return nil, errors.New("blob url: s3:// needs a bucket (s3://BUCKET?region=…)")
	}
	st := &s3Store{bucket: u.Host, partSize: defaultPartSize}
	c := &s3.Client{
		// The operator's own store: a redirect is answered as an error
		// rather than followed with the signed request.
		HTTP: &http.Client{Transport: http.DefaultTransport, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		ReadIdleTimeout: 2 * time.Minute,
	}
	var region, endpoint, profile string
	var anonymous, insecure bool
	boolParam := func(k, v string) (bool, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("blob url: %s=%q: want true or false", k, v)
		}
		return b, nil
	}
	for k, vs := range q {
		v := vs[0]
		var err error
		switch k {
		case "region":
			region = v
		case "endpoint":
			endpoint = v
		case "use_path_style", "s3ForcePathStyle":
			c.PathStyle, err = boolParam(k, v)
		case "disable_https":
			insecure, err = boolParam(k, v)
		case "anonymous":
			anonymous, err = boolParam(k, v)
		case "profile":
			profile = v
		case "ssetype":
			switch strings.ToLower(v) {
			case "aes256":
				st.opts.ServerSideEncryption = "AES256"
			case "aws:kms", "aws:kms:dsse":
				st.opts.ServerSideEncryption = strings.ToLower(v)
			default:
				err = fmt.Errorf("blob url: ssetype=%q: want AES256, aws:kms or aws:kms:dsse", v)
			}
		case "kmskeyid":
			st.opts.KMSKeyID = v
		case "request_checksum_calculation", "response_checksum_validation", "awssdk":
		default:
			err = fmt.Errorf("blob url: parameter %q of s3:// is not supported", k)
		}
		if err != nil {
			return nil, err
		}
	}
	// Credentials are looked for now, so that a server without any says
	// so when it starts rather than at its first upload.
	settings, err := s3.LoadSettings(profile)
	if err != nil && !(anonymous && errors.Is(err, s3.ErrNoCredentials)) {
		return nil, fmt.Errorf("blob store s3://%s: %w", st.bucket, err)
	}
	if !anonymous {
		c.Credentials = settings.Credentials
	}
	c.Region = region
	if c.Region == "" {
		c.Region = settings.Region
	}
	c.Endpoint = endpoint
	if c.Endpoint == "" {
		c.Endpoint = settings.Endpoint
	}
	if c.Endpoint == "" && insecure {
		c.Endpoint = "http://s3." + c.Region + ".amazonaws.com"
		if c.Region == "" {
			c.Endpoint = "http://s3.us-east-1.amazonaws.com"
		}
	}
	if c.Endpoint != "" {
		if e, err := url.Parse(c.Endpoint); err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("blob url: endpoint %q: want an http(s) URL", c.Endpoint)
		}
	}
	st.client = c
	return st, nil
}

// s3Key is the object key of a blob key, escaped as s3blob escaped it:
// control characters and the "/" of "../" (which S3 mishandles).
func s3Key(key string) string {
	return hexEscape(key, func(r []rune, i int) bool {
		c := r[i]
		return c < 32 || (i > 1 && c == '/' && r[i-1] == '.' && r[i-2] == '.')
	})
}

// put streams r up: a blob that fits in one part in a single PutObject,
// a larger one part by part, holding one part in memory at a time. A
// failure (of r, of ctx, of the store) aborts the upload, so no part
// stays stored.
func (st *s3Store) put(ctx context.Context, key, contentType string, r io.Reader) (int64, error) {
	key = s3Key(key)
	opts := st.opts
	opts.ContentType = contentType
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, r, int64(st.partSize))
	if err != nil && !errors.Is(err, io.EOF) {
		return n, err
	}
	if n < int64(st.partSize) {
		return n, st.client.PutObject(ctx, st.bucket, key, buf.Bytes(), opts)
	}
	id, err := st.client.CreateMultipartUpload(ctx, st.bucket, key, opts)
	if err != nil {
		return n, err
	}
	total, err := st.uploadParts(ctx, key, id, r, &buf)
	if err != nil {
		// The write's context may be what ended: abort on a fresh one.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = st.client.AbortMultipartUpload(actx, st.bucket, key, id)
	}
	return total, err
}

// uploadParts uploads buf as part 1, then the rest of r part by part,
// and completes the upload.
func (st *s3Store) uploadParts(ctx context.Context, key, id string, r io.Reader, buf *bytes.Buffer) (int64, error) {
	var parts []s3.Part
	total := int64(buf.Len())
	for {
		if len(parts) == s3.MaxParts {
			return total, fmt.Errorf("blob %s: larger than %d parts of %d bytes", key, s3.MaxParts, st.partSize)
		}
		p, err := st.client.UploadPart(ctx, st.bucket, key, id, len(parts)+1, buf.Bytes())
		if err != nil {
			return total, err
		}
		parts = append(parts, p)
		buf.Reset()
		n, err := io.CopyN(buf, r, int64(st.partSize))
		total += n
		if err != nil && !errors.Is(err, io.EOF) {
			return total, err
		}
		if n == 0 {
			break
		}
	}
	return total, st.client.CompleteMultipartUpload(ctx, st.bucket, key, id, parts)
}

func (st *s3Store) get(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := st.client.GetObject(ctx, st.bucket, s3Key(key), 0)
	if err != nil {
		return nil, notFoundS3(err)
	}
	return obj.Body, nil
}

// delete checks the blob is there first: S3 answers a delete of a
// missing key with success, and callers tell the two apart.
func (st *s3Store) delete(ctx context.Context, key string) error {
	k := s3Key(key)
	if _, err := st.client.HeadObject(ctx, st.bucket, k); err != nil {
		return notFoundS3(err)
	}
	return st.client.DeleteObject(ctx, st.bucket, k)
}

func (st *s3Store) exists(ctx context.Context, key string) (bool, error) {
	_, err := st.client.HeadObject(ctx, st.bucket, s3Key(key))
	if errors.Is(err, s3.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func notFoundS3(err error) error {
	if errors.Is(err, s3.ErrNotFound) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}
