package metadata_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/metadata"
)

// object is a JSON object of n keys k00.. with value v.
func object(n int, v string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%q:%q", fmt.Sprintf("k%02d", i), v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestUnmarshalBounds(t *testing.T) {
	key40, key41 := strings.Repeat("k", 40), strings.Repeat("k", 41)
	val500, val501 := strings.Repeat("v", 500), strings.Repeat("v", 501)
	wide40 := strings.Repeat("é", 40) // 80 bytes, 40 characters
	cases := []struct {
		name   string
		body   string
		keys   int
		reason metadata.Reason
		param  string
	}{
		{"null is none", `null`, 0, "", ""},
		{"empty object is none", `{}`, 0, "", ""},
		{"50 keys", object(50, "v"), 50, "", ""},
		{"51 keys", object(51, "v"), 0, metadata.TooManyKeys, "metadata"},
		{"key of 40 characters", `{"` + key40 + `":"v"}`, 1, "", ""},
		{"key of 41 characters", `{"` + key41 + `":"v"}`, 0, metadata.KeyTooLong, "metadata[" + key41 + "]"},
		{"key of 40 two-byte characters", `{"` + wide40 + `":"v"}`, 1, "", ""},
		{"key of 41 two-byte characters", `{"` + wide40 + `é":"v"}`, 0, metadata.KeyTooLong, "metadata[" + wide40 + "é]"},
		{"empty key", `{"":"v"}`, 0, metadata.EmptyKey, "metadata[]"},
		{"key with [", `{"a[b":"v"}`, 0, metadata.KeyCharacter, "metadata[a[b]"},
		{"key with ]", `{"a]":"v"}`, 0, metadata.KeyCharacter, "metadata[a]]"},
		{"key with a control character", `{"a\u0007":"v"}`, 0, metadata.KeyCharacter, "metadata[a\a]"},
		{"value of 500 characters", `{"k":"` + val500 + `"}`, 1, "", ""},
		{"value of 501 characters", `{"k":"` + val501 + `"}`, 0, metadata.ValueTooLong, "metadata[k]"},
		{"empty value", `{"k":""}`, 1, "", ""},
		{"value with a newline", `{"note":"a\nb"}`, 1, "", ""},
		{"number value", `{"k":1}`, 0, metadata.NotString, "metadata[k]"},
		{"object value", `{"k":{"a":"b"}}`, 0, metadata.NotString, "metadata[k]"},
		{"null value", `{"k":null}`, 0, metadata.NotString, "metadata[k]"},
		{"array", `["a"]`, 0, metadata.NotObject, "metadata"},
		{"string", `"a"`, 0, metadata.NotObject, "metadata"},
		{"duplicate after NFC", "{\"e\u0301\":\"1\",\"\u00e9\":\"2\"}", 0, metadata.DuplicateKey, "metadata[\u00e9]"},
		{"first bad key in document order", `{"b":1,"a":2}`, 0, metadata.NotString, "metadata[b]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m metadata.Metadata
			err := json.Unmarshal([]byte(c.body), &m)
			if c.reason == "" {
				if err != nil || len(m) != c.keys {
					t.Fatalf("got %d keys, %v; want %d keys, nil", len(m), err, c.keys)
				}
				if c.keys == 0 && m != nil {
					t.Fatalf("got %#v, want nil", m)
				}
				return
			}
			var me *metadata.Error
			if !errors.As(err, &me) || !errors.Is(err, metadata.ErrInvalid) {
				t.Fatalf("got %v, want a *metadata.Error", err)
			}
			if me.Reason != c.reason || me.Param != c.param {
				t.Fatalf("got reason %q param %q, want %q %q (%v)", me.Reason, me.Param, c.reason, c.param, err)
			}
		})
	}
}

func TestUnmarshalKeepsNFC(t *testing.T) {
	var m metadata.Metadata
	if err := json.Unmarshal([]byte("{\"cafe\u0301\":\"e\u0301\"}"), &m); err != nil {
		t.Fatal(err)
	}
	if got, ok := m["caf\u00e9"]; !ok || got != "\u00e9" {
		t.Fatalf("got %q, want the NFC key and value", m)
	}
}

func TestValidate(t *testing.T) {
	many := metadata.Metadata{}
	for i := range 51 {
		many[fmt.Sprintf("k%02d", i)] = "v"
	}
	cases := []struct {
		name   string
		m      metadata.Metadata
		reason metadata.Reason
	}{
		{"nil", nil, ""},
		{"at every bound", metadata.Metadata{strings.Repeat("k", 40): strings.Repeat("v", 500)}, ""},
		{"51 keys", many, metadata.TooManyKeys},
		{"empty key", metadata.Metadata{"": "v"}, metadata.EmptyKey},
		{"long key", metadata.Metadata{strings.Repeat("k", 41): "v"}, metadata.KeyTooLong},
		{"long value", metadata.Metadata{"k": strings.Repeat("v", 501)}, metadata.ValueTooLong},
		{"invalid UTF-8", metadata.Metadata{"k": "\xff"}, metadata.InvalidString},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := metadata.Validate(c.m)
			var me *metadata.Error
			switch {
			case c.reason == "" && err != nil:
				t.Fatalf("got %v, want nil", err)
			case c.reason != "" && (!errors.As(err, &me) || me.Reason != c.reason):
				t.Fatalf("got %v, want reason %q", err, c.reason)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	base := metadata.Metadata{"a": "1", "b": "2"}
	got, err := metadata.Merge(base, metadata.Metadata{"b": "3", "c": "4"})
	if err != nil || len(got) != 3 || got["a"] != "1" || got["b"] != "3" || got["c"] != "4" {
		t.Fatalf("got %v, %v; want a=1 b=3 c=4", got, err)
	}
	if base["b"] != "2" {
		t.Fatalf("Merge changed its base: %v", base)
	}
	if got, err := metadata.Merge(nil, nil); got != nil || err != nil {
		t.Fatalf("got %v, %v; want nil, nil", got, err)
	}
	full := metadata.Metadata{}
	for i := range 50 {
		full[fmt.Sprintf("k%02d", i)] = "v"
	}
	if _, err := metadata.Merge(full, metadata.Metadata{"k00": "w"}); err != nil {
		t.Fatalf("replacing a key of 50: %v", err)
	}
	var me *metadata.Error
	if _, err := metadata.Merge(full, metadata.Metadata{"new": "w"}); !errors.As(err, &me) || me.Reason != metadata.TooManyKeys || me.Param != "metadata" {
		t.Fatalf("got %v, want too_many_keys at metadata", err)
	}
}
