// Package dmarc owns DMARC aggregate reports: receiving them at a domain's
// rua address (a MIME message whose attachment is the XML report, plain,
// gzip or zip), parsing them within fixed bounds, storing them against
// the domain they describe, and the summary the API answers.
package dmarc

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
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

// Limits bound the work one untrusted message can cause. A message is
// parsed once, whatever its recipients; only the first part that looks like
// a report (by type or file name) is read, so a message of many broken
// reports costs what one does; records are decoded one at a time and
// reading stops at MaxRecords; and the whole parse is bounded by MaxTime.
type Limits struct {
	MaxMessageBytes int64         // the MIME message as received
	MaxXMLBytes     int64         // the report once decompressed
	MaxRecords      int           // rows kept from one report; reading stops there
	MaxParts        int           // MIME parts looked at
	MaxTime         time.Duration // the whole parse, decompression included
}

// DefaultLimits are generous for real reports (a large reporter's daily
// report is well under 1 MiB) and small enough for a bomb not to hurt.
var DefaultLimits = Limits{MaxMessageBytes: 10 << 20, MaxXMLBytes: 10 << 20, MaxRecords: 10000, MaxParts: 20, MaxTime: 10 * time.Second}

// ErrNoReport means the message carried no aggregate report.
var ErrNoReport = errors.New("no DMARC aggregate report in the message")

// ErrTooLarge means a bound was passed.
var ErrTooLarge = errors.New("DMARC report exceeds the size limits")

// ErrTooSlow means the parse outlasted Limits.MaxTime.
var ErrTooSlow = errors.New("DMARC report took too long to read")

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

// xmlMetadata, xmlPolicy and xmlRecord are the parts of the report's
// schema (RFC 7489 appendix C) that are used, decoded one element at a time.
type xmlMetadata struct {
	OrgName   string `xml:"org_name"`
	ReportID  string `xml:"report_id"`
	DateRange struct {
		Begin int64 `xml:"begin"`
		End   int64 `xml:"end"`
	} `xml:"date_range"`
}

type xmlPolicy struct {
	Domain string `xml:"domain"`
}

type xmlRecord struct {
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
}

// ParseMessage finds and parses the aggregate report a MIME message carries.
func ParseMessage(raw []byte, lim Limits) (*Report, error) {
	return ParseMessageContext(context.Background(), raw, lim)
}

// ParseMessageContext is ParseMessage, given up on when ctx ends.
func ParseMessageContext(ctx context.Context, raw []byte, lim Limits) (*Report, error) {
	if int64(len(raw)) > lim.MaxMessageBytes {
		return nil, ErrTooLarge
	}
	if lim.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.MaxTime)
		defer cancel()
	}
	e, err := message.Read(ctxReader{ctx, bytes.NewReader(raw)})
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return nil, timedOut(ctx, fmt.Errorf("dmarc: %w", err))
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
		if attachmentKind(ct, name) == "" {
			return nil // not a report: not even read
		}
		// The first part that looks like a report decides: a message of
		// twenty broken reports is not decompressed twenty times.
		body, err := io.ReadAll(io.LimitReader(ctxReader{ctx, ent.Body}, lim.MaxMessageBytes+1))
		if err != nil {
			walkErr = timedOut(ctx, fmt.Errorf("dmarc: %w", err))
			return errStop
		}
		found, walkErr = parseAttachment(ctx, ct, name, body, lim)
		return errStop
	}
	if err := e.Walk(walk); err != nil && !errors.Is(err, errStop) {
		return nil, timedOut(ctx, fmt.Errorf("dmarc: %w", err))
	}
	if walkErr != nil {
		return nil, walkErr
	}
	if found != nil {
		return found, nil
	}
	return nil, ErrNoReport
}

var errStop = errors.New("stop")

// ctxReader fails its reads once ctx has ended, so that decompressing or
// decoding stops at the deadline rather than at the end of the input.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, ErrTooSlow
	}
	return c.r.Read(p)
}

// timedOut names the deadline when it is why err happened.
func timedOut(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, ErrTooSlow) {
		return ErrTooSlow
	}
	return err
}

// attachmentKind says how a part holds a report, by its type or file
// name: "gzip", "zip", "xml", or "" when it holds none.
func attachmentKind(contentType, filename string) string {
	ct, _, _ := mime.ParseMediaType(contentType)
	if ct == "" {
		ct = strings.ToLower(contentType)
	}
	name := strings.ToLower(filename)
	switch {
	case ct == "application/gzip" || ct == "application/x-gzip" || strings.HasSuffix(name, ".gz"):
		return "gzip"
	case ct == "application/zip" || ct == "application/x-zip-compressed" || strings.HasSuffix(name, ".zip"):
		return "zip"
	case ct == "text/xml" || ct == "application/xml" || strings.HasSuffix(name, ".xml"):
		return "xml"
	}
	return ""
}

func parseAttachment(ctx context.Context, contentType, filename string, body []byte, lim Limits) (*Report, error) {
	switch attachmentKind(contentType, filename) {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("dmarc: gzip: %w", err)
		}
		return parseXML(ctx, zr, lim)
	case "zip":
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
			r, err := parseXML(ctx, rc, lim)
			rc.Close()
			return r, err
		}
		return nil, ErrNoReport
	case "xml":
		return parseXML(ctx, bytes.NewReader(body), lim)
	}
	return nil, ErrNoReport
}

// parseXML decodes a report as it reads it (decompression happens as it
// reads too): at most MaxXMLBytes, one record at a time, and no further
// than MaxRecords records, so neither a bomb nor a report of a million
// rows is held in memory.
func parseXML(ctx context.Context, r io.Reader, lim Limits) (*Report, error) {
	lr := &io.LimitedReader{R: ctxReader{ctx, r}, N: lim.MaxXMLBytes + 1}
	dec := xml.NewDecoder(lr)
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	fail := func(err error) (*Report, error) {
		if lr.N <= 0 {
			return nil, ErrTooLarge
		}
		if err = timedOut(ctx, err); errors.Is(err, ErrTooSlow) {
			return nil, err
		}
		return nil, fmt.Errorf("dmarc: report xml: %w", err)
	}
	var (
		meta    xmlMetadata
		policy  xmlPolicy
		rep     = &Report{}
		depth   int
		sawRoot bool
	)
read:
	for {
		tok, err := dec.Token()
		if err == io.EOF && sawRoot && depth == 0 {
			break
		}
		if err != nil {
			return fail(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if t.Name.Local != "feedback" {
					return fail(fmt.Errorf("expected <feedback>, found <%s>", t.Name.Local))
				}
				sawRoot = true
				depth++
				continue
			}
			switch t.Name.Local {
			case "report_metadata":
				err = dec.DecodeElement(&meta, &t)
			case "policy_published":
				err = dec.DecodeElement(&policy, &t)
			case "record":
				if len(rep.Records) >= lim.MaxRecords {
					break read // the rest is not read at all
				}
				var rec xmlRecord
				if err = dec.DecodeElement(&rec, &t); err == nil {
					if row, ok := recordOf(rec); ok {
						rep.Records = append(rep.Records, row)
					}
				}
			default:
				err = dec.Skip()
			}
			if err != nil {
				return fail(err)
			}
		case xml.EndElement:
			depth--
			if depth == 0 {
				break read
			}
		}
	}
	rep.OrgName, rep.ReportID = clip(meta.OrgName, 200), clip(meta.ReportID, 200)
	rep.Domain = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(policy.Domain)), ".")
	rep.Begin, rep.End = time.Unix(meta.DateRange.Begin, 0).UTC(), time.Unix(meta.DateRange.End, 0).UTC()
	if rep.OrgName == "" || rep.ReportID == "" || rep.Domain == "" {
		return nil, fmt.Errorf("dmarc: report lacks org_name, report_id or policy domain")
	}
	if meta.DateRange.End < meta.DateRange.Begin || meta.DateRange.End <= 0 {
		return nil, fmt.Errorf("dmarc: report date range is invalid")
	}
	return rep, nil
}

// recordOf checks and normalises one row; a malformed row is dropped, the
// report kept.
func recordOf(rec xmlRecord) (Record, bool) {
	ip, err := netip.ParseAddr(strings.TrimSpace(rec.Row.SourceIP))
	if err != nil || rec.Row.Count < 0 || rec.Row.Count > 1<<40 {
		return Record{}, false
	}
	disp := strings.ToLower(strings.TrimSpace(rec.Row.Policy.Disposition))
	switch disp {
	case "none", "quarantine", "reject":
	default:
		disp = "none"
	}
	return Record{SourceIP: ip.String(), Count: rec.Row.Count, Disposition: disp,
		DKIMPass:   strings.EqualFold(strings.TrimSpace(rec.Row.Policy.DKIM), "pass"),
		SPFPass:    strings.EqualFold(strings.TrimSpace(rec.Row.Policy.SPF), "pass"),
		HeaderFrom: clip(strings.ToLower(strings.TrimSpace(rec.Identifiers.HeaderFrom)), 253)}, true
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n]
	}
	return s
}
