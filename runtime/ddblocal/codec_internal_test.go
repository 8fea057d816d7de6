package ddblocal

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// requestItem is the JSON of an item of n string attributes a0, a1, ...
func requestItem(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"a%d":{"S":"v%d"}`, i, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestRequestItemReusesReleasedRoom checks that a request's item (a
// PutItem's Item, a transaction's Put) is decoded into the room of an item
// released before, whatever pool releaseItem filed it in by its size: a
// PutItem of a few attributes released into the small items' pool must
// find its map there, not allocate a new one per request.
func TestRequestItemReusesReleasedRoom(t *testing.T) {
	if poisonReleased {
		t.Skip("built with -tags ddblocal_poison: released maps are poisoned, never reused")
	}
	cases := []struct {
		name           string
		released, next int
	}{
		{"few after few", 6, 6},
		{"few after a whole item", smallItem + 4, 6},
		{"whole item after a whole item", smallItem + 4, smallItem + 4},
		{"at the small bound", smallItem, smallItem},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A pool may drop what it holds (a collection, the race
			// detector's random drops): one reuse in a few tries proves
			// the path, none in all of them that there is none.
			const tries = 50
			for range tries {
				old, ok := (&jsonReader{src: []byte(requestItem(c.released))}).reusedItem()
				if !ok || len(old) != c.released {
					t.Fatalf("decoding %d attributes: got %d, ok %v", c.released, len(old), ok)
				}
				room := reflect.ValueOf(old).Pointer()
				releaseItem(old)
				it, ok := (&jsonReader{src: []byte(requestItem(c.next))}).reusedItem()
				if !ok || len(it) != c.next {
					t.Fatalf("decoding %d attributes: got %d, ok %v", c.next, len(it), ok)
				}
				if got := it["a0"]; got.T != attr.S || got.S != "v0" {
					t.Fatalf("a0 = %#v, want the string v0", got)
				}
				reused := reflect.ValueOf(it).Pointer() == room
				releaseItem(it)
				if reused {
					return
				}
			}
			t.Errorf("an item of %d attributes released %d times: the next request item of %d never reused its map", c.released, tries, c.next)
		})
	}
}
