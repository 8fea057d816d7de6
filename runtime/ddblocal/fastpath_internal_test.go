package ddblocal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"
)

func TestItemSetFindsDuplicates(t *testing.T) {
	a, b := &table{name: "a"}, &table{name: "b"}
	for _, n := range []int{2, itemSetLinear, itemSetLinear + 1, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := newItemSet(n)
			for i := range n / 2 {
				key := []byte(fmt.Sprintf("k%d", i))
				if !s.add(a, key) || !s.add(b, key) {
					t.Fatalf("item %d reported as a duplicate on first add", i)
				}
			}
			last := []byte(fmt.Sprintf("k%d", n/2-1))
			if s.add(a, last) || s.add(b, []byte("k0")) {
				t.Fatal("a repeated item was not reported")
			}
			if !s.add(a, []byte("k0\x00")) {
				t.Fatal("a longer key was taken for a shorter one")
			}
		})
	}
}

func TestInternSharesRepeatedStrings(t *testing.T) {
	first := intern([]byte("SET cnt = cnt + :one"))
	again := intern([]byte("SET cnt = cnt + :one"))
	if first != again || unsafe.StringData(first) != unsafe.StringData(again) {
		t.Fatal("a repeated string was allocated again")
	}
	long := strings.Repeat("x", internMax+1)
	if got := intern([]byte(long)); got != long || unsafe.StringData(got) == unsafe.StringData(intern([]byte(long))) {
		t.Fatal("a string over internMax was cached")
	}
	// Slots are shared by every goroutine; each caller still gets its own
	// bytes back, whatever the others store.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				want := fmt.Sprintf("attr-%d-%d", g, i%300)
				if got := intern([]byte(want)); got != want {
					t.Errorf("intern(%q) = %q", want, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestTokenCacheWindow(t *testing.T) {
	c := newTokenCache()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const window = 10 * time.Minute
	d1, d2 := uint64(1), uint64(2)
	c.store("tok-empty", d1, t0, window, map[string]any{})
	c.store("tok-capacity", d1, t0, window, map[string]any{"ConsumedCapacity": "x"})
	for _, tc := range []struct {
		name, token          string
		digest               uint64
		at                   time.Time
		found, mismatch      bool
		wantConsumedCapacity bool
	}{
		{"replay", "tok-empty", d1, t0.Add(time.Minute), true, false, false},
		{"replay keeps the response", "tok-capacity", d1, t0.Add(time.Minute), true, false, true},
		{"other parameters", "tok-empty", d2, t0.Add(time.Minute), false, true, false},
		{"unknown token", "tok-none", d1, t0, false, false, false},
		{"window over", "tok-capacity", d1, t0.Add(window), false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, found, mismatch := c.lookup(tc.token, tc.digest, tc.at, window)
			if found != tc.found || mismatch != tc.mismatch {
				t.Fatalf("found, mismatch = %v, %v; want %v, %v", found, mismatch, tc.found, tc.mismatch)
			}
			if _, ok := out["ConsumedCapacity"]; ok != tc.wantConsumedCapacity {
				t.Fatalf("response %v", out)
			}
		})
	}
	// A store past the window sweeps the old tokens out.
	c.store("tok-new", d2, t0.Add(window+time.Second), window, map[string]any{})
	if len(c.entries) != 1 || len(c.outs) != 0 {
		t.Fatalf("after the sweep: %d tokens, %d responses; want 1, 0", len(c.entries), len(c.outs))
	}
}

// skipPlain stops at or before the first byte the string scanner must see,
// never after it.
func TestSkipPlainStopsInTime(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcXYZ09 :#{}[],\"\\\x00\x1f\x7f\x80\xc3\xa9\xff")
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = byte('a' + r.IntN(26))
			}
		}
		from := 0
		if len(b) > 0 {
			from = r.IntN(len(b))
		}
		first := len(b)
		for i := from; i < len(b); i++ {
			if special(b[i]) {
				first = i
				break
			}
		}
		if got := skipPlain(b, from); got < from || got > first {
			t.Fatalf("skipPlain(%q, %d) = %d; the first special byte is at %d", b, from, got, first)
		}
	}
}

// encodeString's word-at-a-time prefix never skips a byte JSON escapes:
// whatever the string, encoding/json reads back the same string.
func TestEncodeStringRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("abcXYZ09 :#{}[],\"\\\x00\x01\n\r\t\x1f\x7f\xc3\xa9")
	for range 20000 {
		b := randomText(r, alphabet, 5)
		if !utf8.Valid(b) {
			continue
		}
		var got string
		if err := json.Unmarshal(encodeString(nil, string(b)), &got); err != nil || got != string(b) {
			t.Fatalf("encodeString(%q) read back as %q (%v)", b, got, err)
		}
		if n := skipSafe(string(b)); n%8 != 0 || bytes.ContainsAny(b[:n], "\"\\\x00\x01\n\r\t\x1f") {
			t.Fatalf("skipSafe(%q) = %d skips a byte to escape", b, n)
		}
	}
}

// randomText is up to 39 random bytes: lower-case letters, with on average
// one byte in every taken from special instead.
func randomText(r *rand.Rand, special []byte, every int) []byte {
	b := make([]byte, r.IntN(40))
	for i := range b {
		if r.IntN(every) == 0 {
			b[i] = special[r.IntN(len(special))]
		} else {
			b[i] = byte('a' + r.IntN(26))
		}
	}
	return b
}

// TestStoredStringsEncodeAsEncodeString checks the transcoder's
// word-at-a-time check (noEscapes) against encodeString for strings of
// every length up to 40 at the end of a stored row and followed by other
// bytes, escapes included there, so that the masked bytes past a string
// never decide.
func TestStoredStringsEncodeAsEncodeString(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("abc09 :#\"\\\x00\x01\n\x1f\x7f\xc3\xa9")
	for range 20000 {
		b := randomText(r, alphabet, 6)
		for _, tail := range []string{"", "\"", "\\\x00\"\n\x01abc", "abcdefghij"} {
			src := binary.AppendUvarint(nil, uint64(len(b)))
			src = append(append(src, b...), tail...)
			d := rawDecoder{src: src, ok: true}
			got := d.jsonString(nil)
			if want := encodeString(nil, string(b)); !bytes.Equal(got, want) || !d.ok {
				t.Fatalf("jsonString(%q followed by %q) = %s, want %s", b, tail, got, want)
			}
		}
	}
}
