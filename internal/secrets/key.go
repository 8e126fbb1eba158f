package secrets

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// KeySize is the size of the secrets key: AES-256.
const KeySize = 32

// KeyFileName is the key file kept in the data directory when no key is
// configured.
const KeyFileName = "secrets.key"

// Key sources, as LoadKey reports them.
const (
	SourceConfig  = "configuration"    // SERVICE_SECRETS_KEY
	SourceFile    = "key file"         // an existing <data-dir>/secrets.key
	SourceCreated = "created key file" // generated on this start
)

// ParseKey reads a key written as 64 hexadecimal digits or as base64
// (standard or URL alphabet, padded or not) of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KeySize {
				return nil, fmt.Errorf("the secrets key is %d bytes; want %d (for example `openssl rand -base64 32`)", len(b), KeySize)
			}
			return b, nil
		}
	}
	return nil, errors.New("the secrets key is neither 64 hexadecimal digits nor base64 of 32 bytes (for example `openssl rand -base64 32`)")
}

// LoadKey returns the secrets key: the configured value when there is one,
// else the key file in dataDir, created with a random key (mode 0600) on
// first start. Processes that share a database must share the key; a key
// file is only shared by processes that share the data directory.
func LoadKey(configured, dataDir string) (key []byte, source string, err error) {
	if strings.TrimSpace(configured) != "" {
		k, err := ParseKey(configured)
		if err != nil {
			return nil, "", fmt.Errorf("SERVICE_SECRETS_KEY: %w", err)
		}
		return k, SourceConfig, nil
	}
	path := filepath.Join(dataDir, KeyFileName)
	k, err := readKeyFile(path)
	if err == nil {
		return k, SourceFile, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, "", err
	}
	k = make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, "", err
	}
	// O_EXCL: of processes starting together on one data directory, one
	// writes the key and the others read it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		k, err := readKeyFile(path)
		return k, SourceFile, err
	}
	if err != nil {
		return nil, "", err
	}
	_, werr := f.WriteString(base64.StdEncoding.EncodeToString(k) + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return nil, "", werr
	}
	return k, SourceCreated, nil
}

// readKeyFile reads a key file, refusing one other users can read.
func readKeyFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is readable by other users (mode %04o): chmod 600 it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		// A process that lost the race may read before the winner wrote.
		return nil, fmt.Errorf("%s is empty; remove it to have a key generated, or set SERVICE_SECRETS_KEY", path)
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}
