package evalset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// LoadCISI reads the CISI test collection in dir (CISI.ALL, CISI.QRY,
// CISI.REL; see its README): documents with their titles and authors,
// the query text of each judged query (.W), binary judgments (grade 1).
func LoadCISI(dir string) (*Collection, error) {
	docs, err := readCISIRecords(filepath.Join(dir, "CISI.ALL"))
	if err != nil {
		return nil, err
	}
	qs, err := readCISIRecords(filepath.Join(dir, "CISI.QRY"))
	if err != nil {
		return nil, err
	}
	c := &Collection{Qrels: map[string]map[string]int{}}
	for _, r := range docs {
		c.Docs = append(c.Docs, Doc{ID: r.id, Title: r.fields["T"], Text: r.fields["W"], Authors: r.fields["A"]})
	}
	f, err := os.Open(filepath.Join(dir, "CISI.REL"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) < 2 {
			return nil, fmt.Errorf("CISI.REL line %d: want query and document ids", line)
		}
		if c.Qrels[fs[0]] == nil {
			c.Qrels[fs[0]] = map[string]int{}
		}
		c.Qrels[fs[0]][fs[1]] = 1
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, r := range qs {
		if len(c.Qrels[r.id]) > 0 {
			c.Queries = append(c.Queries, Query{ID: r.id, Text: r.fields["W"]})
		}
	}
	if len(c.Docs) == 0 || len(c.Queries) == 0 {
		return nil, fmt.Errorf("evalset: %s has %d documents and %d judged queries", dir, len(c.Docs), len(c.Queries))
	}
	return c, nil
}

// IsCISI reports whether dir holds the CISI collection.
func IsCISI(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "CISI.ALL"))
	return err == nil
}

type cisiRecord struct {
	id     string
	fields map[string]string
}

// readCISIRecords reads the SMART format: a record starts with ".I id",
// fields with ".X" on a line of their own (or followed by text), and run
// to the next field or record. The files are Latin-1.
func readCISIRecords(path string) ([]cisiRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, err
	}
	text := latin1(raw)
	var out []cisiRecord
	var cur *cisiRecord
	field := ""
	var b strings.Builder
	end := func() {
		if cur != nil && field != "" {
			cur.fields[field] = strings.TrimSpace(b.String())
		}
		b.Reset()
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if len(l) >= 2 && l[0] == '.' && strings.Contains("ITAWXBKNC", l[1:2]) && (len(l) == 2 || l[2] == ' ' || l[2] == '\t') {
			end()
			if l[1] == 'I' {
				out = append(out, cisiRecord{id: strings.TrimSpace(l[2:]), fields: map[string]string{}})
				cur, field = &out[len(out)-1], ""
				continue
			}
			field = l[1:2]
			if rest := strings.TrimSpace(l[2:]); rest != "" {
				b.WriteString(rest + "\n")
			}
			continue
		}
		if field != "" {
			b.WriteString(l + "\n")
		}
	}
	end()
	return out, nil
}

// latin1 decodes ISO 8859-1 (valid UTF-8 is taken as it is).
func latin1(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}
