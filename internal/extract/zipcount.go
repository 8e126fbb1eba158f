package extract

import (
	"bytes"
	"encoding/binary"
	"io"
)

// checkZipEntries counts the entries of a zip's central directory, reading
// the records one by one, and refuses an archive with more than max. The
// count in the end record is not trusted (archive/zip reads records until
// one does not parse, and compares the count only modulo 65536).
func checkZipEntries(ra io.ReaderAt, size int64, max int) error {
	const endLen = 22
	if size < endLen {
		return malformed("not a DOCX file (not a zip archive): too short")
	}
	// The end record sits in the last 22 bytes plus a comment of at most
	// 65535 bytes.
	tail := min(size, endLen+65535)
	buf := make([]byte, tail)
	if _, err := ra.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return malformed("not a DOCX file: %v", err)
	}
	at := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if bytes.Equal(buf[i:i+4], []byte("PK\x05\x06")) {
			at = i
			break
		}
	}
	if at < 0 {
		return malformed("not a DOCX file (not a zip archive): no end of central directory")
	}
	dirOffset := int64(binary.LittleEndian.Uint32(buf[at+16:]))
	if dirOffset == 0xFFFFFFFF {
		return malformed("not a DOCX file: zip64 archives are not supported")
	}
	if dirOffset > size {
		return malformed("not a DOCX file (not a zip archive): the directory lies past the end")
	}
	sr := io.NewSectionReader(ra, dirOffset, size-dirOffset)
	var hdr [46]byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(sr, hdr[:]); err != nil || !bytes.Equal(hdr[:4], []byte("PK\x01\x02")) {
			return nil // the end of the records (archive/zip judges what follows)
		}
		if n >= max {
			return limitErr("the DOCX archive has more than %d entries", max)
		}
		skip := int64(binary.LittleEndian.Uint16(hdr[28:])) + int64(binary.LittleEndian.Uint16(hdr[30:])) + int64(binary.LittleEndian.Uint16(hdr[32:]))
		if _, err := sr.Seek(skip, io.SeekCurrent); err != nil {
			return nil
		}
	}
}
