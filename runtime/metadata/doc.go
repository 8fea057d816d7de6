// Package metadata is the client's key-value pairs on users, orders and
// money movements: a JSON object of strings, bounded as Stripe bounds its
// metadata, so that a client can attach its own references (an invoice
// number, a cart id) without a table of its own.
//
// The bounds: at most [MaxKeys] keys; a key is 1..[MaxKeyLength]
// characters (Unicode code points) without '[', ']' or control
// characters; a value is at most [MaxValueLength] characters. Keys and
// values are kept in NFC, the form the API fingerprints requests in.
// [Metadata.UnmarshalJSON] applies the bounds as it decodes, in the
// document's order, and [Validate] applies them to a value built in Go;
// both report a [*Error] that names the offending request member
// (metadata[key]) and why.
//
// It is not a place for secrets or personal data: metadata is stored as
// sent, returned to whoever may read the resource, and copied into the
// idempotency record's stored answer.
package metadata
