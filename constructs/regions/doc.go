// Package regions holds what a money table replicated into several
// Regions needs besides its replicas (constructs/singletable's
// TableProps.Replicas):
//
//   - NewLeaseStore: the lease table of runtime/home, a multi-Region strong
//     consistency (MRSC) TableV2 of three Regions, or of two and a witness,
//     where every Region agrees on each cell's home and epoch;
//
//   - NewWatch: in one Region, the stream consumer of that Region's replica
//     (lambdas/regionwatch) with its alarms, outside-owner-writes and
//     ledger-mismatch (pages), and replication-latency on the replicas the
//     Region sends to (a ticket), each a section of docs/runbook.md.
//
//     leases := regions.NewLeaseStore(stack, "Leases", &regions.LeaseStoreProps{Replicas: []string{"eu-west-2"}, Witness: "eu-west-3"})
//     regions.NewWatch(stack, "Watch", &regions.WatchProps{Table: table.Table, StreamARN: *table.Table.TableStreamArn(),
//     Homes: homes, ReplicaRegions: []string{"eu-west-2"}, Monitor: ops})
//
// It is not the payments API of each Region (constructs/paymentsapi, given
// config.Homes) nor failover, which an operator drives (make failover).
package regions
