// Package reconciler deploys the live reconciliation (lambdas/reconcile,
// runtime/reconcile): an EventBridge Scheduler schedule invokes the
// function every few minutes; each invocation scans the next part of the
// table at a capped read rate and keeps its resume state in the table's
// own control items (partition CONTROL#reconcile), so the function needs no
// other store.
//
//	r := reconciler.New(stack, "Reconcile", &reconciler.Props{Table: table.Table, Monitor: ops})
//
// The function may read the whole table and write only the reconciliation's
// control partitions (an IAM condition on dynamodb:LeadingKeys). Two alarms
// watch its metrics (obs.ReconcileNamespace): reconcile-violations pages
// on any confirmed violation, and reconcile-stalled opens a ticket when no
// pass completes within Props.StallAfter. It is not the restore-test check
// (constructs/backup), which verifies restored tables once each.
package reconciler
