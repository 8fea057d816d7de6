package metadata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The bounds of a Metadata, Stripe's.
const (
	MaxKeys        = 50
	MaxKeyLength   = 40
	MaxValueLength = 500
)

// Param is the request member that holds metadata.
const Param = "metadata"

// Metadata is a client's key-value pairs. The zero value (nil) is no
// metadata; a JSON null or {} decodes to it.
type Metadata map[string]string

// ErrInvalid is what every [*Error] wraps.
var ErrInvalid = errors.New("invalid metadata")

// Reason says which bound an [*Error] breaks.
type Reason string

// Reasons of an [*Error].
const (
	NotObject     Reason = "not_object"     // metadata is not a JSON object (or null)
	NotString     Reason = "not_string"     // a value is not a JSON string
	TooManyKeys   Reason = "too_many_keys"  // more than MaxKeys keys
	EmptyKey      Reason = "empty_key"      // a key is ""
	KeyTooLong    Reason = "key_too_long"   // a key over MaxKeyLength characters
	KeyCharacter  Reason = "key_character"  // a key with '[', ']' or a control character
	ValueTooLong  Reason = "value_too_long" // a value over MaxValueLength characters
	DuplicateKey  Reason = "duplicate_key"  // a key named twice (after NFC)
	InvalidString Reason = "invalid_string" // a key or value that is not valid UTF-8
)

// Error is metadata that breaks a bound. Param is the request member at
// fault: "metadata" for the whole object, "metadata[<key>]" for one key.
type Error struct {
	Param  string
	Reason Reason
	Detail string
}

func (e *Error) Error() string { return fmt.Sprintf("%v: %s", ErrInvalid, e.Detail) }
func (e *Error) Unwrap() error { return ErrInvalid }

// ParamOf is the request member that names key.
func ParamOf(key string) string { return Param + "[" + key + "]" }

func keyError(key string, r Reason, format string, args ...any) *Error {
	return &Error{Param: ParamOf(key), Reason: r, Detail: fmt.Sprintf("%s: ", ParamOf(key)) + fmt.Sprintf(format, args...)}
}

// checkKey applies the key bounds to key, in NFC.
func checkKey(key string) *Error {
	switch n := utf8.RuneCountInString(key); {
	case !utf8.ValidString(key):
		return keyError(key, InvalidString, "the key is not valid UTF-8")
	case n == 0:
		return &Error{Param: ParamOf(""), Reason: EmptyKey, Detail: "metadata: a key must not be empty"}
	case n > MaxKeyLength:
		return keyError(key, KeyTooLong, "the key is %d characters, at most %d", n, MaxKeyLength)
	}
	for _, r := range key {
		if r == '[' || r == ']' || r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return keyError(key, KeyCharacter, "a key must not contain '[', ']' or control characters")
		}
	}
	return nil
}

// checkValue applies the value bound to key's value v, in NFC.
func checkValue(key, v string) *Error {
	if !utf8.ValidString(v) {
		return keyError(key, InvalidString, "the value is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(v); n > MaxValueLength {
		return keyError(key, ValueTooLong, "the value is %d characters, at most %d", n, MaxValueLength)
	}
	return nil
}

// Validate applies the bounds to m, keys in sorted order; m must be in
// NFC (as UnmarshalJSON leaves it).
func Validate(m Metadata) error {
	if len(m) > MaxKeys {
		return &Error{Param: Param, Reason: TooManyKeys, Detail: fmt.Sprintf("metadata has %d keys, at most %d", len(m), MaxKeys)}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := checkKey(k); err != nil {
			return err
		}
		if err := checkValue(k, m[k]); err != nil {
			return err
		}
	}
	return nil
}

// Merge is base with add's keys set over it: what an order or a hold keeps
// when a settle, a capture or a void brings metadata of its own. The
// result is bounded as any Metadata (too many keys is an *Error at
// "metadata"); nil when both are empty.
func Merge(base, add Metadata) (Metadata, error) {
	if len(add) == 0 {
		return base, nil
	}
	out := maps.Clone(base)
	if out == nil {
		out = Metadata{}
	}
	maps.Copy(out, add)
	if len(out) > MaxKeys {
		return nil, &Error{Param: Param, Reason: TooManyKeys,
			Detail: fmt.Sprintf("metadata: %d keys with the %d already stored, at most %d", len(out), len(base), MaxKeys)}
	}
	return out, nil
}

// UnmarshalJSON decodes a JSON object of strings (or null) and applies the
// bounds in the document's order, so the first offending key is the one
// named.
func (m *Metadata) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*m = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return &Error{Param: Param, Reason: NotObject, Detail: "metadata must be a JSON object of strings"}
	}
	out := Metadata{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return &Error{Param: Param, Reason: NotObject, Detail: fmt.Sprintf("metadata: malformed JSON: %v", err)}
		}
		key := norm.NFC.String(t.(string))
		if len(out) == MaxKeys {
			return &Error{Param: Param, Reason: TooManyKeys, Detail: fmt.Sprintf("metadata has more than %d keys", MaxKeys)}
		}
		if err := checkKey(key); err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return &Error{Param: Param, Reason: NotObject, Detail: fmt.Sprintf("metadata: malformed JSON: %v", err)}
		}
		var v string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
			return keyError(key, NotString, "the value must be a JSON string, got %s", kindOf(raw))
		}
		v = norm.NFC.String(v)
		if err := checkValue(key, v); err != nil {
			return err
		}
		if _, dup := out[key]; dup {
			return keyError(key, DuplicateKey, "the key is named twice")
		}
		out[key] = v
	}
	if len(out) == 0 {
		out = nil
	}
	*m = out
	return nil
}

// kindOf names the JSON kind of raw, for an error.
func kindOf(raw json.RawMessage) string {
	switch c := strings.TrimSpace(string(raw)); {
	case c == "":
		return "nothing"
	case c[0] == '{':
		return "an object"
	case c[0] == '[':
		return "an array"
	case c == "null":
		return "null"
	case c == "true" || c == "false":
		return "a boolean"
	default:
		return "a number"
	}
}
