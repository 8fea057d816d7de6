package idempotency

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// DefaultExpiry is how long a record blocks its key when no expiry is configured.
const DefaultExpiry = 24 * time.Hour

// EntityType is the value of a record's EntityType attribute.
const EntityType = "Idempotency"

// Sentinel errors.
var (
	// ErrKeyMissing is an empty idempotency key. Any other key is accepted:
	// it is hashed, never stored (HTTP's rules for the Idempotency-Key
	// header are idemhttp's).
	ErrKeyMissing = errors.New("idempotency: an idempotency key is required")
	// ErrKeyReused means the key was used before with a different request.
	ErrKeyReused = errors.New("idempotency: key reused with a different request")
	// ErrRequestInvalid is a [Request] without a scope (caller and
	// operation) or without a fingerprint: such a key would collide across
	// callers or never detect a changed payload, so nothing is written.
	ErrRequestInvalid = errors.New("idempotency: incomplete request")
)

// check refuses a request the library cannot keep apart from others.
func (r Request) check() error {
	switch {
	case r.Key == "":
		return ErrKeyMissing
	case r.Scope.Caller == "":
		return fmt.Errorf("%w: Scope.Caller is empty (set it to the authenticated caller, or a constant for a single-tenant service)", ErrRequestInvalid)
	case r.Scope.Operation == "":
		return fmt.Errorf("%w: Scope.Operation is empty", ErrRequestInvalid)
	case r.Fingerprint == "":
		return fmt.Errorf("%w: Fingerprint is empty (use Fingerprint or FingerprintOf)", ErrRequestInvalid)
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

// canonical re-encodes a JSON body with object keys sorted and insignificant
// white space removed, keeping number literals as written. An empty body is
// canonically empty.
func canonical(body []byte) ([]byte, error) {
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
	c, err := canonical(body)
	if err != nil {
		return "", fmt.Errorf("idempotency: fingerprint: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", method, route)
	h.Write(c)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FingerprintOf is the hex SHA-256 of any bytes that identify a request's
// content (an encoded input, a message body), for callers outside HTTP.
func FingerprintOf(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// clientRequestToken derives the TransactWriteItems token from the scoped key
// hash, the fingerprint and the invocation's own generated values (ids,
// attempt). An SDK retry resends the same token, so DynamoDB deduplicates it
// for ten minutes; a different invocation with the same key has a different
// token and meets the record's condition instead, which returns the stored
// response. DynamoDB allows at most 36 characters.
func clientRequestToken(scopeHash, fingerprint string, invocation ...string) string {
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

// Record is a stored record as [Table.Decode] reads it: the outcome of one
// idempotent request, or a pending external-mode call.
type Record struct {
	PK, SK      string
	Operation   string
	Fingerprint string
	Status      int
	// Header holds the stored response headers (those the adapter kept).
	Header http.Header
	Body   []byte
	// CreatedAt is when the record was first written (RFC 3339, UTC).
	CreatedAt string
	// ExpiresAt is epoch seconds, the table's TTL attribute.
	ExpiresAt int64
	// State is "pending" while an external-mode call holds the key, and
	// empty once a response is stored.
	State string
	// LockedUntil is epoch seconds: a pending record stops blocking its key
	// then (external mode only).
	LockedUntil int64
	// Owner is the nonce of the invocation holding a pending record.
	Owner string
}

// Expired reports whether the record no longer blocks its key at now.
func (r Record) Expired(now time.Time) bool { return r.ExpiresAt <= now.Unix() }

// Pending reports whether an external-mode call still holds the key.
func (r Record) Pending() bool { return r.State == statePending }

// newRecord builds the record for a request that produced resp.
func newRecord(key itemKey, scope Scope, fingerprint string, resp Response, now time.Time, expiry time.Duration) Record {
	return Record{PK: key.PK, SK: key.SK, Operation: scope.Operation, Fingerprint: fingerprint,
		Status: resp.Status, Header: resp.Header, Body: resp.Body,
		CreatedAt: timestamp(now), ExpiresAt: now.Add(expiry).Unix()}
}

// itemKey is the primary key of a record's item.
type itemKey struct {
	PK string
	SK string
}

// timestamp formats t as the createdAt attribute: UTC, fixed width, so byte
// order is time order.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// newID returns a fresh random id with the given prefix, such as "own_3f…"
// (a pending record's owner) or "inv_…" (an invocation): 128 random bits in
// Crockford base32, 30 characters with a 3-letter prefix.
func newID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("idempotency: crypto/rand failed: " + err.Error())
	}
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}
