// Package dmarc owns DMARC aggregate reports: receiving them at a domain's
// rua address (a MIME message whose attachment is the XML report, plain,
// gzip or zip), parsing them within fixed bounds, storing them against
// the domain they describe, and the summary the API answers.
package dmarc

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/netip"
	"strings"
	"time"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // reports from reporters using other charsets still parse
)

// Limits bound the work one untrusted message can cause.
type Limits struct {
	MaxMessageBytes int64 // the MIME message as received
	MaxXMLBytes     int64 // one report once decompressed
	MaxRecords      int   // rows kept from one report
	MaxParts        int   // MIME parts looked at
}

// DefaultLimits are generous for real reports (a large reporter's daily
// report is well under 1 MiB) and small enough for a zip bomb not to hurt.
var DefaultLimits = Limits{MaxMessageBytes: 10 << 20, MaxXMLBytes: 20 << 20, MaxRecords: 10000, MaxParts: 20}

// ErrNoReport means the message carried no aggregate report.
var ErrNoReport = errors.New("no DMARC aggregate report in the message")

// ErrTooLarge means a bound was passed.
var ErrTooLarge = errors.New("DMARC report exceeds the size limits")

// Report is a parsed aggregate report.
type Report struct {
	OrgName, ReportID string
	Begin, End        time.Time
	Domain            string // policy_published/domain
	Records           []Record
}

// Record is one row: messages from a source IP and what happened to them.
type Record struct {
	SourceIP    string
	Count       int64
	Disposition string // none, quarantine, reject
	DKIMPass    bool   // DMARC-aligned DKIM passed (policy_evaluated)
	SPFPass     bool   // DMARC-aligned SPF passed
	HeaderFrom  string
}

// Passed reports whether the row's messages passed DMARC.
func (r Record) Passed() bool { return r.DKIMPass || r.SPFPass }

// xmlFeedback is the report's schema (RFC 7489 appendix C), the parts used.
type xmlFeedback struct {
	XMLName  xml.Name `xml:"feedback"`
	Metadata struct {
		OrgName   string `xml:"org_name"`
		ReportID  string `xml:"report_id"`
		DateRange struct {
			Begin int64 `xml:"begin"`
			End   int64 `xml:"end"`
		} `xml:"date_range"`
	} `xml:"report_metadata"`
	Policy struct {
		Domain string `xml:"domain"`
	} `xml:"policy_published"`
	Records []struct {
		Row struct {
			SourceIP string `xml:"source_ip"`
			Count    int64  `xml:"count"`
			Policy   struct {
				Disposition string `xml:"disposition"`
				DKIM        string `xml:"dkim"`
				SPF         string `xml:"spf"`
			} `xml:"policy_evaluated"`
		} `xml:"row"`
		Identifiers struct {
			HeaderFrom string `xml:"header_from"`
		} `xml:"identifiers"`
	} `xml:"record"`
}

// ParseMessage finds and parses the aggregate report a MIME message carries.
func ParseMessage(raw []byte, lim Limits) (*Report, error) {
	if int64(len(raw)) > lim.MaxMessageBytes {
		return nil, ErrTooLarge
	}
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return nil, fmt.Errorf("dmarc: %w", err)
	}
	parts := 0
	var found *Report
	var walkErr error
	walk := func(path []int, ent *message.Entity, err error) error {
		if err != nil && !message.IsUnknownCharset(err) {
			return err
		}
		parts++
		if parts > lim.MaxParts {
			return ErrTooLarge
		}
		if ent.MultipartReader() != nil {
			return nil
		}
		ct, params, _ := ent.Header.ContentType()
		name := params["name"]
		if _, dp, err := ent.Header.ContentDisposition(); err == nil && dp["filename"] != "" {
			name = dp["filename"]
		}
		body, err := io.ReadAll(io.LimitReader(ent.Body, lim.MaxMessageBytes+1))
		if err != nil {
			return nil // an undecodable part is skipped
		}
		r, err := ParseAttachment(ct, name, body, lim)
		if errors.Is(err, ErrNoReport) {
			return nil
		}
		if err != nil {
			walkErr = err
			return nil
		}
		found = r
		return errStop
	}
	if err := e.Walk(walk); err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("dmarc: %w", err)
	}
	if found != nil {
		return found, nil
	}
	if walkErr != nil {
		return nil, walkErr
	}
	return nil, ErrNoReport
}

var errStop = errors.New("stop")

// ParseAttachment parses one attachment: XML, gzip'd XML or a zip holding one XML file.
func ParseAttachment(contentType, filename string, body []byte, lim Limits) (*Report, error) {
	ct, _, _ := mime.ParseMediaType(contentType)
	name := strings.ToLower(filename)
	switch {
	case ct == "application/gzip" || ct == "application/x-gzip" || strings.HasSuffix(name, ".gz"):
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("dmarc: gzip: %w", err)
		}
		return parseXML(zr, lim)
	case ct == "application/zip" || ct == "application/x-zip-compressed" || strings.HasSuffix(name, ".zip"):
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			return nil, fmt.Errorf("dmarc: zip: %w", err)
		}
		for i, f := range zr.File {
			if i >= 5 {
				break
			}
			if !strings.HasSuffix(strings.ToLower(f.Name), ".xml") {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("dmarc: zip: %w", err)
			}
			r, err := parseXML(rc, lim)
			rc.Close()
			return r, err
		}
		return nil, ErrNoReport
	case ct == "text/xml" || ct == "application/xml" || strings.HasSuffix(name, ".xml"):
		return parseXML(bytes.NewReader(body), lim)
	}
	return nil, ErrNoReport
}

// parseXML decodes a report, reading at most MaxXMLBytes (decompression
// happens as it reads, so a bomb stops at the bound).
func parseXML(r io.Reader, lim Limits) (*Report, error) {
	lr := &io.LimitedReader{R: r, N: lim.MaxXMLBytes + 1}
	data, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("dmarc: %w", err)
	}
	if int64(len(data)) > lim.MaxXMLBytes {
		return nil, ErrTooLarge
	}
	var fb xmlFeedback
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	if err := dec.Decode(&fb); err != nil {
		return nil, fmt.Errorf("dmarc: report xml: %w", err)
	}
	rep := &Report{OrgName: clip(fb.Metadata.OrgName, 200), ReportID: clip(fb.Metadata.ReportID, 200),
		Domain: strings.TrimSuffix(strings.ToLower(strings.TrimSpace(fb.Policy.Domain)), "."),
		Begin:  time.Unix(fb.Metadata.DateRange.Begin, 0).UTC(), End: time.Unix(fb.Metadata.DateRange.End, 0).UTC()}
	if rep.OrgName == "" || rep.ReportID == "" || rep.Domain == "" {
		return nil, fmt.Errorf("dmarc: report lacks org_name, report_id or policy domain")
	}
	if fb.Metadata.DateRange.End < fb.Metadata.DateRange.Begin || fb.Metadata.DateRange.End <= 0 {
		return nil, fmt.Errorf("dmarc: report date range is invalid")
	}
	for _, rec := range fb.Records {
		if len(rep.Records) >= lim.MaxRecords {
			break
		}
		ip, err := netip.ParseAddr(strings.TrimSpace(rec.Row.SourceIP))
		if err != nil || rec.Row.Count < 0 || rec.Row.Count > 1<<40 {
			continue // a malformed row is dropped, the report kept
		}
		disp := strings.ToLower(strings.TrimSpace(rec.Row.Policy.Disposition))
		switch disp {
		case "none", "quarantine", "reject":
		default:
			disp = "none"
		}
		rep.Records = append(rep.Records, Record{SourceIP: ip.String(), Count: rec.Row.Count, Disposition: disp,
			DKIMPass:   strings.EqualFold(strings.TrimSpace(rec.Row.Policy.DKIM), "pass"),
			SPFPass:    strings.EqualFold(strings.TrimSpace(rec.Row.Policy.SPF), "pass"),
			HeaderFrom: clip(strings.ToLower(strings.TrimSpace(rec.Identifiers.HeaderFrom)), 253)})
	}
	return rep, nil
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n]
	}
	return s
}
