package ddblocal

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// tokenCache remembers the ClientRequestTokens of successful transactions
// for the idempotency window.
//
// Every call of an SDK client carries a fresh token, so a busy engine holds
// hundreds of thousands of them. Their map holds no pointers (the token is
// kept inline, the time as nanoseconds), which the garbage collector then
// never scans; the few responses that are not empty (ConsumedCapacity,
// ItemCollectionMetrics) are kept aside.
type tokenCache struct {
	mu      sync.Mutex
	entries map[tokenKey]tokenEntry
	outs    map[tokenKey]map[string]any
	swept   time.Time
}

// tokenKey is a ClientRequestToken (1 to 36 characters) held inline.
type tokenKey struct {
	n uint8
	b [36]byte
}

func keyOfToken(token string) tokenKey {
	var k tokenKey
	k.n = uint8(copy(k.b[:], token))
	return k
}

type tokenEntry struct {
	digest uint64 // txDigest of the items
	at     int64  // UnixNano of the first call
}

// newTokenCache is an empty cache; its maps are made by the first store,
// so that an engine that runs no transaction (a test's) starts sooner.
func newTokenCache() *tokenCache { return &tokenCache{} }

// lookup returns the remembered response of a token. mismatch is true when
// the token was used with a different request within the window.
func (c *tokenCache) lookup(token string, digest uint64, now time.Time, window time.Duration) (out map[string]any, found, mismatch bool) {
	k := keyOfToken(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	en, ok := c.entries[k]
	if !ok || now.Sub(time.Unix(0, en.at)) >= window {
		return nil, false, false
	}
	if en.digest != digest {
		return nil, false, true
	}
	if out = c.outs[k]; out == nil {
		out = map[string]any{}
	}
	return out, true, false
}

// store remembers a token's response; the caller does not modify out
// afterwards.
func (c *tokenCache) store(token string, digest uint64, now time.Time, window time.Duration, out map[string]any) {
	k := keyOfToken(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.swept) > window {
		c.sweep(now, window)
	}
	if c.entries == nil {
		c.entries, c.outs = map[tokenKey]tokenEntry{}, map[tokenKey]map[string]any{}
	}
	c.entries[k] = tokenEntry{digest: digest, at: now.UnixNano()}
	if len(out) > 0 {
		c.outs[k] = out
	} else {
		delete(c.outs, k)
	}
}

// sweep forgets the tokens older than window. The caller holds c.mu.
func (c *tokenCache) sweep(now time.Time, window time.Duration) {
	for k, en := range c.entries {
		if now.Sub(time.Unix(0, en.at)) >= window {
			delete(c.entries, k)
			delete(c.outs, k)
		}
	}
	c.swept = now
}

// With a data directory the tokens are stored too, in the "tokens" bucket,
// in the same bbolt transaction as the transaction's writes: a token is
// remembered exactly when its effects are on disk, and a replay after a
// restart within the window answers as the first call did. Each value is
// the digest and the time of the first call (8 bytes each, big-endian),
// then the response as JSON.
var tokensBucket = []byte("tokens")

// tokenRecord is a token to store with the transaction it made.
type tokenRecord struct {
	token  string
	digest uint64
	at     time.Time
	out    map[string]any
}

func encodeToken(r *tokenRecord) ([]byte, error) {
	buf := binary.BigEndian.AppendUint64(nil, r.digest)
	buf = binary.BigEndian.AppendUint64(buf, uint64(r.at.UnixNano()))
	if len(r.out) == 0 {
		return buf, nil
	}
	raw, err := json.Marshal(r.out)
	if err != nil {
		return nil, err
	}
	return append(buf, raw...), nil
}

func decodeToken(token string, v []byte) (*tokenRecord, error) {
	if len(v) < 16 {
		return nil, fmt.Errorf("token %q is corrupt", token)
	}
	r := &tokenRecord{token: token, digest: binary.BigEndian.Uint64(v), at: time.Unix(0, int64(binary.BigEndian.Uint64(v[8:])))}
	if len(v) > 16 {
		if err := json.Unmarshal(v[16:], &r.out); err != nil {
			return nil, fmt.Errorf("token %q: %w", token, err)
		}
	}
	return r, nil
}

// saveToken stores r in tx and, once per window, deletes the stored tokens
// that have expired. It runs inside bbolt's single writer.
func (e *Engine) saveToken(tx *bolt.Tx, r *tokenRecord, now time.Time) error {
	b, err := tx.CreateBucketIfNotExists(tokensBucket)
	if err != nil {
		return err
	}
	window := e.opts.IdempotencyWindow
	if now.Sub(e.tokensSwept) > window {
		cur := b.Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if len(v) < 16 || now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(v[8:])))) >= window {
				if err := cur.Delete(); err != nil {
					return err
				}
			}
		}
		e.tokensSwept = now
	}
	raw, err := encodeToken(r)
	if err != nil {
		return err
	}
	return b.Put([]byte(r.token), raw)
}

// loadTokens restores the stored tokens still inside the window at now.
func (e *Engine) loadTokens(tx *bolt.Tx, now time.Time) error {
	b := tx.Bucket(tokensBucket)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		r, err := decodeToken(string(k), v)
		if err != nil {
			return err
		}
		if now.Sub(r.at) < e.opts.IdempotencyWindow {
			e.tokens.store(r.token, r.digest, r.at, e.opts.IdempotencyWindow, r.out)
		}
		return nil
	})
}
