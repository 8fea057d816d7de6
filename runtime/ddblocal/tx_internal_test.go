package ddblocal

import (
	"fmt"
	"strings"
	"sync"
	"testing"
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
