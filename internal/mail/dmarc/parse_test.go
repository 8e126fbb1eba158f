package dmarc

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

const sampleXML = `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata><org_name>google.com</org_name><email>noreply-dmarc-support@google.com</email>
    <report_id>1234567890</report_id><date_range><begin>1700000000</begin><end>1700086399</end></date_range></report_metadata>
  <policy_published><domain>agent.example.com</domain><adkim>r</adkim><aspf>r</aspf><p>none</p></policy_published>
  <record><row><source_ip>192.0.2.1</source_ip><count>5</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated></row>
    <identifiers><header_from>agent.example.com</header_from></identifiers></record>
  <record><row><source_ip>2001:db8::1</source_ip><count>3</count><policy_evaluated><disposition>reject</disposition><dkim>fail</dkim><spf>fail</spf></policy_evaluated></row>
    <identifiers><header_from>Agent.Example.com</header_from></identifiers></record>
  <record><row><source_ip>not-an-ip</source_ip><count>1</count></row></record>
</feedback>`

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zipped(name string, b []byte) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create(name)
	f.Write(b)
	w.Close()
	return buf.Bytes()
}

func mimeWith(ct, filename string, att []byte) []byte {
	return []byte("From: r@example.net\r\nTo: dmarc-reports@agent.example.com\r\nSubject: Report\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=XYZ\r\n\r\n--XYZ\r\nContent-Type: text/plain\r\n\r\nreport attached\r\n--XYZ\r\n" +
		"Content-Type: " + ct + "\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"" + filename + "\"\r\n\r\n" +
		base64.StdEncoding.EncodeToString(att) + "\r\n--XYZ--\r\n")
}

func TestParseMessageFormats(t *testing.T) {
	for name, raw := range map[string][]byte{
		"xml":                    mimeWith("text/xml", "r.xml", []byte(sampleXML)),
		"gzip":                   mimeWith("application/gzip", "google.com!agent.example.com!1700000000!1700086399.xml.gz", gz([]byte(sampleXML))),
		"zip":                    mimeWith("application/zip", "google.com!agent.example.com!1.zip", zipped("report.xml", []byte(sampleXML))),
		"octet-stream named .gz": mimeWith("application/octet-stream", "x.xml.gz", gz([]byte(sampleXML))),
	} {
		rep, err := ParseMessage(raw, DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep.OrgName != "google.com" || rep.ReportID != "1234567890" || rep.Domain != "agent.example.com" || len(rep.Records) != 2 {
			t.Fatalf("%s: %+v", name, rep)
		}
		r0, r1 := rep.Records[0], rep.Records[1]
		if !r0.Passed() || r0.Count != 5 || r1.Passed() || r1.Disposition != "reject" || r1.SourceIP != "2001:db8::1" || r1.HeaderFrom != "agent.example.com" {
			t.Fatalf("%s records: %+v", name, rep.Records)
		}
	}
}

func TestParseMessageRefusals(t *testing.T) {
	lim := Limits{MaxMessageBytes: 1 << 20, MaxXMLBytes: 64 << 10, MaxRecords: 1, MaxParts: 20}
	// A gzip bomb: 50 MiB of blanks compress to ~50 KiB; reading stops at the bound.
	bomb := gz(append([]byte("<feedback>"), bytes.Repeat([]byte{' '}, 50<<20)...))
	if _, err := ParseMessage(mimeWith("application/gzip", "b.xml.gz", bomb), lim); !errors.Is(err, ErrTooLarge) {
		t.Errorf("gzip bomb: %v", err)
	}
	zbomb := zipped("b.xml", append([]byte("<feedback>"), bytes.Repeat([]byte{' '}, 50<<20)...))
	if _, err := ParseMessage(mimeWith("application/zip", "b.zip", zbomb), lim); !errors.Is(err, ErrTooLarge) {
		t.Errorf("zip bomb: %v", err)
	}
	if _, err := ParseMessage(bytes.Repeat([]byte("x"), 2<<20), lim); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized message: %v", err)
	}
	if _, err := ParseMessage([]byte("Subject: hi\r\n\r\nno report here"), lim); !errors.Is(err, ErrNoReport) {
		t.Errorf("no report: %v", err)
	}
	if _, err := ParseMessage(mimeWith("text/xml", "r.xml", []byte("<feedback><report_metadata>")), lim); err == nil {
		t.Error("truncated XML parsed")
	}
	noDomain := strings.Replace(sampleXML, "<domain>agent.example.com</domain>", "", 1)
	if _, err := ParseMessage(mimeWith("text/xml", "r.xml", []byte(noDomain)), lim); err == nil {
		t.Error("a report without a policy domain parsed")
	}
	rep, err := ParseMessage(mimeWith("text/xml", "r.xml", []byte(sampleXML)), lim)
	if err != nil || len(rep.Records) != 1 {
		t.Errorf("records are not bounded: %v %+v", err, rep)
	}
}

// FuzzParseMessage: no input panics or escapes the bounds.
func FuzzParseMessage(f *testing.F) {
	f.Add(mimeWith("text/xml", "r.xml", []byte(sampleXML)))
	f.Add(mimeWith("application/gzip", "r.xml.gz", gz([]byte(sampleXML))))
	f.Add(mimeWith("application/zip", "r.zip", zipped("r.xml", []byte(sampleXML))))
	f.Add([]byte("Content-Type: text/xml\r\n\r\n" + sampleXML))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b--\r\n--a--"))
	lim := Limits{MaxMessageBytes: 1 << 20, MaxXMLBytes: 1 << 20, MaxRecords: 100, MaxParts: 20}
	f.Fuzz(func(t *testing.T, raw []byte) {
		rep, err := ParseMessage(raw, lim)
		if err == nil && (rep == nil || rep.Domain == "" || len(rep.Records) > lim.MaxRecords) {
			t.Fatalf("accepted an invalid report: %+v", rep)
		}
	})
}
