// Package cursor turns a DynamoDB LastEvaluatedKey into an opaque,
// tamper-evident pagination cursor and back.
//
// A cursor is base64url(JSON of the key's string attributes) "." base64url
// (HMAC-SHA256 over the query's binding and the payload). The binding names
// the query the cursor came from ("ledger|USER#u1"), so a cursor from one
// user's ledger cannot page another's, and a cursor whose bytes were edited
// fails verification. Callers should still check that the decoded key lies
// in the partition they query.
//
// It is not encryption: the key attributes are readable by whoever holds the
// cursor. Only string key attributes are supported, which is all the
// oncetable schema uses.
package cursor
