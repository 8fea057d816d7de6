package expr

import (
	_ "embed"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // bare attribute or function name, or a keyword
	tName           // #placeholder
	tValue          // :placeholder
	tNumber         // list index digits
	tPunct          // = <> < <= > >= ( ) [ ] , . + -
	tBad            // a character DynamoDB's lexer does not accept
)

type token struct {
	kind     tokKind
	text     string
	pos, end int // byte offsets in the source
}

// is reports whether t is the punctuation p or the keyword p (keywords match
// case-insensitively, as in DynamoDB).
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
func isNamePart(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// lex splits src into tokens. It never fails: characters it does not know
// become tBad tokens, which the parser reports as syntax errors.
func lex(src string) []token {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isLetter(c):
			for i < len(src) && isNamePart(src[i]) {
				i++
			}
			toks = append(toks, token{tIdent, src[start:i], start, i})
		case isDigit(c):
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			toks = append(toks, token{tNumber, src[start:i], start, i})
		case c == '#' || c == ':':
			i++
			for i < len(src) && isNamePart(src[i]) {
				i++
			}
			k := tName
			if c == ':' {
				k = tValue
			}
			if i == start+1 {
				k = tBad
			}
			toks = append(toks, token{k, src[start:i], start, i})
		case c == '<' || c == '>':
			i++
			if i < len(src) && (src[i] == '=' || c == '<' && src[i] == '>') {
				i++
			}
			toks = append(toks, token{tPunct, src[start:i], start, i})
		case strings.IndexByte("=()[],.+-", c) >= 0:
			i++
			toks = append(toks, token{tPunct, src[start:i], start, i})
		default:
			_, n := utf8.DecodeRuneInString(src[i:])
			i += n
			toks = append(toks, token{tBad, src[start:i], start, i})
		}
	}
	return append(toks, token{tEOF, "<EOF>", len(src), len(src)})
}

//go:embed reserved_words.txt
var reservedText string

// reserved holds DynamoDB's reserved words, upper case.
var reserved = func() map[string]bool {
	m := make(map[string]bool, 600)
	for _, w := range strings.Fields(reservedText) {
		m[w] = true
	}
	return m
}()

// IsReserved reports whether name is one of DynamoDB's reserved words, which
// an expression may not use as a bare attribute name (case-insensitive).
func IsReserved(name string) bool { return reserved[strings.ToUpper(name)] }

// grammarKeywords can never be attribute names, even reserved-word errors
// aside: DynamoDB's grammar reads them as operators or clause names.
// REMOVE is not a reserved word, so it is a keyword only in update expressions.
var grammarKeywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true,
	"SET": true, "ADD": true, "DELETE": true,
}

func isKeyword(t token, update bool) bool {
	if t.kind != tIdent {
		return false
	}
	u := strings.ToUpper(t.text)
	return grammarKeywords[u] || update && u == "REMOVE"
}
