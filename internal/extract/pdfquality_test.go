package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// The quality bar: the words extracted from a PDF, compared with those
// poppler's pdftotext finds in it (made once, reviewed, and kept beside
// the PDF as name.pdftotext.txt), score a word-level F1 of at least this.
const minPDFWordF1 = 0.95

// TestPDFWordsMatchPoppler measures the extraction of real PDFs against
// pdftotext: the two of ../shared/datasets/pdfs (pdfTeX files) when they
// are there, and the fixtures of testdata/pdf, made by other tool chains.
func TestPDFWordsMatchPoppler(t *testing.T) {
	type doc struct{ name, pdf, want string }
	var docs []doc
	if dir, err := sharedDir("datasets/pdfs"); err != nil {
		t.Logf("SKIP the shared PDFs: %v", err)
	} else {
		for _, name := range []string{"libtasn1", "shared-mime-info-spec"} {
			docs = append(docs, doc{name, filepath.Join(dir, name+".pdf"), filepath.Join("testdata", "pdf", name+".pdftotext.txt")})
		}
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "pdf", "*.pdf"))
	for _, f := range fixtures {
		docs = append(docs, doc{strings.TrimSuffix(filepath.Base(f), ".pdf"), f, strings.TrimSuffix(f, ".pdf") + ".pdftotext.txt"})
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			data, err := os.ReadFile(d.pdf)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(d.want)
			if err != nil {
				t.Fatal(err)
			}
			got, res, err := run(t, "application/pdf", data)
			if err != nil || res.Extractor != "pdf" {
				t.Fatalf("%+v %v", res, err)
			}
			f1, p, r := wordF1(got, string(want))
			t.Logf("%s: word F1 %.4f (precision %.4f, recall %.4f; %d words, pdftotext %d)", d.name, f1, p, r, len(words(got)), len(words(string(want))))
			if f1 < minPDFWordF1 {
				t.Errorf("%s: word F1 %.4f is under %.2f", d.name, f1, minPDFWordF1)
			}
			if os.Getenv("PDF_DUMP") != "" {
				os.WriteFile(filepath.Join(os.Getenv("PDF_DUMP"), d.name+".txt"), []byte(got), 0o644)
			}
		})
	}
}

// wordF1 scores the words of got against those of want, as multisets
// (reading order aside): precision is the share of got's words that want
// has, recall the share of want's that got has.
func wordF1(got, want string) (f1, precision, recall float64) {
	g, w := words(got), words(want)
	count := map[string]int{}
	for _, x := range w {
		count[x]++
	}
	common := 0
	for _, x := range g {
		if count[x] > 0 {
			count[x]--
			common++
		}
	}
	if len(g) == 0 || len(w) == 0 || common == 0 {
		return 0, 0, 0
	}
	precision, recall = float64(common)/float64(len(g)), float64(common)/float64(len(w))
	return 2 * precision * recall / (precision + recall), precision, recall
}

func words(s string) []string { return strings.FieldsFunc(s, unicode.IsSpace) }

func TestWordF1(t *testing.T) {
	if f, _, _ := wordF1("a b c", "c b a"); f != 1 {
		t.Fatal(f)
	}
	if f, p, r := wordF1("ab c", "a b c"); f != 0.4 || p != 0.5 || r != 1.0/3 {
		t.Fatal(f, p, r)
	}
	if f, _, _ := wordF1("", "a"); f != 0 {
		t.Fatal(f)
	}
}

// sharedDir finds shared/<sub> beside the checkout, walking up from the
// working directory as the other tests that read shared/ do.
func sharedDir(sub string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", filepath.FromSlash(sub))
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("shared/" + sub + " is not in any parent directory of " + wd)
		}
	}
}
