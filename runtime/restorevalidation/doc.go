// Package restorevalidation is the validation step of AWS Backup restore
// testing for the oncetable table: when a restore testing job of the
// table's plan completes, EventBridge ("Restore Job State Change", status
// COMPLETED, restoreTestingPlanArn set) invokes the function
// (lambdas/restorevalidation), which checks the restored table's money
// invariants with runtime/verify and reports the verdict to the restore job
// with PutRestoreValidationResult: VALIDATING when it starts, then
// SUCCESSFUL, FAILED (with the violations' counts and the transactions they
// break) or TIMED_OUT (the scan outran the function's time).
//
// Each verdict is also one Embedded Metric Format line in the function's
// log: namespace [Namespace], metric [MetricValidationFailed] (1 on FAILED
// or TIMED_OUT, 0 on SUCCESSFUL) and [MetricViolations], dimension
// [DimensionTableName] the source table's name. The validation-failed alarm
// (constructs/backup, kind restore-validation-failed) pages on it; the whole
// report is logged as JSON for the on-call (docs/recovery.md).
//
// It reads only tables named [RestoredTablePrefix]…, the names AWS Backup
// gives restore-test tables, which is all its IAM policy lets it scan: a
// restore job of any other table is reported FAILED, not read.
//
// It is not the restore itself (AWS Backup runs and deletes it) nor the
// check of a production restore: that is lambdas/verify, run by hand
// (docs/recovery.md).
package restorevalidation
