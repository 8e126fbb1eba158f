package api

import (
	"bytes"
	"embed"
	"net/http"
	"path"
	"time"
)

// The API reference page (/docs) renders /openapi.yaml with Stoplight
// Elements. huma's built-in page loads the renderer from a CDN, which leaves
// an offline or air-gapped install with a blank page; this one serves the
// same files from the binary (docsassets/README.md says where they came from).

//go:embed docsassets/web-components.min.js docsassets/styles.min.css
var docsAssets embed.FS

// docsAssetsModTime is when the embedded files were taken (for caching).
var docsAssetsModTime = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

const docsAssetsPrefix = "/docs/assets/"

// docsPage is the HTML of /docs; everything it loads is served by us, and
// its Content-Security-Policy says so.
var docsPage = []byte(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="referrer" content="no-referrer">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Agentry API reference</title>
    <link rel="stylesheet" href="` + docsAssetsPrefix + `styles.min.css" integrity="sha384-iVQBHadsD+eV0M5+ubRCEVXrXEBj+BqcuwjUwPoVJc0Pb1fmrhYSAhL+BFProHdV">
    <script src="` + docsAssetsPrefix + `web-components.min.js" integrity="sha384-xjOcq9PZ/k+pGtPS/xcsCRXGjKKfTlIa4H1IYEnC+97jNa6sAMWTNrV6hY08W3GL"></script>
  </head>
  <body style="height: 100vh;">
    <elements-api apiDescriptionUrl="/openapi.yaml" router="hash" layout="sidebar" tryItCredentialsPolicy="same-origin"></elements-api>
  </body>
</html>`)

const docsCSP = "default-src 'none'; base-uri 'none'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; " +
	"img-src 'self' data:; font-src 'self' data:; sandbox allow-same-origin allow-scripts; " +
	"script-src 'self'; style-src 'self' 'unsafe-inline'"

// serveDocs answers /docs.
func serveDocs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", docsCSP)
	http.ServeContent(w, r, "docs.html", docsAssetsModTime, bytes.NewReader(docsPage))
}

// serveDocsAsset answers /docs/assets/{file} from the embedded files.
func serveDocsAsset(w http.ResponseWriter, r *http.Request) {
	name := path.Base(r.URL.Path)
	b, err := docsAssets.ReadFile("docsassets/" + name)
	if err != nil || r.URL.Path != docsAssetsPrefix+name {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, r, name, docsAssetsModTime, bytes.NewReader(b))
}
