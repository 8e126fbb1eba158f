package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
)

// Event is one server-sent event.
type Event struct {
	// Event is the event type ("message" when the server named none).
	Event string
	// ID is the event's own id field, "" when it had none. (The reader's
	// LastEventID keeps the latest id across events, as the standard says.)
	ID string
	// Data is the data lines joined with "\n".
	Data string
	// Retry is the reconnection delay the server asked for, 0 if none.
	Retry time.Duration
}

// JSON decodes the event's data into v.
func (e Event) JSON(v any) error { return json.Unmarshal([]byte(e.Data), v) }

// maxEventSize bounds one line of an event stream; run snapshots can be
// large, but a stream that never ends a line is an error, not a memory leak.
const maxEventSize = 16 << 20

// EventReader parses a text/event-stream body as the HTML standard
// describes: lines end in LF, CRLF or CR; lines starting with ":" are
// comments (keepalives) and are skipped; a blank line dispatches the event.
type EventReader struct {
	sc          *bufio.Scanner
	lastEventID string
}

// NewEventReader reads events from r.
func NewEventReader(r io.Reader) *EventReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventSize)
	sc.Split(scanSSELines)
	return &EventReader{sc: sc}
}

// LastEventID is the id to resume from: the last id field seen.
func (r *EventReader) LastEventID() string { return r.lastEventID }

// Next returns the next event. It returns io.EOF when the stream ended
// cleanly between events, and io.ErrUnexpectedEOF when it ended inside one
// (a dropped connection), so callers can tell the two apart.
func (r *EventReader) Next() (Event, error) {
	var (
		ev      Event
		data    strings.Builder
		hasData bool
		partial bool // any field seen since the last dispatch
	)
	for r.sc.Scan() {
		line := r.sc.Text()
		if line == "" {
			if !hasData {
				// Nothing to dispatch (a lone id or retry, or keepalive
				// padding): reset and keep reading.
				ev, partial = Event{}, false
				data.Reset()
				continue
			}
			ev.Data = data.String()
			if ev.Event == "" {
				ev.Event = "message"
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue // comment: keepalive
		}
		partial = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Event = value
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				ev.ID = value
				r.lastEventID = value
			}
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil && ms >= 0 {
				ev.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, err
	}
	if partial {
		return Event{}, io.ErrUnexpectedEOF
	}
	return Event{}, io.EOF
}

// scanSSELines splits on LF, CRLF or a lone CR.
func scanSSELines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// CR: a following LF belongs to the same line end; if the CR is the
		// last byte read, wait for more to know.
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if !atEOF {
			return 0, nil, nil
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		// A final line without a line end is not a complete line: report
		// it as data so Next sees a partial event.
		return len(data), data, nil
	}
	return 0, nil, nil
}
