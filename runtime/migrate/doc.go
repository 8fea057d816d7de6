// Package migrate changes the shape of items in a live single table without
// stopping writers: it mirrors writes into the new shape, backfills existing
// items, verifies both shapes, cuts reads over and cleans the old shape up.
//
// A migration is declared in Go as a [Migration]: a name, the versions it
// goes from and to, which items it touches (Match, and optionally a Scan
// Filter), and Transform, a function from an item in the old shape to the
// attributes the new shape adds. Transform is pure and is tested on its own.
// Retire lists the old shape's attributes that cleanup removes; Restore
// rebuilds them for a rollback from cleanup.
//
// The phases ([Phases]) are none, mirror, backfill, verify, cutover,
// cleanup and done. The phase state is a META item in the table itself
// (PK "MIGRATION#<name>", SK "META"), changed only by a [Migrator] holding
// the table's lease item (PK "MIGRATION#LEASE"). [Migrator.Run] moves
// forward doing each phase's work; [Migrator.Rollback] moves one phase back
// from any phase but done; a phase out of order is a [*PhaseError]. A second
// migrator gets a [*LeaseHeldError] naming the holder.
//
// Writers and readers get the phase through a [Fence], which caches it
// briefly. Every write transaction built with [Fence.Write] (or [Fence.Guard]
// on a transaction of one's own) carries one more item, a ConditionCheck
// that the META item is still at the epoch the writer read. Each transition
// increments the epoch, so a writer holding a stale phase is cancelled, reads
// the phase again and rebuilds its write in the new phase: no write in an
// old shape can land after the backfill has passed its item. Writers use
// [Migrator.Shape] (or a [Shaper], which needs no client) to write an item
// as their phase requires; a Fence needs only GetItem and
// TransactWriteItems ([FenceAPI]).
//
// The backfill is a parallel Scan (Options.Segments) whose position is
// checkpointed per segment in the table, so a killed run resumes. It is
// rate-limited to Options.Budget capacity units per second, as
// ReturnConsumedCapacity reports them, and retries throttled calls with
// runtime/retry. Each item is updated under a condition that it is not
// already in the new shape, so it never overwrites a live writer's newer
// write, and running it twice changes nothing. A transform that fails on an
// item stops that segment just before it (an [*ItemsError] naming the key);
// a rerun resumes there. [Migrator.Verify] reports every mismatch in a
// [*VerifyError]. Cleanup removes the retired attributes under the same
// budget.
//
// It is not for changing key attributes (a migration adds and retires
// non-key attributes in place; new GSIs are keyed by such attributes), for
// creating indexes (that is the table's infrastructure), or for writes
// outside transactions: a plain PutItem cannot carry the fence.
package migrate
