// Package platform keeps the platform accounts' stored totals: the sum of
// the platform legs of every ledger entry, per account and currency, kept
// by a totaller that consumes the table's stream, so that no flow ever
// writes a platform item and none becomes a hot key.
//
// A flow writes an entry's legs in the entry, in its user's partition
// (store.LegsOf). The [Totaller] reads the entries' INSERT stream records
// and, per transaction of up to [MaxEntriesPerTransaction] entries, writes
// in one TransactWriteItems:
//
//	each entry   SET totalled = :shard   if attribute_exists(PK) AND attribute_not_exists(totalled)
//	each account ADD <currency> :sum on PLATFORM#<account>#<shard>, TOTAL
//
// so an entry's legs are added once however often its record is
// delivered: a redelivered entry fails its condition, the transaction is
// cancelled, and the totaller sends it again without the entries that
// were already totalled. A transaction conflict on a shard (another
// totaller writing it) moves the next attempt to the next shard.
//
//	t := platform.New(db, func(o *platform.Options) { o.Table = "oncetable" })
//	lambda.Start(t.Handle)
//
// [Read] sums an account's shards (one BatchGetItem of every account's
// shards), and [Conserve] adds every user's posted money to the stored
// totals and the platform legs not totalled yet: per currency the sum is
// zero when money is conserved.
//
// It is not for the user's own balance (the profile holds it, written by
// the flows in runtime/payments) nor for checking a table's invariants
// (runtime/verify checks the stored totals against the totalled legs).
package platform
