package idemhttp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

// TestValidateKey: HTTP's rule for the header (1 to 255 printable ASCII
// characters) lives here, with messages naming the rule; the core accepts
// any non-empty key (TestCoreAcceptsAnyNonEmptyKey in idemqueue).
func TestValidateKey(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want error
		msg  string
	}{
		{"uuid", "8e03978e-40d5-43e8-bc93-6894a57f9324", nil, ""},
		{"printable punctuation", "order 42: retry #1 (~)", nil, ""},
		{"max length", strings.Repeat("k", 255), nil, ""},
		{"missing", "", idempotency.ErrKeyMissing, "required"},
		{"too long", strings.Repeat("k", 256), idemhttp.ErrKeyInvalid, "256 bytes, longer than the header's limit of 255"},
		{"tab", "a\tb", idemhttp.ErrKeyInvalid, "byte 0x09 at position 1 is not printable ASCII, which the header requires"},
		{"newline", "a\nb", idemhttp.ErrKeyInvalid, "not printable ASCII"},
		{"non-ascii", "clé", idemhttp.ErrKeyInvalid, "byte 0xc3 at position 2"},
		{"del", "a\x7f", idemhttp.ErrKeyInvalid, "not printable ASCII"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := idemhttp.ValidateKey(tt.key)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ValidateKey(%q) = %v, want %v", tt.key, err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ValidateKey(%q) = %q, want it to say %q", tt.key, err, tt.msg)
			}
		})
	}
}
