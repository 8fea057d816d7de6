package cursor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestRoundTripAndTamper(t *testing.T) {
	c := cursor.New([]byte("0123456789abcdef0123456789abcdef"))
	key := map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("LEDGER#2026#e1")}
	tok, err := c.Encode("ledger|USER#u1", key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Decode("ledger|USER#u1", tok)
	if err != nil {
		t.Fatal(err)
	}
	if got["SK"].(*types.AttributeValueMemberS).Value != "LEDGER#2026#e1" || len(got) != 2 {
		t.Errorf("Decode = %v, want the original key", got)
	}

	flip := []byte(tok)
	flip[3] ^= 1
	other := cursor.New([]byte("another secret of thirty-two byt"))
	otherTok, _ := other.Encode("ledger|USER#u1", key)
	tests := []struct {
		name, binding, cursor string
	}{
		{"other query", "ledger|USER#u2", tok},
		{"edited payload", "ledger|USER#u1", string(flip)},
		{"other secret", "ledger|USER#u1", otherTok},
		{"no signature", "ledger|USER#u1", strings.Split(tok, ".")[0]},
		{"garbage", "ledger|USER#u1", "!!!.???"},
		{"too long", "ledger|USER#u1", strings.Repeat("a", 3000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Decode(tt.binding, tt.cursor); !errors.Is(err, cursor.ErrInvalid) {
				t.Errorf("Decode = %v, want ErrInvalid", err)
			}
		})
	}
	if k, err := c.Decode("x", ""); k != nil || err != nil {
		t.Errorf("empty cursor = %v, %v; want nil, nil", k, err)
	}
	if tok, err := c.Encode("x", nil); tok != "" || err != nil {
		t.Errorf("Encode(nil) = %q, %v", tok, err)
	}
	if _, err := c.Encode("x", map[string]types.AttributeValue{"N": &types.AttributeValueMemberN{Value: "1"}}); err == nil {
		t.Error("Encode of a number key: want error")
	}
}

// keySource is a fixed cursor.KeySource.
type keySource struct {
	keys cursor.Keys
	err  error
}

func (k keySource) CursorKeys() (cursor.Keys, error) { return k.keys, k.err }

func TestKeySourceRotation(t *testing.T) {
	old := []byte("the secret before the rotation..")
	cur := []byte("the secret after the rotation...")
	stranger := []byte("a secret nobody rotated in......")
	key := map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("LEDGER#1")}
	issued := func(secret []byte) string {
		tok, err := cursor.New(secret).Encode("b", key)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	rotated := cursor.Keys{Signing: cur, Verifying: [][]byte{cur, old}}
	tests := []struct {
		name    string
		keys    cursor.Keys
		cursor  string
		invalid bool
	}{
		{"signed with the current secret", rotated, issued(cur), false},
		{"signed with the previous secret", rotated, issued(old), false},
		{"signed with a secret of neither version", rotated, issued(stranger), true},
		{"previous secret after the next rotation", cursor.Keys{Signing: stranger, Verifying: [][]byte{stranger, cur}}, issued(old), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cursor.New([]byte("the static secret is replaced..."))
			c.UseKeySource(keySource{keys: tt.keys})
			_, err := c.Decode("b", tt.cursor)
			if got := errors.Is(err, cursor.ErrInvalid); got != tt.invalid {
				t.Errorf("Decode error %v, want invalid = %v", err, tt.invalid)
			}
		})
	}

	t.Run("signs with the signing key", func(t *testing.T) {
		c := cursor.New(old)
		c.UseKeySource(keySource{keys: rotated})
		tok, err := c.Encode("b", key)
		if err != nil {
			t.Fatal(err)
		}
		if tok != issued(cur) {
			t.Errorf("Encode = %q, want the cursor signed with the current secret %q", tok, issued(cur))
		}
	})
	t.Run("source failure is not an invalid cursor", func(t *testing.T) {
		c := cursor.New(old)
		down := errors.New("secrets manager unreachable")
		c.UseKeySource(keySource{err: down})
		if _, err := c.Decode("b", issued(old)); !errors.Is(err, down) || errors.Is(err, cursor.ErrInvalid) {
			t.Errorf("Decode error %v, want the source's error, not ErrInvalid", err)
		}
		if _, err := c.Encode("b", key); !errors.Is(err, down) {
			t.Errorf("Encode error %v, want the source's error", err)
		}
	})
}
