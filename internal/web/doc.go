// Package web is the web console: server-rendered pages (html/template,
// htmx and its SSE extension, all embedded) that `agentry serve` mounts at
// /console/. It is a client of the API: pages read and act only through
// the public Go client over an in-process transport into the API's own
// handler, with the session's credential, so the API's authentication,
// roles, account scoping and validation apply unchanged. Its database
// handle serves console sessions and sign-in links only (internal/archtest
// keeps it so). README.md says how to add a page.
package web
