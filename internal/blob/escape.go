package blob

import (
	"strconv"
	"strings"
)

// Keys that a file system or an S3 store cannot hold as they are are
// stored with the offending characters written "__0x<hex>__" — the
// convention of the gocloud.dev drivers this package replaced, kept so
// that blobs they wrote are found under the same keys. Text that already
// reads as such an escape is escaped too, so that every key maps to one
// stored name and back.

// hexEscape writes each rune of s for which escape says so, and each
// rune that starts an escape-like sequence, as "__0x<hex>__".
func hexEscape(s string, escape func(r []rune, i int) bool) string {
	runes := []rune(s)
	var b strings.Builder
	changed := false
	for i, r := range runes {
		if escape(runes, i) || startsEscape(runes, i) {
			b.WriteString("__0x" + strconv.FormatInt(int64(r), 16) + "__")
			changed = true
			continue
		}
		b.WriteRune(r)
	}
	if !changed {
		return s
	}
	return b.String()
}

// startsEscape reports whether r[i:] begins "__0x", hexadecimal digits
// (at least one, fitting 32 bits) and "__".
func startsEscape(r []rune, i int) bool {
	_, _, ok := readEscape(r, i)
	return ok
}

// readEscape decodes the escape at r[i:], returning the rune and the
// index of its last character (what reading a stored name back would use).
func readEscape(r []rune, i int) (rune, int, bool) {
	if i+4 > len(r) || string(r[i:i+4]) != "__0x" {
		return 0, 0, false
	}
	j := i + 4
	for j < len(r) && r[j] != '_' {
		j++
	}
	if j+1 >= len(r) || r[j+1] != '_' {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(string(r[i+4:j]), 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(v), j + 1, true
}
