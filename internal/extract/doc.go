// Package extract turns uploaded files into plain text for agent runs:
// plain text, Markdown, CSV, JSON, HTML, PDF and DOCX. Every extractor
// streams (a 200 MiB file is never held in memory whole), writes valid
// UTF-8, and treats its input as hostile: malformed files are errors, never
// panics or runaway allocations, and what one file may cost (bytes
// decompressed, text written, nesting, archive entries) is bounded by
// Limits (limits.go).
//
// Files a model can read as they are (images, audio, video) have no text
// extractor; Extract reports them as passed through. Anything else is
// ErrUnsupported, with the list of what is.
package extract
