package web

import (
	"embed"
	"io/fs"
	"net/http"
)

// static holds htmx and its SSE extension (vendored from the npm
// registry; static_test.go pins their SHA-256), the stylesheet and the
// console's own small scripts. Nothing is fetched from elsewhere.
//
//go:embed static
var staticFiles embed.FS

func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embedded directory exists at build time
	}
	files := http.StripPrefix(Prefix+"static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}
