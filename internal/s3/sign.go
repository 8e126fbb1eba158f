// Package s3 is a small client for the S3 protocol: the handful of
// object operations the blob store and the workflow's S3 step use, signed
// with AWS Signature Version 4, against Amazon S3 or any S3-compatible
// store. It replaces the AWS SDK, which compiled to about 20 MB of the
// binary for these few calls.
package s3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Credentials sign requests. An empty AccessKeyID sends them unsigned
// (a public bucket).
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string // temporary credentials only
}

// UnsignedPayload is the x-amz-content-sha256 of a request whose body is
// not part of the signature (a streamed body whose hash is not known
// when the request starts).
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// emptyPayloadHash is the SHA-256 of no bytes, the payload hash of a
// request without a body.
const emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

const (
	amzDateFormat = "20060102T150405Z"
	signAlgorithm = "AWS4-HMAC-SHA256"
)

// unsignedHeaders are left out of the signature: the transport may add,
// drop or rewrite them on the way.
var unsignedHeaders = map[string]bool{
	"authorization": true, "user-agent": true, "content-length": true, "expect": true,
	"accept-encoding": true, "connection": true, "transfer-encoding": true, "traceparent": true, "tracestate": true,
}

// sign adds the x-amz-date, x-amz-content-sha256, x-amz-security-token
// (with temporary credentials) and Authorization headers to r, signing
// its method, path, query, host and every other header it already has.
// r's path and query must already be in the canonical encoding
// (uriEncode), as the request builder makes them. payloadHash is the
// body's hex SHA-256 or UnsignedPayload.
func sign(r *http.Request, c Credentials, region, service, payloadHash string, at time.Time) {
	at = at.UTC()
	amzDate := at.Format(amzDateFormat)
	r.Header.Set("X-Amz-Date", amzDate)
	r.Header.Set("X-Amz-Content-Sha256", payloadHash)
	if c.SessionToken != "" {
		r.Header.Set("X-Amz-Security-Token", c.SessionToken)
	}
	canonical, signedHeaders := canonicalRequest(r, payloadHash)
	scope := at.Format("20060102") + "/" + region + "/" + service + "/aws4_request"
	toSign := signAlgorithm + "\n" + amzDate + "\n" + scope + "\n" + hexSHA256([]byte(canonical))
	key := signingKey(c.SecretAccessKey, at.Format("20060102"), region, service)
	sig := hex.EncodeToString(hmacSHA256(key, toSign))
	r.Header.Set("Authorization", signAlgorithm+" Credential="+c.AccessKeyID+"/"+scope+
		", SignedHeaders="+signedHeaders+", Signature="+sig)
}

// canonicalRequest is the request in the form SigV4 hashes: method, path,
// sorted query, sorted lower-case headers with their values trimmed, the
// list of signed header names, and the payload hash.
func canonicalRequest(r *http.Request, payloadHash string) (canonical, signedHeaders string) {
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	values := map[string][]string{"host": {host}}
	names := []string{"host"}
	for name, vs := range r.Header {
		lower := strings.ToLower(name)
		if unsignedHeaders[lower] || lower == "host" {
			continue
		}
		if _, seen := values[lower]; !seen {
			names = append(names, lower)
		}
		values[lower] = append(values[lower], vs...)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(r.Method + "\n")
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(path + "\n")
	b.WriteString(canonicalQuery(r.URL.RawQuery) + "\n")
	for _, n := range names {
		trimmed := make([]string, len(values[n]))
		for i, v := range values[n] {
			trimmed[i] = strings.Join(strings.Fields(v), " ")
		}
		b.WriteString(n + ":" + strings.Join(trimmed, ",") + "\n")
	}
	signedHeaders = strings.Join(names, ";")
	b.WriteString("\n" + signedHeaders + "\n" + payloadHash)
	return b.String(), signedHeaders
}

// canonicalQuery sorts a raw query that is already uriEncoded pair by
// pair ("name=" for a name without a value).
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	pairs := strings.Split(raw, "&")
	for i, p := range pairs {
		if !strings.Contains(p, "=") {
			pairs[i] = p + "="
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// uriEncode percent-encodes every byte but the unreserved characters of
// RFC 3986 (and '/' when keepSlash), in upper-case hexadecimal, as SigV4
// requires of paths and query parameters.
func uriEncode(s string, keepSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

func signingKey(secret, date, region, service string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), date)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	return hmacSHA256(k, "aws4_request")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
