package inbound_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"net/smtp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// dmarcBomb is a small message carrying parts gzip'd aggregate reports of
// about xmlBytes each, full of well-formed records, that fail only after
// the last record (no policy domain): the shape that made the old parser
// decode every record of every part, for every recipient.
func dmarcBomb(t *testing.T, to string, parts, xmlBytes int) []byte {
	t.Helper()
	record := `<record><row><source_ip>192.0.2.10</source_ip><count>8</count><policy_evaluated><disposition>none</disposition>` +
		`<dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>reports.acme.test</header_from></identifiers></record>`
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte(`<?xml version="1.0"?><feedback><report_metadata><org_name>bomb.test</org_name><report_id>b-1</report_id>` +
		`<date_range><begin>1700000000</begin><end>1700086399</end></date_range></report_metadata>`))
	for n := 0; n < xmlBytes; n += len(record) {
		zw.Write([]byte(record))
	}
	zw.Write([]byte(`</feedback>`))
	zw.Close()
	enc := base64.StdEncoding.EncodeToString(gz.Bytes())
	var att strings.Builder
	for len(enc) > 76 {
		att.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	att.WriteString(enc)
	var b strings.Builder
	b.WriteString("From: noreply-dmarc@bomb.test\r\nTo: " + to + "\r\nSubject: Report\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=XYZ\r\n\r\n")
	for i := 0; i < parts; i++ {
		fmt.Fprintf(&b, "--XYZ\r\nContent-Type: application/gzip\r\nContent-Transfer-Encoding: base64\r\n"+
			"Content-Disposition: attachment; filename=\"bomb!reports.acme.test!%d.xml.gz\"\r\n\r\n%s\r\n", i, att.String())
	}
	b.WriteString("--XYZ--\r\n")
	return []byte(b.String())
}

// peakHeapGrowth runs fn and reports how far the heap grew above where it
// stood before, sampled every millisecond.
func peakHeapGrowth(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return peak.Load()
}

// sendToMany delivers msg to every recipient in one transaction and
// returns the first refusal.
func sendToMany(t *testing.T, addr string, rcpts []string, msg []byte) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("mx.bomb.test"); err != nil {
		return err
	}
	if err := c.Mail("noreply-dmarc@bomb.test"); err != nil {
		return err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// TestDMARCReportMailIsBounded (issue 30 item 3): the shared domain has no
// rua mailbox; a report bomb sent to an owned domain's rua mailbox, five
// times over in one transaction, is parsed once, as far as the record cap,
// and costs little memory and time. The old code decoded every record of
// every part for every recipient: on a 2-core VM this message took it
// 150 s to answer (191 MiB of heap with 20 MiB parts); now 13-15 MiB and
// under 0.6 s.
func TestDMARCReportMailIsBounded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		e := start(t, d)
		ctx := context.Background()
		dom, err := e.ts.S.EmailDomains.Add(ctx, e.ts.AccountID, "custom", "reports.acme.test", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.ts.S.EmailDomains.MarkVerified(ctx, e.ts.AccountID, dom.ID); err != nil {
			t.Fatal(err)
		}
		shared := "dmarc-reports@" + e.ts.S.MailInbound.Domain()
		if err := send(t, e.smtpAddr, "noreply-dmarc@bomb.test", shared, dmarcBomb(t, shared, 1, 1<<10)); code(err) != 550 {
			t.Errorf("report to the shared domain's rua address: %v; want 550", err)
		}

		msg := dmarcBomb(t, "dmarc-reports@reports.acme.test", 20, 19<<20)
		rcpts := []string{"dmarc-reports@reports.acme.test", "DMARC-Reports@reports.acme.test", "dmarc-reports@REPORTS.acme.test",
			"Dmarc-Reports@reports.acme.test", "dmarc-reports@reports.acme.test."}
		began := time.Now()
		grew := peakHeapGrowth(func() { err = sendToMany(t, e.smtpAddr, rcpts, msg) })
		took := time.Since(began)
		t.Logf("a %d KiB report bomb to %d recipients: heap grew %d MiB at its peak, answered in %s", len(msg)>>10, len(rcpts), grew>>20, took.Round(time.Millisecond))
		if err != nil {
			t.Fatalf("the bomb was refused (it should be taken and dropped): %v", err)
		}
		if grew > 64<<20 {
			t.Errorf("heap grew %d MiB parsing a report bomb; want under 64 MiB", grew>>20)
		}
		if took > 2*time.Second {
			t.Errorf("the bomb took %s to answer; want under 2 s", took)
		}
	})
}
