package client_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

func TestEventReaderParsesTheStandard(t *testing.T) {
	stream := ": keepalive\n\n" +
		"event: init\nid: 1\ndata: {\"run_id\":\"r1\"}\n\n" +
		"data: line one\r\ndata: line two\r\n\r\n" + // CRLF, two data lines, no event name
		":another keepalive\n" +
		"id: 2\rretry: 2500\revent: status\rdata:no-space\r\r" + // CR line ends
		"id: 3\n\n" + // an id alone dispatches nothing
		"event: done\ndata\n\n" + // a data field with no value is an empty line of data
		"event: partial\ndata: cut"
	r := client.NewEventReader(strings.NewReader(stream))
	want := []client.Event{
		{Event: "init", ID: "1", Data: `{"run_id":"r1"}`},
		{Event: "message", Data: "line one\nline two"},
		{Event: "status", ID: "2", Data: "no-space", Retry: 2500 * time.Millisecond},
		{Event: "done", Data: ""},
	}
	for i, w := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got != w {
			t.Fatalf("event %d = %+v, want %+v", i, got, w)
		}
		if i == 3 && r.LastEventID() != "3" {
			t.Fatalf("last event id = %q, want 3 (ids persist across events)", r.LastEventID())
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a stream cut inside an event: %v", err)
	}
	r = client.NewEventReader(strings.NewReader("data: x\n\n: bye\n"))
	_, _ = r.Next()
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("a clean end: %v", err)
	}
	var v struct {
		RunID string `json:"run_id"`
	}
	if err := want[0].JSON(&v); err != nil || v.RunID != "r1" {
		t.Fatalf("JSON: %v", err)
	}
}

func FuzzEventReader(f *testing.F) {
	f.Add("event: a\nid: 1\ndata: x\n\n")
	f.Add(": k\r\n\rdata:\r\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		r := client.NewEventReader(strings.NewReader(s))
		for range 1000 {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if ev.Event == "" {
				t.Fatal("a dispatched event always has a type")
			}
		}
	})
}
