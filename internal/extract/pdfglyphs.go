package extract

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// The encodings of simple fonts (PDF 32000-1 Annex D): each maps a byte to
// a glyph name, and the glyph name to its text. Differences arrays name
// glyphs too, so names are what everything goes through.

// glyphText returns the text a glyph name stands for: from the table of
// common names, or by the conventions of the Adobe Glyph List
// specification (uniXXXX, uXXXX[XX], ligatures joined by "_", variants
// after "."). Ligatures become their letters. An unknown name is "".
func glyphText(name string) string {
	if s, ok := glyphNames[name]; ok {
		return s
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return glyphText(name[:i])
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for _, part := range strings.Split(name, "_") {
			s := glyphText(part)
			if s == "" {
				return ""
			}
			b.WriteString(s)
		}
		return b.String()
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i < len(name); i += 4 {
			v, err := strconv.ParseUint(name[i:i+4], 16, 16)
			if err != nil || v >= 0xd800 && v < 0xe000 {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return expandLigatures(b.String())
	}
	if len(name) >= 5 && len(name) <= 7 && name[0] == 'u' {
		if v, err := strconv.ParseUint(name[1:], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
			return expandLigatures(string(rune(v)))
		}
	}
	return ""
}

// expandLigatures writes ligature characters (U+FB00–U+FB06) as their
// letters, as a reader would type them.
func expandLigatures(s string) string {
	if !strings.ContainsAny(s, "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06") {
		return s
	}
	return ligatureReplacer.Replace(s)
}

var ligatureReplacer = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st")

// glyphNames maps the glyph names of the standard Latin character set,
// and the usual extras of TeX and word-processor fonts, to their text.
var glyphNames = func() map[string]string {
	m := map[string]string{
		"space": " ", "exclam": "!", "quotedbl": "\"", "numbersign": "#", "dollar": "$", "percent": "%",
		"ampersand": "&", "quotesingle": "'", "quoteright": "\u2019", "parenleft": "(", "parenright": ")",
		"asterisk": "*", "plus": "+", "comma": ",", "hyphen": "-", "period": ".", "slash": "/",
		"colon": ":", "semicolon": ";", "less": "<", "equal": "=", "greater": ">", "question": "?", "at": "@",
		"bracketleft": "[", "backslash": "\\", "bracketright": "]", "asciicircum": "^", "underscore": "_",
		"grave": "`", "quoteleft": "\u2018", "braceleft": "{", "bar": "|", "braceright": "}", "asciitilde": "~",
		"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
		"eight": "8", "nine": "9",
		// Ligatures, as letters.
		"ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl", "f_f": "ff", "f_i": "fi", "f_l": "fl",
		"f_f_i": "ffi", "f_f_l": "ffl", "s_t": "st",
		// Beyond Latin-1.
		"dotlessi": "ı", "dotlessj": "ȷ", "Lslash": "Ł", "lslash": "ł", "fraction": "⁄", "minus": "−",
		"ring": "˚", "dotaccent": "˙", "hungarumlaut": "˝", "ogonek": "˛", "caron": "ˇ", "breve": "˘",
		"nbspace": "\u00a0", "sfthyphen": "\u00ad", "visiblespace": "␣", "Omega": "Ω", "Delta": "∆",
		"mu1": "µ", "bulletmath": "∙", "asteriskmath": "∗", "periodcentered": "·", "similar": "∼",
		"lessequal": "≤", "greaterequal": "≥", "notequal": "≠", "infinity": "∞", "arrowright": "→",
		"arrowleft": "←", "arrowboth": "↔", "arrowup": "↑", "arrowdown": "↓", "arrowdblright": "⇒",
		"element": "∈", "summation": "∑", "product": "∏", "radical": "√", "integral": "∫", "partialdiff": "∂",
		"approxequal": "≈", "circlecopyrt": "©", "angbracketleft": "⟨", "angbracketright": "⟩",
		"dagger": "†", "daggerdbl": "‡", "bullet": "•", "ellipsis": "…", "emdash": "—", "endash": "–",
		"quotedblleft": "“", "quotedblright": "”", "quotesinglbase": "‚", "quotedblbase": "„",
		"guilsinglleft": "‹", "guilsinglright": "›", "perthousand": "‰", "trademark": "™", "florin": "ƒ",
		"Euro": "€", "OE": "Œ", "oe": "œ", "Scaron": "Š", "scaron": "š", "Zcaron": "Ž", "zcaron": "ž",
		"Ydieresis": "Ÿ", "circumflex": "ˆ", "tilde": "˜", "alpha": "α", "beta": "β", "gamma": "γ",
		"delta": "δ", "epsilon": "ε", "lambda": "λ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ",
		"omega": "ω", "Gamma": "Γ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ",
		"Theta": "Θ", "theta": "θ", "Xi": "Ξ", "xi": "ξ", "Upsilon": "Υ", "eta": "η", "kappa": "κ",
		"nu": "ν", "rho": "ρ", "chi": "χ", "psi": "ψ", "zeta": "ζ", "iota": "ι", "upsilon": "υ",
		"omicron": "ο",
	}
	for c := 'A'; c <= 'Z'; c++ {
		m[string(c)] = string(c)
		m[string(c+'a'-'A')] = string(c + 'a' - 'A')
	}
	// Latin-1 from U+00A1: the names in code order.
	for i, name := range strings.Fields(latin1Names) {
		if _, ok := m[name]; !ok {
			m[name] = string(rune(0xa1 + i))
		}
	}
	m["mu"] = "µ"
	return m
}()

const latin1Names = `exclamdown cent sterling currency yen brokenbar section dieresis copyright ordfeminine
guillemotleft logicalnot hyphen registered macron degree plusminus twosuperior threesuperior acute mu
paragraph periodcentered cedilla onesuperior ordmasculine guillemotright onequarter onehalf threequarters
questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring AE Ccedilla Egrave Eacute Ecircumflex
Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde Ograve Oacute Ocircumflex Otilde Odieresis
multiply Oslash Ugrave Uacute Ucircumflex Udieresis Yacute Thorn germandbls agrave aacute acircumflex
atilde adieresis aring ae ccedilla egrave eacute ecircumflex edieresis igrave iacute icircumflex
idieresis eth ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave uacute ucircumflex
udieresis yacute thorn ydieresis`

// byteEncoding is the text of each byte of a simple font.
type byteEncoding [256]string

// standardEncoding is Adobe's StandardEncoding, the built-in encoding of
// most Type 1 fonts: ASCII but for the quotes, and its own upper half.
var standardEncoding = func() *byteEncoding {
	var e byteEncoding
	for c := 0x20; c < 0x7f; c++ {
		e[c] = string(rune(c))
	}
	e['\''], e['`'] = "\u2019", "\u2018"
	upper := map[byte]string{
		0xa1: "exclamdown", 0xa2: "cent", 0xa3: "sterling", 0xa4: "fraction", 0xa5: "yen", 0xa6: "florin",
		0xa7: "section", 0xa8: "currency", 0xa9: "quotesingle", 0xaa: "quotedblleft", 0xab: "guillemotleft",
		0xac: "guilsinglleft", 0xad: "guilsinglright", 0xae: "fi", 0xaf: "fl", 0xb1: "endash", 0xb2: "dagger",
		0xb3: "daggerdbl", 0xb4: "periodcentered", 0xb6: "paragraph", 0xb7: "bullet", 0xb8: "quotesinglbase",
		0xb9: "quotedblbase", 0xba: "quotedblright", 0xbb: "guillemotright", 0xbc: "ellipsis",
		0xbd: "perthousand", 0xbf: "questiondown", 0xc1: "grave", 0xc2: "acute", 0xc3: "circumflex",
		0xc4: "tilde", 0xc5: "macron", 0xc6: "breve", 0xc7: "dotaccent", 0xc8: "dieresis", 0xca: "ring",
		0xcb: "cedilla", 0xcd: "hungarumlaut", 0xce: "ogonek", 0xcf: "caron", 0xd0: "emdash", 0xe1: "AE",
		0xe3: "ordfeminine", 0xe8: "Lslash", 0xe9: "Oslash", 0xea: "OE", 0xeb: "ordmasculine", 0xf1: "ae",
		0xf5: "dotlessi", 0xf8: "lslash", 0xf9: "oslash", 0xfa: "oe", 0xfb: "germandbls",
	}
	for c, name := range upper {
		e[c] = glyphText(name)
	}
	return &e
}()

// charmapEncoding builds a byte encoding from a code page (WinAnsi is
// Windows-1252, MacRoman the Macintosh one) from the space up.
func charmapEncoding(cm *charmap.Charmap) *byteEncoding {
	var e byteEncoding
	for c := 0x20; c < 0x100; c++ {
		if r := cm.DecodeByte(byte(c)); r != utf8.RuneError && r != 0x7f {
			e[c] = string(r)
		}
	}
	return &e
}

var (
	winAnsiEncoding = func() *byteEncoding {
		e := charmapEncoding(charmap.Windows1252)
		e[0xad] = "-" // PDF's WinAnsiEncoding names it hyphen, not a soft hyphen
		return e
	}()
	macRomanEncoding = charmapEncoding(charmap.Macintosh)
)

// namedEncoding returns the encoding a font's /Encoding name (or a
// Differences dictionary's /BaseEncoding) names.
func namedEncoding(name string) *byteEncoding {
	switch name {
	case "WinAnsiEncoding":
		return winAnsiEncoding
	case "MacRomanEncoding", "MacExpertEncoding":
		return macRomanEncoding
	case "StandardEncoding":
		return standardEncoding
	}
	return nil
}
