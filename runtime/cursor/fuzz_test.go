package cursor_test

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
)

// FuzzDecode: no cursor panics; every cursor except the one the codec
// itself issued for this binding is rejected with ErrInvalid, and the
// issued one decodes back to its key. Seed corpus: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	codec := cursor.New([]byte("fuzz secret of at least thirty-two bytes"))
	const binding = "ledger|USER#alice"
	f.Fuzz(func(t *testing.T, in string, pk, sk string) {
		key, err := codec.Decode(binding, in)
		issued, encErr := codec.Encode(binding, map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}})
		switch {
		case in == "":
			if err != nil || key != nil {
				t.Fatalf("Decode(\"\") = %v, %v; want the first page", key, err)
			}
		case err != nil:
			if !errors.Is(err, cursor.ErrInvalid) {
				t.Fatalf("Decode(%q) error %v does not wrap ErrInvalid", in, err)
			}
		default:
			// An accepted cursor must be exactly one the codec issues for
			// the key it decodes to: nothing else verifies.
			if re, err := codec.Encode(binding, key); err != nil || re != in {
				t.Fatalf("Decode(%q) accepted a cursor the codec would not issue (it issues %q, %v)", in, re, err)
			}
		}
		// DynamoDB strings are UTF-8, so keys that are not never reach Encode.
		if encErr != nil || len(issued) > cursor.MaxLength || !utf8.ValidString(pk) || !utf8.ValidString(sk) {
			return
		}
		back, err := codec.Decode(binding, issued)
		if err != nil {
			t.Fatalf("Decode(Encode(%q, %q)) = %v", pk, sk, err)
		}
		if s, _ := back["PK"].(*types.AttributeValueMemberS); s == nil || s.Value != pk {
			t.Fatalf("round trip PK = %v, want %q", back["PK"], pk)
		}
		if s, _ := back["SK"].(*types.AttributeValueMemberS); s == nil || s.Value != sk {
			t.Fatalf("round trip SK = %v, want %q", back["SK"], sk)
		}
		if _, err := codec.Decode("ledger|USER#mallory", issued); !errors.Is(err, cursor.ErrInvalid) {
			t.Fatalf("a cursor of another binding decoded: %v", err)
		}
	})
}
