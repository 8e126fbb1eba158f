// Package docs holds Agentry's user documentation. The Markdown files are
// embedded in the binary so the server can serve and search them.
package docs

import "embed"

// FS holds every Markdown page of the documentation.
//
//go:embed *.md
var FS embed.FS
