package partiql

import "strings"

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // bare identifier or keyword
	tQuoted         // "double-quoted identifier"
	tString         // 'single-quoted string'
	tNumber         // decimal literal, unsigned
	tParam          // ?
	tPunct          // = <> != < <= > >= ( ) [ ] { } , . : * + - << >>
	tBad            // a character PartiQL does not accept, or an unterminated quote
)

type token struct {
	kind tokKind
	text string // for tString and tQuoted the unquoted text
	pos  int
}

// is reports whether t is the punctuation p or the keyword p; keywords match
// case-insensitively.
func (t token) is(p string) bool {
	switch t.kind {
	case tPunct:
		return t.text == p
	case tIdent:
		return strings.EqualFold(t.text, p)
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isIdentPart(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$'
}

// lex splits src into tokens; it never fails, unknown characters become tBad.
func lex(src string) []token {
	var toks []token
	for i := 0; i < len(src); {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				toks = append(toks, token{tBad, src[start:], start})
				i = len(src)
				continue
			}
			i += end + 4
			continue
		case isLetter(c) || c == '_' || c == '$':
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			toks = append(toks, token{tIdent, src[start:i], start})
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			i = lexNumber(src, i)
			toks = append(toks, token{tNumber, src[start:i], start})
		case c == '\'' || c == '"':
			text, end, ok := lexQuoted(src, i, c)
			i = end
			kind := tString
			if c == '"' {
				kind = tQuoted
			}
			if !ok {
				kind, text = tBad, src[start:i]
			}
			toks = append(toks, token{kind, text, start})
		case c == '?':
			i++
			toks = append(toks, token{tParam, "?", start})
		default:
			i = lexPunct(src, i)
			kind := tPunct
			if i == start {
				i++
				kind = tBad
			}
			toks = append(toks, token{kind, src[start:i], start})
		}
	}
	return append(toks, token{tEOF, "", len(src)})
}

func lexNumber(src string, i int) int {
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' {
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// lexQuoted reads a quoted string starting at src[i] == q; a doubled quote
// stands for one quote character.
func lexQuoted(src string, i int, q byte) (string, int, bool) {
	var b strings.Builder
	i++
	for i < len(src) {
		if src[i] == q {
			if i+1 < len(src) && src[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(src[i])
		i++
	}
	return b.String(), i, false
}

var punct2 = []string{"<>", "!=", "<=", ">=", "<<", ">>"}

func lexPunct(src string, i int) int {
	for _, p := range punct2 {
		if strings.HasPrefix(src[i:], p) {
			return i + 2
		}
	}
	if strings.IndexByte("=<>()[]{},.:*+-;", src[i]) >= 0 {
		return i + 1
	}
	return i
}
