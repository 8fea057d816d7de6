package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
)

// MaxKeyLength is the longest Idempotency-Key accepted, in bytes.
const MaxKeyLength = 255

// DefaultExpiry is how long a record blocks its key when no expiry is configured.
const DefaultExpiry = 24 * time.Hour

// EntityType is the EntityType attribute of a record.
const EntityType = "Idempotency"

// Sentinel errors.
var (
	ErrKeyMissing = errors.New("idempotency: Idempotency-Key header is required")
	ErrKeyInvalid = errors.New("idempotency: invalid Idempotency-Key")
	// ErrKeyReused means the key was used before with a different request.
	ErrKeyReused = errors.New("idempotency: key reused with a different request")
)

// ValidateKey checks a header value: present, at most [MaxKeyLength] bytes,
// printable ASCII only.
func ValidateKey(key string) error {
	if key == "" {
		return ErrKeyMissing
	}
	if len(key) > MaxKeyLength {
		return fmt.Errorf("%w: longer than %d characters", ErrKeyInvalid, MaxKeyLength)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("%w: non-printable character at position %d", ErrKeyInvalid, i)
		}
	}
	return nil
}

// Scope is what a key is unique within: the caller's identity (IAM principal
// or JWT subject) and the operation ("charge", "settle", ...).
type Scope struct {
	Caller    string
	Operation string
}

// Hash is the hex SHA-256 of scope and key; it names the record and is what
// logs may show instead of the key.
func (s Scope) Hash(key string) string {
	h := sha256.New()
	for _, part := range []string{"oncetable/idempotency/v1", s.Caller, s.Operation, key} {
		io.WriteString(h, strconv.Itoa(len(part)))
		io.WriteString(h, ":")
		io.WriteString(h, part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Canonical re-encodes a JSON body with object keys sorted and insignificant
// white space removed, keeping number literals as written. An empty body is
// canonically empty.
func Canonical(body []byte) ([]byte, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Fingerprint is the hex SHA-256 of method, concrete route (path with its
// ids) and canonical body.
func Fingerprint(method, route string, body []byte) (string, error) {
	c, err := Canonical(body)
	if err != nil {
		return "", fmt.Errorf("idempotency: fingerprint: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", method, route)
	h.Write(c)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ClientRequestToken derives the TransactWriteItems token from the scoped key
// hash, the fingerprint and the invocation's own generated values (ids,
// attempt). An SDK retry resends the same token, so DynamoDB deduplicates it
// for ten minutes; a different invocation with the same key has a different
// token and meets the record's condition instead, which returns the stored
// response. DynamoDB allows at most 36 characters.
func ClientRequestToken(scopeHash, fingerprint string, invocation ...string) string {
	h := sha256.New()
	io.WriteString(h, scopeHash)
	io.WriteString(h, "\x00")
	io.WriteString(h, fingerprint)
	for _, s := range invocation {
		io.WriteString(h, "\x00")
		io.WriteString(h, s)
	}
	return hex.EncodeToString(h.Sum(nil))[:36]
}

// Record is the stored outcome of one idempotent request.
type Record struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	EntityType  string `dynamodbav:"EntityType"`
	Operation   string `dynamodbav:"operation"`
	Fingerprint string `dynamodbav:"fingerprint"`
	Status      int    `dynamodbav:"responseStatus"`
	Body        string `dynamodbav:"responseBody"`
	CreatedAt   string `dynamodbav:"createdAt"`
	// ExpiresAt is epoch seconds, the table's TTL attribute.
	ExpiresAt int64 `dynamodbav:"expiresAt"`
	// State is StatePending while an external-mode call holds the key, and
	// empty once a response is stored.
	State string `dynamodbav:"state,omitempty"`
	// LockedUntil is epoch seconds: a pending record stops blocking its key
	// then (external mode only).
	LockedUntil int64 `dynamodbav:"inProgressUntil,omitempty"`
	// Owner is the nonce of the invocation holding a pending record.
	Owner string `dynamodbav:"lockOwner,omitempty"`
}

// New builds the record for a request that produced status and body.
func New(key keys.Key, scope Scope, fingerprint string, status int, body []byte, now time.Time, expiry time.Duration) Record {
	if expiry <= 0 {
		expiry = DefaultExpiry
	}
	return Record{
		PK:          key.PK,
		SK:          key.SK,
		EntityType:  EntityType,
		Operation:   scope.Operation,
		Fingerprint: fingerprint,
		Status:      status,
		Body:        string(body),
		CreatedAt:   keys.Timestamp(now),
		ExpiresAt:   now.Add(expiry).Unix(),
	}
}

// Expired reports whether the record no longer blocks its key at now.
func (r Record) Expired(now time.Time) bool { return r.ExpiresAt < now.Unix() }

// Condition is the write condition of a record under [DefaultAttributes]:
// absent or expired at now.
func Condition(now time.Time) expression.ConditionBuilder { return DefaultAttributes.condition(now) }

// Put is the transaction item that writes r under [DefaultAttributes] if
// its key is free at now, and returns the blocking record on failure.
func (r Record) Put(table string, now time.Time) (types.TransactWriteItem, error) {
	p, err := DefaultAttributes.put(table, r, now)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: p}, nil
}

// FromItem decodes a stored record under [DefaultAttributes], such as the
// ALL_OLD item of a cancellation reason.
func FromItem(item map[string]types.AttributeValue) (Record, error) {
	return DefaultAttributes.decode(item)
}

// Replay decides what a stored, unexpired record means for a request with
// fingerprint: nil (replay its response) or [ErrKeyReused].
func (r Record) Replay(fingerprint string) error {
	if r.Fingerprint != fingerprint {
		return ErrKeyReused
	}
	return nil
}
