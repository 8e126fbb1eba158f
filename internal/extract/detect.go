package extract

import (
	"net/http"
	"path"
	"strings"
)

// byExtension maps the file extensions the upload endpoint documents to
// their media types. Extensions decide first: clients often send a generic
// or wrong Content-Type for a part, while the name is what the user chose.
var byExtension = map[string]string{
	"txt": "text/plain", "text": "text/plain", "log": "text/plain",
	"md": "text/markdown", "markdown": "text/markdown",
	"csv":  "text/csv",
	"json": "application/json", "jsonl": "application/json", "ndjson": "application/json",
	"html": "text/html", "htm": "text/html", "xhtml": "application/xhtml+xml",
	"xml":  "application/xml",
	"pdf":  "application/pdf",
	"docx": MediaDOCX, "doc": "application/msword",
	"pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation", "ppt": "application/vnd.ms-powerpoint",
	"xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xls": "application/vnd.ms-excel",
	"msg": "application/vnd.ms-outlook", "zip": "application/zip", "epub": "application/epub+zip",
	"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "bmp": "image/bmp",
	"tif": "image/tiff", "tiff": "image/tiff", "webp": "image/webp",
	"mp3": "audio/mpeg", "wav": "audio/wav", "m4a": "audio/mp4", "flac": "audio/flac", "ogg": "audio/ogg",
	"mp4": "video/mp4", "mov": "video/quicktime", "avi": "video/x-msvideo",
}

// DetectType resolves an upload's media type: from its file extension when
// known, else from the type the client declared unless that is generic,
// else by sniffing the first bytes (head, up to 512 are used).
func DetectType(filename, declared string, head []byte) string {
	if ext := strings.TrimPrefix(strings.ToLower(path.Ext(filename)), "."); ext != "" {
		if mt, ok := byExtension[ext]; ok {
			return mt
		}
	}
	if mt := base(declared); mt != "" && mt != "application/octet-stream" && !strings.Contains(mt, "*") && strings.Contains(mt, "/") {
		return mt
	}
	return base(http.DetectContentType(head))
}
