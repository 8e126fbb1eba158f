package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// Mailer sends one alert e-mail. The mail area implements it; until it is
// wired, e-mail deliveries are logged as skipped with the reason.
type Mailer interface {
	SendAlert(ctx context.Context, m Mail) error
}

// Mail is one alert e-mail to one recipient.
type Mail struct {
	AccountID, AlertID string
	To, ToName         string
	Subject, Text      string
}

// Delivery channels.
const (
	ChannelWebhook = "webhook"
	ChannelEmail   = "email"
)

// SkippedNoMailer is the reason logged for e-mail while no mailer is wired.
const SkippedNoMailer = "e-mail delivery is not available: this server has no outbound mail configured for alerts"

// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256>" where the
// MAC, keyed with the configuration's secret, covers "<t>.<body>".
const SignatureHeader = "Service-Signature"

// Sign returns the SignatureHeader value for body sent at t.
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret []byte, ts string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// ErrBadSignature is a webhook whose signature does not verify.
var ErrBadSignature = errors.New("alert webhook signature does not verify")

// Verify checks a SignatureHeader value against body, and that its time is
// within tolerance of now (replays of old deliveries fail).
func Verify(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return fmt.Errorf("%w: malformed header", ErrBadSignature)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp outside the tolerance", ErrBadSignature)
	}
	if !hmac.Equal([]byte(sig), []byte(mac(secret, ts, body))) {
		return ErrBadSignature
	}
	return nil
}

// NotifyArgs is the job that fans an alert event out to its deliveries.
type NotifyArgs struct {
	AccountID   string `json:"account_id"`
	AlertID     string `json:"alert_id"`
	Event       string `json:"event"`
	ActorUserID string `json:"actor_user_id,omitempty"`
}

// Kind names the job.
func (NotifyArgs) Kind() string { return "alert_notify" }

// DeliverArgs is the job that makes one delivery, retried with backoff.
type DeliverArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind names the job.
func (DeliverArgs) Kind() string { return "alert_deliver" }

// deliverAttempts is how often a delivery is tried.
const deliverAttempts = 6

// fanOut records the deliveries of an event and enqueues them: the
// configuration's webhook, and e-mail to the alert's subscribers (less
// whoever caused the event, and anyone who opted out of the type).
func (s *Service) fanOut(ctx context.Context, args NotifyArgs) error {
	a, err := s.repo.alert(ctx, args.AccountID, "", args.AlertID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var deliveries []AlertDelivery
	if a.ConfigID != "" {
		c, err := s.repo.config(ctx, a.AccountID, a.ConfigID)
		if err == nil && c.WebhookURL != "" {
			deliveries = append(deliveries, AlertDelivery{Channel: ChannelWebhook, Target: c.WebhookURL, Status: AlertDeliveryPending})
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	th, err := s.repo.thread(ctx, a.ID)
	if err != nil {
		return err
	}
	acct, err := directory.GetAccount(ctx, s.DB, a.AccountID)
	if err != nil {
		return err
	}
	for _, sub := range th.Subscribers {
		if sub.UserID == args.ActorUserID {
			continue
		}
		if acct.Kind == directory.KindOrganization {
			opted, err := s.repo.optOuts(ctx, sub.UserID, a.AccountID)
			if err != nil {
				return err
			}
			if opted[a.Type] {
				continue
			}
		}
		d := AlertDelivery{Channel: ChannelEmail, Target: sub.UserID, Status: AlertDeliveryPending}
		switch {
		case s.Mailer == nil:
			d.Status, d.Error = AlertDeliverySkipped, SkippedNoMailer
		case sub.Email == "":
			d.Status, d.Error = AlertDeliverySkipped, "the user has no e-mail address"
		}
		deliveries = append(deliveries, d)
	}
	for _, d := range deliveries {
		d.AccountID, d.AlertID, d.ConfigID, d.Event = a.AccountID, a.ID, a.ConfigID, args.Event
		d, err := s.repo.createDelivery(ctx, d)
		if err != nil {
			return err
		}
		if d.Status != AlertDeliveryPending {
			continue
		}
		if _, err := s.Queue.Insert(ctx, DeliverArgs{DeliveryID: d.ID}, &river.InsertOpts{MaxAttempts: deliverAttempts}); err != nil {
			return err
		}
	}
	return nil
}

// WebhookPayload is the JSON body of an alert webhook.
type WebhookPayload struct {
	Event      string         `json:"event"`
	DeliveryID string         `json:"delivery_id"`
	SentAt     string         `json:"sent_at"`
	Alert      WebhookAlert   `json:"alert"`
	Details    map[string]any `json:"details,omitempty"`
}

// WebhookAlert is the alert as a webhook carries it.
type WebhookAlert struct {
	ID                 string         `json:"id"`
	AccountID          string         `json:"account_id"`
	AlertConfigID      string         `json:"alert_config_id,omitempty"`
	AlertType          string         `json:"alert_type"`
	Title              string         `json:"title"`
	Description        string         `json:"description,omitempty"`
	Status             string         `json:"status"`
	AgentID            string         `json:"agent_id,omitempty"`
	AgentRunID         string         `json:"agent_run_id,omitempty"`
	SourceConnectionID string         `json:"source_connection_id,omitempty"`
	Details            map[string]any `json:"details"`
	CreatedAt          string         `json:"created_at"`
	UpdatedAt          string         `json:"updated_at"`
}

// permanent marks a delivery failure that retrying cannot fix.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// deliver makes one attempt of a delivery and records its outcome. An
// error return asks River for another attempt.
func (s *Service) deliver(ctx context.Context, id string, attempt, maxAttempts int) error {
	d, err := s.repo.delivery(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != AlertDeliveryPending {
		return nil
	}
	a, err := s.repo.alert(ctx, d.AccountID, "", d.AlertID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var code int
	switch d.Channel {
	case ChannelWebhook:
		code, err = s.postWebhook(ctx, d, a)
	case ChannelEmail:
		err = s.sendMail(ctx, d, a)
	default:
		err = permanent{fmt.Errorf("unknown channel %q", d.Channel)}
	}
	if err == nil {
		return s.repo.updateDelivery(ctx, d.ID, AlertDeliveryDelivered, attempt, code, "")
	}
	var p permanent
	final := errors.As(err, &p) || attempt >= maxAttempts
	status := AlertDeliveryPending
	if final {
		status = AlertDeliveryFailed
	}
	if uerr := s.repo.updateDelivery(ctx, d.ID, status, attempt, code, clip(err.Error(), 1000)); uerr != nil {
		return uerr
	}
	if final {
		return nil
	}
	return err
}

// webhookTimeout bounds one webhook request.
const webhookTimeout = 10 * time.Second

func (s *Service) postWebhook(ctx context.Context, d AlertDelivery, a Alert) (int, error) {
	c, err := s.repo.config(ctx, d.AccountID, d.ConfigID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, permanent{errors.New("the alert config was deleted")}
	}
	if err != nil {
		return 0, err
	}
	if c.WebhookURL == "" || c.WebhookSecretName == "" {
		return 0, permanent{errors.New("the alert config no longer has a webhook")}
	}
	secret, err := s.Secrets.Reveal(ctx, d.AccountID, c.WebhookSecretName)
	if err != nil {
		return 0, permanent{err}
	}
	// The signature goes only to the secret's hosts, redirects included:
	// its hosts may have changed since the webhook was set.
	ctx = outbound.WithSecrets(ctx, []outbound.SecretBinding{secret.Binding()})
	if u, err := url.Parse(c.WebhookURL); err != nil {
		return 0, permanent{err}
	} else if err := outbound.CheckSecretHosts([]outbound.SecretBinding{secret.Binding()}, u); err != nil {
		return 0, permanent{err}
	}
	now := s.now()
	body, err := json.Marshal(WebhookPayload{Event: d.Event, DeliveryID: d.ID, SentAt: now.Format(time.RFC3339Nano), Alert: WebhookAlert{
		ID: a.ID, AccountID: a.AccountID, AlertConfigID: a.ConfigID, AlertType: a.Type, Title: a.Title, Description: a.Description,
		Status: a.Status, AgentID: a.AgentID, AgentRunID: a.RunID, SourceConnectionID: a.SourceConnectionID, Details: a.Details,
		CreatedAt: a.CreatedAt.Format(time.RFC3339Nano), UpdatedAt: a.UpdatedAt.Format(time.RFC3339Nano)}})
	if err != nil {
		return 0, permanent{err}
	}
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return 0, permanent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Agentry-Alerts/1")
	req.Header.Set(SignatureHeader, Sign([]byte(secret.Value), now, body))
	req.Header.Set("Service-Event", d.Event)
	req.Header.Set("Service-Delivery-Id", d.ID)
	resp, err := s.HTTP.Do(req)
	if err != nil {
		if errors.Is(err, engine.ErrForbiddenAddress) || errors.Is(err, outbound.ErrSecretHost) {
			return 0, permanent{err}
		}
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode < 300:
		return resp.StatusCode, nil
	case resp.StatusCode >= 500 || slices.Contains([]int{http.StatusRequestTimeout, http.StatusTooManyRequests}, resp.StatusCode):
		return resp.StatusCode, fmt.Errorf("the receiver answered %s", resp.Status)
	default:
		return resp.StatusCode, permanent{fmt.Errorf("the receiver answered %s", resp.Status)}
	}
}

func (s *Service) sendMail(ctx context.Context, d AlertDelivery, a Alert) error {
	if s.Mailer == nil {
		return permanent{errors.New(SkippedNoMailer)}
	}
	u, err := directory.GetUser(ctx, s.DB, d.Target)
	if err != nil {
		return permanent{fmt.Errorf("recipient: %w", err)}
	}
	if u.Email == "" {
		return permanent{errors.New("the user has no e-mail address")}
	}
	subject := "[Alert] " + a.Title
	if d.Event == EventStatusChanged {
		subject = "[Alert " + a.Status + "] " + a.Title
	} else if d.Event == EventCommented {
		subject = "[Alert comment] " + a.Title
	}
	text := describe(a.Description, "\n\nAlert", a.ID, "("+a.Type+") is", a.Status+".")
	return s.Mailer.SendAlert(ctx, Mail{AccountID: a.AccountID, AlertID: a.ID, To: u.Email, ToName: u.Name, Subject: subject, Text: text})
}
