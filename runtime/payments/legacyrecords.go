package payments

// This file is the check of idempotency records at their place before
// they got partitions of their own (the partition of the entity acted on):
// a first call also makes sure that no record of its key waits there, and
// a replay reads both places. Once IdempotencyExpiry has passed since every
// writer runs the new layout, deleting this file retires the check; no
// flow changes (TestMigrationsRetireByDeletingOneFile builds the module
// without it).

func init() {
	legacyRecords = func(o Options) func(partition string) string {
		if o.SkipLegacyRecords {
			return func(string) string { return "" }
		}
		return func(partition string) string { return partition }
	}
}
