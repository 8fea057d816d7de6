package ddblocal

import (
	"crypto/sha256"
	"sync"
	"time"
)

// tokenCache remembers the ClientRequestTokens of successful transactions
// for the idempotency window.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]tokenEntry
	swept   time.Time
}

type tokenEntry struct {
	digest [sha256.Size]byte
	at     time.Time
	out    map[string]any
}

func newTokenCache() *tokenCache { return &tokenCache{entries: map[string]tokenEntry{}} }

// lookup returns the remembered response of a token. mismatch is true when
// the token was used with a different request within the window.
func (c *tokenCache) lookup(token string, digest [sha256.Size]byte, now time.Time, window time.Duration) (out map[string]any, found, mismatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	en, ok := c.entries[token]
	if !ok || now.Sub(en.at) >= window {
		return nil, false, false
	}
	if en.digest != digest {
		return nil, false, true
	}
	return en.out, true, false
}

func (c *tokenCache) store(token string, digest [sha256.Size]byte, now time.Time, window time.Duration, out map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.swept) > window {
		for k, en := range c.entries {
			if now.Sub(en.at) >= window {
				delete(c.entries, k)
			}
		}
		c.swept = now
	}
	c.entries[token] = tokenEntry{digest: digest, at: now, out: out}
}
