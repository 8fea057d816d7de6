package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxLength bounds an encoded cursor; longer input is rejected unread.
const MaxLength = 2048

// ErrInvalid is returned for any cursor that is malformed, forged, or from a
// different query.
var ErrInvalid = errors.New("cursor: invalid cursor")

// Codec signs and verifies cursors with one secret.
type Codec struct {
	secret []byte
}

// New returns a codec; secret should be at least 32 random bytes shared by
// every instance that serves the same API.
func New(secret []byte) *Codec {
	return &Codec{secret: append([]byte(nil), secret...)}
}

func (c *Codec) mac(binding string, payload []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte(binding))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

// Encode returns the cursor for a LastEvaluatedKey, or "" when key is empty
// (the last page).
func (c *Codec) Encode(binding string, key map[string]types.AttributeValue) (string, error) {
	if len(key) == 0 {
		return "", nil
	}
	plain := make(map[string]string, len(key))
	for name, v := range key {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("cursor: key attribute %s is %T, want a string", name, v)
		}
		plain[name] = s.Value
	}
	payload, err := json.Marshal(plain)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(c.mac(binding, payload)), nil
}

// Decode verifies a cursor against the query's binding and returns the
// ExclusiveStartKey. An empty cursor means the first page: nil, nil.
func (c *Codec) Decode(binding, cursor string) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	if len(cursor) > MaxLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxLength)
	}
	p, sig, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, ErrInvalid
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, ErrInvalid
	}
	if !hmac.Equal(mac, c.mac(binding, payload)) {
		return nil, fmt.Errorf("%w: signature does not match this query", ErrInvalid)
	}
	var plain map[string]string
	if err := json.Unmarshal(payload, &plain); err != nil || len(plain) == 0 {
		return nil, ErrInvalid
	}
	key := make(map[string]types.AttributeValue, len(plain))
	for name, s := range plain {
		key[name] = &types.AttributeValueMemberS{Value: s}
	}
	return key, nil
}
