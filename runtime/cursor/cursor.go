package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxLength bounds an encoded cursor; longer input is rejected unread.
const MaxLength = 2048

// ErrInvalid is returned for any cursor that is malformed, forged, or from a
// different query.
var ErrInvalid = errors.New("cursor: invalid cursor")

// Keys are the secrets of a codec: Signing signs new cursors, and a cursor
// verifies if any of Verifying (which should include Signing) signed it.
// During a rotation Verifying holds the current and the previous secret,
// so cursors issued before the rotation stay valid.
type Keys struct {
	Signing   []byte
	Verifying [][]byte
}

// KeySource supplies the keys at each Encode and Decode; a cache of a
// rotating secret implements it. An error means no key is known at all.
type KeySource interface {
	CursorKeys() (Keys, error)
}

// Codec signs and verifies cursors.
type Codec struct {
	static Keys
	source atomic.Pointer[KeySource]
}

// New returns a codec with one fixed secret; it should be at least 32
// random bytes shared by every instance that serves the same API.
func New(secret []byte) *Codec {
	s := append([]byte(nil), secret...)
	return &Codec{static: Keys{Signing: s, Verifying: [][]byte{s}}}
}

// UseKeySource makes the codec take its keys from src from now on, in
// place of the secret it was built with. It is safe to call while the
// codec is in use.
func (c *Codec) UseKeySource(src KeySource) {
	c.source.Store(&src)
}

func (c *Codec) keys() (Keys, error) {
	if p := c.source.Load(); p != nil {
		k, err := (*p).CursorKeys()
		if err != nil {
			return Keys{}, fmt.Errorf("cursor: keys: %w", err)
		}
		if len(k.Signing) == 0 {
			return Keys{}, errors.New("cursor: keys: the key source has no signing key")
		}
		return k, nil
	}
	return c.static, nil
}

func mac(secret []byte, binding string, payload []byte) []byte {
	m := hmac.New(sha256.New, secret)
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
	keys, err := c.keys()
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(mac(keys.Signing, binding, payload)), nil
}

// Decode verifies a cursor against the query's binding and returns the
// ExclusiveStartKey. An empty cursor means the first page: nil, nil. A
// cursor signed by any of the verifying keys is accepted.
func (c *Codec) Decode(binding, cursor string) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	if len(cursor) > MaxLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxLength)
	}
	p, sigText, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, ErrInvalid
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(p)
	sig, err2 := enc.DecodeString(sigText)
	if err1 != nil || err2 != nil {
		return nil, ErrInvalid
	}
	keys, err := c.keys()
	if err != nil {
		return nil, err
	}
	if !verifies(keys.Verifying, sig, binding, payload) {
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

func verifies(secrets [][]byte, sig []byte, binding string, payload []byte) bool {
	for _, secret := range secrets {
		if hmac.Equal(sig, mac(secret, binding, payload)) {
			return true
		}
	}
	return false
}
