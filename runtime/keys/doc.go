// Package keys builds the primary and index keys of every oncetable entity
// and validates the ids that go into them.
//
// Every id that reaches a key passes [ValidateID]: non-empty, at most 128
// bytes of UTF-8 in NFC, and free of the '#' delimiter, '/', control,
// invisible, bidirectional control, unassigned and private-use characters.
// So no id can forge a key in another entity's key space ("u1#LEDGER#..."
// is rejected rather than stored), and two ids that read alike are the
// same bytes. [CanonicalID] normalises a client's id to NFC first; product
// ids are ASCII ([ValidateProductID]), so that no line can name a
// lookalike of a catalogue product.
//
// Key layout (PK / SK):
//
//	USER#<userId>   PROFILE                         user profile, balance, orderCount
//	USER#<userId>   PROFILE#ADDR#<addressId>        address
//	USER#<userId>   ORDER#<createdAt>#<orderId>     order summary (user's orders)
//	USER#<userId>   LEDGER#<at>#<entryId>           ledger entry
//	ORDER#<orderId> ORDER#<orderId>                 order
//	ORDER#<orderId> ITEM#<line>                     order item
//	ORDER#<orderId> PAYMENT#<paymentId>             payment
//	IDEM#<sha256>   IDEM#<sha256>                   idempotency record (runtime/idempotency; its own partition)
//	PROD#<productId> PROD#<productId>               product
//
// The prefixes are a value, [Layout], given to the store and the flows at
// construction; the package functions build keys with [Default], the
// prefixes above. A layout of its own must keep the prefixes' byte order
// within a partition, which the store's range reads rely on: in a user's
// partition address > profile > order summary > ledger and records; in an
// order's partition record < item < order < payment.
//
// Timestamps in keys are UTC RFC 3339 with nine fractional digits, so their
// byte order is their time order. The package is pure: it does no I/O.
//
// It is not for item layouts (see runtime/store) or index names (see
// runtime/schema).
package keys
