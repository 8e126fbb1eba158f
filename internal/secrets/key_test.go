package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	k := bytes.Repeat([]byte{0xab}, KeySize)
	for _, s := range []string{hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k), base64.RawURLEncoding.EncodeToString(k),
		" " + base64.StdEncoding.EncodeToString(k) + "\n"} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, k) {
			t.Errorf("ParseKey(%q) = %x, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "short", base64.StdEncoding.EncodeToString(k[:16]), hex.EncodeToString(k)[:63] + "z"} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}

func TestLoadKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	k1, src, err := LoadKey("", dir)
	if err != nil || src != SourceCreated || len(k1) != KeySize {
		t.Fatalf("first start: %v %s", err, src)
	}
	path := filepath.Join(dir, KeyFileName)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %04o, want 0600", st.Mode().Perm())
	}
	k2, src, err := LoadKey("", dir)
	if err != nil || src != SourceFile || !bytes.Equal(k1, k2) {
		t.Fatalf("second start: %v %s, same key %v", err, src, bytes.Equal(k1, k2))
	}
	conf := bytes.Repeat([]byte{7}, KeySize)
	k3, src, err := LoadKey(hex.EncodeToString(conf), dir)
	if err != nil || src != SourceConfig || !bytes.Equal(k3, conf) {
		t.Fatalf("configured: %v %s", err, src)
	}
	if _, _, err := LoadKey("nope", dir); err == nil || !strings.Contains(err.Error(), "SERVICE_SECRETS_KEY") {
		t.Errorf("bad configured key: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadKey("", dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("world-readable key file: %v", err)
		}
	}
}
