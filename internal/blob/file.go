package blob

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fileStore keeps blobs in a directory, in the layout gocloud.dev's
// fileblob wrote (the store before this one), so that existing data
// directories stay readable and writable both ways:
//   - a blob is the file at DIR/KEY, its key's "/" making directories, and
//     a few characters escaped as "__0x<hex>__" (escapeKey);
//   - beside it, KEY.attrs is a JSON sidecar with the content type and
//     MD5 (xattrs);
//   - a write goes to "KEY.<hex nanoseconds>.tmp" and is renamed into
//     place when complete, so a reader never sees half a blob (and
//     SweepTemp finds what a killed writer left).
type fileStore struct {
	dir       string
	dirMode   os.FileMode
	skipAttrs bool
}

// attrsExt is the sidecar's extension; keys may not end with it.
const attrsExt = ".attrs"

// xattrs is the sidecar's content, field for field as fileblob wrote it.
type xattrs struct {
	CacheControl       string            `json:"user.cache_control"`
	ContentDisposition string            `json:"user.content_disposition"`
	ContentEncoding    string            `json:"user.content_encoding"`
	ContentLanguage    string            `json:"user.content_language"`
	ContentType        string            `json:"user.content_type"`
	Metadata           map[string]string `json:"user.metadata"`
	MD5                []byte            `json:"md5"`
}

// openFileStore opens file:///DIR. It takes fileblob's parameters that
// still mean something (metadata=skip, dir_file_mode) and accepts, as
// no-ops, those that describe what it always does (create_dir,
// no_tmp_dir: temporary files are always written beside their blob, so
// the final rename never crosses file systems).
func openFileStore(u *url.URL, q url.Values) (*fileStore, error) {
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("blob url: file:// takes an absolute path (file:///DIR), not host %q", u.Host)
	}
	f := &fileStore{dirMode: 0o777}
	for k, vs := range q {
		v := vs[0]
		switch k {
		case "create_dir", "no_tmp_dir":
		case "metadata":
			if v != "skip" && v != "" {
				return nil, fmt.Errorf("blob url: metadata=%q: want skip", v)
			}
			f.skipAttrs = v == "skip"
		case "dir_file_mode":
			m, err := strconv.ParseUint(v, 0, 32)
			if err != nil {
				return nil, fmt.Errorf("blob url: dir_file_mode %q: %w", v, err)
			}
			f.dirMode = os.FileMode(m)
		default:
			return nil, fmt.Errorf("blob url: unknown parameter %q for file://", k)
		}
	}
	if u.Path == "" {
		return nil, errors.New("blob url: file:// needs a directory (file:///DIR)")
	}
	dir, err := filepath.Abs(filepath.FromSlash(u.Path))
	if err != nil {
		return nil, fmt.Errorf("blob url: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create blob directory: %w", err)
	}
	f.dir = dir
	return f, nil
}

// escapeKey makes a key a relative path: control characters, a "/" that
// would make "../" or "//", and a trailing "/" become "__0x<hex>__", and
// so does any text that already looks like such an escape, so that the
// mapping stays reversible (fileblob's rules, on a "/"-separated system).
func escapeKey(key string) string {
	return hexEscape(key, func(r []rune, i int) bool {
		c := r[i]
		switch {
		case c < 32:
			return true
		case os.PathSeparator != '/' && c == os.PathSeparator:
			return true
		case i > 1 && c == '/' && r[i-1] == '.' && r[i-2] == '.':
			return true
		case i > 0 && c == '/' && r[i-1] == '/':
			return true
		case c == '/' && i == len(r)-1:
			return true
		}
		return false
	})
}

// path is the file of key, refused if it would leave the directory or
// collide with a sidecar.
func (f *fileStore) path(key string) (string, error) {
	p := filepath.Join(f.dir, filepath.FromSlash(escapeKey(key)))
	clean := filepath.Clean(p) + string(os.PathSeparator)
	root := f.dir + string(os.PathSeparator)
	if clean == root || (f.dir != string(os.PathSeparator) && !strings.HasPrefix(clean, root)) {
		return "", fmt.Errorf("blob: key %q escapes the store's directory", key)
	}
	if strings.HasSuffix(p, attrsExt) {
		return "", fmt.Errorf("blob: key %q ends with the reserved %s", key, attrsExt)
	}
	return p, nil
}

func (f *fileStore) put(ctx context.Context, key, contentType string, r io.Reader) (int64, error) {
	p, err := f.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), f.dirMode); err != nil {
		return 0, err
	}
	tmp, err := createTemp(p)
	if err != nil {
		return 0, err
	}
	// Whatever happens, the temporary name does not outlive the write:
	// renamed into place, or removed.
	defer os.Remove(tmp.Name())
	sum := md5.New()
	n, err := io.Copy(io.MultiWriter(tmp, sum), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return n, err
	}
	if !f.skipAttrs {
		if err := writeAttrs(p, xattrs{ContentType: contentType, MD5: sum.Sum(nil)}); err != nil {
			return n, err
		}
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		if !f.skipAttrs {
			os.Remove(p + attrsExt)
		}
		return n, err
	}
	return n, nil
}

// createTemp creates "<path>.<hex nanoseconds>.tmp", the name fileblob
// gave a blob being written (and tempFile matches), with the permissions
// of an ordinary file.
func createTemp(path string) (*os.File, error) {
	for try := 0; try < 10000; try++ {
		name := path + "." + strconv.FormatInt(time.Now().UnixNano(), 16) + ".tmp"
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &os.PathError{Op: "createtemp", Path: path + ".*.tmp", Err: fs.ErrExist}
}

func writeAttrs(path string, xa xattrs) error {
	f, err := os.Create(path + attrsExt)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(f).Encode(xa); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	return f.Close()
}

func (f *fileStore) get(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := f.path(key)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(p)
	if err != nil {
		return nil, notFound(err)
	}
	if info, err := file.Stat(); err != nil || info.IsDir() {
		file.Close()
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return file, nil
}

func (f *fileStore) delete(_ context.Context, key string) error {
	p, err := f.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		return notFound(err)
	}
	if err := os.Remove(p + attrsExt); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (f *fileStore) exists(_ context.Context, key string) (bool, error) {
	p, err := f.path(key)
	if err != nil {
		return false, err
	}
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return !info.IsDir(), nil
}

// notFound makes a missing file match ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}
