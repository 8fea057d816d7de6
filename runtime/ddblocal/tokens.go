package ddblocal

import (
	"sync"
	"time"
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
