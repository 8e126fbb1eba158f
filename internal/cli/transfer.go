package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// uploadFile is what an area's upload command calls: it opens the file,
// checks the size limit before sending, streams it with a progress bar on
// stderr, and decodes the response into out.
func (a *App) uploadFile(cmd *cobra.Command, c *client.Client, apiPath, file string, u client.Upload, out any) error {
	f, err := os.Open(file)
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	u.Content, u.Size = f, st.Size()
	if u.FileName == "" {
		u.FileName = filepath.Base(file)
	}
	bar := progressFor(cmd.ErrOrStderr(), u.FileName, st.Size())
	u.Progress = func(sent, _ int64) { bar.Set(sent) }
	err = c.Upload(cmd.Context(), apiPath, u, out)
	bar.Finish()
	return err
}

// downloadTo streams a download into dest ("-" is stdout) with a progress
// bar on stderr. A file is written beside its destination and renamed into
// place, so an interrupted download never leaves a truncated file under
// the final name.
func (a *App) downloadTo(cmd *cobra.Command, c *client.Client, apiPath, dest string) error {
	d, err := c.Download(cmd.Context(), apiPath)
	if err != nil {
		return err
	}
	defer d.Close()
	if dest == "" {
		dest = d.FileName
	}
	if dest == "" {
		return usageErrorf("the server named no file: give a destination (or - for stdout)")
	}
	label := d.FileName
	if label == "" {
		label = filepath.Base(dest)
	}
	bar := progressFor(cmd.ErrOrStderr(), label, d.ContentLength)
	defer bar.Finish()
	if dest == "-" {
		_, err := copyCtx(cmd.Context(), bar.Writer(cmd.OutOrStdout()), d.Body)
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := copyCtx(cmd.Context(), bar.Writer(tmp), d.Body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("save %s: %w", dest, err)
	}
	return nil
}

// copyCtx copies until done or until ctx is cancelled (Ctrl-C).
func copyCtx(ctx context.Context, w io.Writer, r io.Reader) (int64, error) {
	if ctx == nil {
		return io.Copy(w, r)
	}
	return io.Copy(w, readerFunc(func(p []byte) (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return r.Read(p)
	}))
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
