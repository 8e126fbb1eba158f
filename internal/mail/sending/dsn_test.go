package sending

import (
	"testing"
)

const sampleDSN = "From: MAILER-DAEMON@mx.example.org\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B1\"\r\n\r\n" +
	"--B1\r\nContent-Type: text/plain\r\n\r\nnot delivered\r\n" +
	"--B1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n" +
	"Final-Recipient: rfc822; ok@example.org\r\nAction: delayed\r\nStatus: 4.4.1\r\n\r\n" +
	"Final-Recipient: rfc822; Gone@Example.org\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 no such user\r\n\r\n" +
	"--B1\r\nContent-Type: message/rfc822\r\n\r\nFrom: a@agent.test\r\nMessage-ID: <01a20000-0000-7000-8000-00000000abcd@agent.test>\r\n\r\nbody\r\n--B1--\r\n"

func TestParseDSN(t *testing.T) {
	d, err := ParseDSN([]byte(sampleDSN))
	if err != nil {
		t.Fatal(err)
	}
	if d.DeliveryID != "01a20000-0000-7000-8000-00000000abcd" || d.Recipient != "gone@example.org" || d.Action != "failed" ||
		d.Status != "5.1.1" || d.Code != 550 || d.Diagnostic != "smtp; 550 no such user" {
		t.Fatalf("%+v", d)
	}
	// Not a report; a report quoting someone else's Message-ID.
	if _, err := ParseDSN([]byte("From: a@b.test\r\nContent-Type: text/plain\r\n\r\nhi\r\n")); err == nil {
		t.Error("a plain message parsed as a DSN")
	}
	other := []byte(sampleDSN[:len(sampleDSN)-120] + "Message-ID: <12345@elsewhere.test>\r\n\r\nbody\r\n--B1--\r\n")
	if d, err := ParseDSN(other); err == nil && d.DeliveryID != "" {
		t.Errorf("foreign Message-ID read as a copy id: %+v", d)
	}
}

func FuzzParseDSN(f *testing.F) {
	f.Add([]byte(sampleDSN))
	f.Add([]byte("Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\n\r\n\r\n--x--"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := ParseDSN(raw)
		if err == nil && d.Recipient == "" {
			t.Fatalf("a report without a recipient: %+v", d)
		}
	})
}
