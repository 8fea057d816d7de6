package ddblocal

import "github.com/oncetable/oncetable/runtime/ddblocal/attr"

// Pooled item maps (releaseItem) are owned by whoever holds them until they
// are released; after that, nothing may read them. Built with the tag
// ddblocal_poison (make test does), the engine enforces that: a released
// map is not pooled but poisoned, left holding only releasedAttr, and the
// places that read items (response encoding, storing, index maintenance,
// condition evaluation) panic on a poisoned one, as does a second release.
// The panic is not turned into an InternalServerError: it ends the test.

// releasedAttr is the only attribute of a poisoned item map. No request
// can name it: attribute names are valid UTF-8 and DynamoDB's JSON gives
// no way to send a NUL-led name the engine would keep.
const releasedAttr = "\x00ddblocal: item map read after releaseItem"

// errReleasedItem is the panic value of a read of a poisoned map.
type errReleasedItem struct{ what string }

func (e errReleasedItem) Error() string {
	return "ddblocal: " + e.what + " of an item map after releaseItem (poison mode): its owner gave it up and it is reused"
}

// poisonItem marks it released in poison mode.
func poisonItem(it attr.Item) {
	if _, twice := it[releasedAttr]; twice {
		panic(errReleasedItem{"second release"})
	}
	clear(it)
	it[releasedAttr] = attr.Value{T: attr.NULL}
}

// mustBeLive panics, in poison mode, when it has been released. Without
// the tag it compiles to nothing.
func mustBeLive(it attr.Item, what string) {
	if !poisonReleased {
		return
	}
	if _, released := it[releasedAttr]; released {
		panic(errReleasedItem{what})
	}
}
