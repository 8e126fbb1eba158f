package realclient_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestSecretsClient(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetSecret(ctx, "S3_KEY", "AKIAEXAMPLE", nil); !errors.Is(err, client.ErrUnprocessable) {
			t.Fatalf("a new secret without hosts: %v", err)
		}
		s, err := c.SetSecret(ctx, "S3_KEY", "AKIAEXAMPLE", []string{"minio.example.net:9000"})
		if err != nil || !s.Created || s.Name != "S3_KEY" || s.CreatedAt == "" || len(s.Hosts) != 1 {
			t.Fatalf("set: %+v %v", s, err)
		}
		if s, err = c.SetSecret(ctx, "S3_KEY", "AKIAOTHER", nil); err != nil || s.Created || len(s.Hosts) != 1 {
			t.Fatalf("replace: %+v %v", s, err)
		}
		if s, err = c.BindSecret(ctx, "S3_KEY", []string{"a.example", "*.b.example"}); err != nil || s.Created || len(s.Hosts) != 2 {
			t.Fatalf("bind: %+v %v", s, err)
		}
		if _, err = c.BindSecret(ctx, "S3_KEY", nil); !errors.Is(err, client.ErrUnprocessable) {
			t.Fatalf("bind to nothing: %v", err)
		}
		for i := range 3 {
			if _, err := c.SetSecret(ctx, fmt.Sprintf("K%d", i), "v", []string{"k.example"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, v := range []string{client.Version20260701, client.Version20260727} {
			p, err := c.ListSecrets(ctx, client.SecretListOptions{Limit: 2, Page: 2}, client.WithRequestVersion(v))
			if err != nil || len(p.Items) != 2 || p.Items[0].Name != "K2" || p.Total != 4 {
				t.Fatalf("list at %s: %+v %v", v, p, err)
			}
		}
		var names []string
		for s, err := range c.Secrets(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != "K0,K1,K2,S3_KEY" {
			t.Errorf("all secrets: %v", names)
		}
		if _, err := c.SetSecret(ctx, "bad-name", "v", []string{"k.example"}); !errors.Is(err, client.ErrUnprocessable) {
			t.Errorf("bad name: %v", err)
		}
		if err := c.DeleteSecret(ctx, "S3_KEY"); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteSecret(ctx, "S3_KEY"); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
	})
}
