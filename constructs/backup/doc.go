// Package backup is the CDK construct that protects the oncetable single
// table with AWS Backup: a KMS-encrypted vault under Vault Lock, a plan of
// daily, weekly and monthly rules, the table selected, an optional copy of
// every recovery point to a second vault (usually in another region),
// EventBridge rules that send failed, aborted or expired backup, restore and
// copy jobs to a topic, and alarms (a failed job, no completed backup, an
// undelivered failure event, a failed restore validation) for a Monitor.
//
//	backup.NewTableBackup(stack, "Backup", table.Table, &backup.TableBackupProps{
//		AlarmTopic: ops.Ticket.Topic, // the failure events, with their job IDs
//		Monitor:    ops,              // the alarms, routed by kind (constructs/oncall)
//	})
//
// nil props give daily backups kept 35 days, weekly kept 91 days and monthly
// kept 365 days, in a vault under a governance-mode lock. Compliance mode
// (VaultLock.Mode = Compliance) cannot be removed by anyone, AWS included,
// once its ChangeableForDays cooling-off period has passed: choose it
// deliberately.
//
// Copies to another region and encryption of DynamoDB recovery points with
// the vault key need AWS Backup's advanced features for DynamoDB, a one-time
// account setting that CloudFormation cannot make.
//
// RestoreTest adds a restore testing plan; each restore test's table is then
// checked for correct money by lambdas/restorevalidation (runtime/verify),
// invoked by an EventBridge rule when the restore job completes, which
// reports the verdict with PutRestoreValidationResult and alarms when it
// fails (RestoreValidation; docs/recovery.md).
//
// It is not for point-in-time recovery, which the table itself provides
// (constructs/singletable).
package backup
