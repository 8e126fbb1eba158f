package s3

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The examples of the S3 API reference, "Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk": the
// documentation's example keys, bucket and time, and the signatures it
// gives for each request.
var (
	docCredentials = Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	docTime        = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
)

func docRequest(t *testing.T, method, path, query string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, "https://examplebucket.s3.amazonaws.com/", nil)
	if err != nil {
		t.Fatal(err)
	}
	setPath(r.URL, path)
	r.URL.RawQuery = query
	return r
}

func TestSignatureV4DocumentationExamples(t *testing.T) {
	for _, c := range []struct {
		name, method, path, query string
		headers                   map[string]string
		payloadHash               string
		signedHeaders, signature  string
		canonicalPath             string
	}{
		{
			name: "GET Object", method: "GET", path: "/test.txt",
			headers:       map[string]string{"Range": "bytes=0-9"},
			payloadHash:   emptyPayloadHash,
			signedHeaders: "host;range;x-amz-content-sha256;x-amz-date",
			signature:     "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		},
		{
			name: "PUT Object", method: "PUT", path: "/test$file.text",
			headers: map[string]string{"Date": "Fri, 24 May 2013 00:00:00 GMT", "X-Amz-Storage-Class": "REDUCED_REDUNDANCY"},
			// SHA-256 of the body "Welcome to Amazon S3."
			payloadHash:   hexSHA256([]byte("Welcome to Amazon S3.")),
			signedHeaders: "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
			signature:     "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
			canonicalPath: "/test%24file.text",
		},
		{
			name: "GET Bucket Lifecycle", method: "GET", path: "/", query: "lifecycle",
			payloadHash:   emptyPayloadHash,
			signedHeaders: "host;x-amz-content-sha256;x-amz-date",
			signature:     "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
		},
		{
			name: "GET Bucket (List Objects)", method: "GET", path: "/", query: "max-keys=2&prefix=J",
			payloadHash:   emptyPayloadHash,
			signedHeaders: "host;x-amz-content-sha256;x-amz-date",
			signature:     "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
		},
	} {
		r := docRequest(t, c.method, c.path, c.query)
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		sign(r, docCredentials, "us-east-1", "s3", c.payloadHash, docTime)
		want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=" +
			c.signedHeaders + ", Signature=" + c.signature
		if got := r.Header.Get("Authorization"); got != want {
			canonical, _ := canonicalRequest(r, c.payloadHash)
			t.Errorf("%s:\n got %s\nwant %s\ncanonical request:\n%s", c.name, got, want, canonical)
		}
		if c.canonicalPath != "" && r.URL.EscapedPath() != c.canonicalPath {
			t.Errorf("%s: path on the wire %q, want %q", c.name, r.URL.EscapedPath(), c.canonicalPath)
		}
	}
}

// The example's canonical request for GET Object, as the documentation
// prints it: the form every signature above hashes.
func TestCanonicalRequestDocumentationExample(t *testing.T) {
	r := docRequest(t, "GET", "/test.txt", "")
	r.Header.Set("Range", "bytes=0-9")
	r.Header.Set("X-Amz-Content-Sha256", emptyPayloadHash)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	got, _ := canonicalRequest(r, emptyPayloadHash)
	want := strings.Join([]string{
		"GET", "/test.txt", "",
		"host:examplebucket.s3.amazonaws.com",
		"range:bytes=0-9",
		"x-amz-content-sha256:" + emptyPayloadHash,
		"x-amz-date:20130524T000000Z",
		"",
		"host;range;x-amz-content-sha256;x-amz-date",
		emptyPayloadHash,
	}, "\n")
	if got != want {
		t.Errorf("canonical request:\n%s\nwant:\n%s", got, want)
	}
}

func TestURIEncode(t *testing.T) {
	for in, want := range map[string]string{
		"a/b c+d$e": "a/b%20c%2Bd%24e",
		"é~_.-":     "%C3%A9~_.-",
		"%2F?#&=":   "%252F%3F%23%26%3D",
	} {
		if got := uriEncode(in, true); got != want {
			t.Errorf("uriEncode(%q) = %q, want %q", in, got, want)
		}
	}
	if got := uriEncode("a/b", false); got != "a%2Fb" {
		t.Errorf("query encoding keeps the slash: %q", got)
	}
}

func TestSessionTokenIsSigned(t *testing.T) {
	r := docRequest(t, "GET", "/test.txt", "")
	c := docCredentials
	c.SessionToken = "token-value"
	sign(r, c, "us-east-1", "s3", emptyPayloadHash, docTime)
	if r.Header.Get("X-Amz-Security-Token") != "token-value" ||
		!strings.Contains(r.Header.Get("Authorization"), "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") {
		t.Errorf("session token not signed: %q", r.Header.Get("Authorization"))
	}
}
