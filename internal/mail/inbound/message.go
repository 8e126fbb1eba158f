package inbound

import "github.com/agentry/agentry/internal/mail/mailparse"

// Message and Attachment are a parsed inbound message and its files
// (package mailparse, kept small so it fuzzes quickly).
type (
	Message    = mailparse.Message
	Attachment = mailparse.Attachment
)

// Parse reads a raw message.
func Parse(raw []byte) (*Message, error) { return mailparse.Parse(raw) }

func clip(s string, n int) string { return mailparse.Clip(s, n) }
