package conformance_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pagePITR = "RestoreTableToPointInTime, DescribeContinuousBackups, UpdateContinuousBackups (DynamoDB API Reference, " +
		"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html); " +
		"Point-in-time recovery for DynamoDB (Developer Guide, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/PointInTimeRecovery.html)"
	pageOnDemandBackups = "CreateBackup, DescribeBackup, ListBackups, DeleteBackup, RestoreTableFromBackup (DynamoDB API Reference, " +
		"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateBackup.html); " +
		"Restoring a DynamoDB table from a backup (Developer Guide, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Restore.Tutorial.html)"
)

// backupTable creates a table with a GSI, a stream, TTL and a tag: the
// settings a restore keeps (keys, indexes, billing) and does not (stream,
// TTL, tags, PITR).
func backupTable(t *testing.T, tg *target) string {
	t.Helper()
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
	in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: hashOnly("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
	in.Tags = []types.Tag{{Key: aws.String("team"), Value: aws.String("payments")}}
	table := createTable(t, tg, in)
	_, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	noErr(t, err, "UpdateTimeToLive")
	return table
}

// checkRestoredSettings checks what a restore carries over and what not.
func checkRestoredSettings(t *testing.T, tg *target, target, sourceArn string) *types.TableDescription {
	t.Helper()
	d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(target)})
	noErr(t, err, "DescribeTable of the restored table")
	desc := d.Table
	if desc.RestoreSummary == nil || aws.ToString(desc.RestoreSummary.SourceTableArn) != sourceArn || aws.ToBool(desc.RestoreSummary.RestoreInProgress) {
		t.Errorf("RestoreSummary = %+v, want the source table %s, not in progress", desc.RestoreSummary, sourceArn)
	}
	if len(desc.KeySchema) != 1 || aws.ToString(desc.KeySchema[0].AttributeName) != "pk" {
		t.Errorf("restored key schema %+v", desc.KeySchema)
	}
	if desc.StreamSpecification != nil || desc.LatestStreamArn != nil {
		t.Errorf("the restored table has a stream; a restore does not carry stream settings")
	}
	ttl, err := tg.client.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(target)})
	noErr(t, err, "DescribeTimeToLive")
	if ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("restored TTL %s, want DISABLED: a restore does not carry TTL settings", ttl.TimeToLiveDescription.TimeToLiveStatus)
	}
	tags, err := tg.client.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: desc.TableArn})
	noErr(t, err, "ListTagsOfResource")
	if len(tags.Tags) != 0 {
		t.Errorf("restored tags %+v, want none: a restore does not carry tags", tags.Tags)
	}
	cb, err := tg.client.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(target)})
	noErr(t, err, "DescribeContinuousBackups")
	if cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("restored PITR enabled: a restore does not carry PITR settings")
	}
	return desc
}

func TestPointInTimeRestore(t *testing.T) {
	doc(t, pagePITR, `RestoreTableToPointInTime restores the table to its state at RestoreDateTime (or, with UseLatestRestorableTime, at LatestRestorableDateTime, typically 5 minutes before now) into a new table, within EarliestRestorableDateTime and LatestRestorableDateTime; the recovery period is 1 to 35 days (RecoveryPeriodInDays, default 35). GSIs, LSIs, provisioned capacity and encryption come from the source; auto scaling, IAM policies, CloudWatch alarms, tags, stream settings, TTL settings and PITR settings must be set up again on the restored table. Errors: PointInTimeRecoveryUnavailableException when PITR is not enabled, InvalidRestoreTimeException outside the window, TableAlreadyExistsException for an existing target, TableNotFoundException for a missing source. BillingModeOverride and GlobalSecondaryIndexOverride (to exclude indexes) are accepted.`)
	clock := newFakeClock(time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option()}, func(t *testing.T, tg *target) {
		table := backupTable(t, tg)
		c := tg.client
		_, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
			TargetTableName: aws.String(table + "-r0"), UseLatestRestorableTime: aws.Bool(true)})
		wantErr(t, err, "PointInTimeRecoveryUnavailableException")

		_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(36)}})
		wantValidation(t, err, "recoveryPeriodInDays")
		out, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
		noErr(t, err, "UpdateContinuousBackups")
		enabled := clock.Now()
		if got := aws.ToInt32(out.ContinuousBackupsDescription.PointInTimeRecoveryDescription.RecoveryPeriodInDays); got != 7 {
			t.Errorf("RecoveryPeriodInDays = %d, want 7", got)
		}

		// Three states, ten minutes apart.
		put(t, tg, table, item{"pk": s("a"), "g": s("x"), "v": n("1")})
		put(t, tg, table, item{"pk": s("b"), "g": s("x"), "v": n("1")})
		clock.Advance(10 * time.Minute)
		middle := clock.Now()
		clock.Advance(time.Second)
		put(t, tg, table, item{"pk": s("a"), "g": s("y"), "v": n("2")})
		_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("b")}})
		noErr(t, err, "DeleteItem")
		put(t, tg, table, item{"pk": s("c"), "g": s("x"), "v": n("1")})
		clock.Advance(10 * time.Minute)

		cb, err := c.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeContinuousBackups")
		pd := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription
		if got := aws.ToTime(pd.EarliestRestorableDateTime); !got.Equal(enabled) {
			t.Errorf("EarliestRestorableDateTime = %s, want when PITR was enabled, %s", got, enabled)
		}
		if got, want := aws.ToTime(pd.LatestRestorableDateTime), clock.Now().Add(-5*time.Minute); !got.Equal(want) {
			t.Errorf("LatestRestorableDateTime = %s, want 5 minutes ago, %s", got, want)
		}

		for _, bad := range []time.Time{enabled.Add(-time.Minute), clock.Now().Add(-time.Minute)} {
			_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
				TargetTableName: aws.String(table + "-bad"), RestoreDateTime: aws.Time(bad)})
			wantErr(t, err, "InvalidRestoreTimeException")
		}
		_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table + "-missing"),
			TargetTableName: aws.String(table + "-bad"), UseLatestRestorableTime: aws.Bool(true)})
		wantErr(t, err, "TableNotFoundException")
		_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
			TargetTableName: aws.String(table), UseLatestRestorableTime: aws.Bool(true)})
		wantErr(t, err, "TableAlreadyExistsException")

		src, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeTable")
		target := table + "-mid"
		_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: src.Table.TableArn,
			TargetTableName: aws.String(target), RestoreDateTime: aws.Time(middle)})
		noErr(t, err, "RestoreTableToPointInTime")
		desc := checkRestoredSettings(t, tg, target, aws.ToString(src.Table.TableArn))
		if len(desc.GlobalSecondaryIndexes) != 1 {
			t.Errorf("restored GSIs %+v, want byG", desc.GlobalSecondaryIndexes)
		}
		wantItem(t, get(t, tg, target, item{"pk": s("a")}), item{"pk": s("a"), "g": s("x"), "v": n("1")})
		wantItem(t, get(t, tg, target, item{"pk": s("b")}), item{"pk": s("b"), "g": s("x"), "v": n("1")})
		if it := get(t, tg, target, item{"pk": s("c")}); it != nil {
			t.Errorf("item c, written after the restore time, was restored: %s", show(it))
		}
		if got := len(queryIndex(t, tg, target, "byG", "g = :g", item{":g": s("x")})); got != 2 {
			t.Errorf("restored index holds %d items under x, want 2", got)
		}

		// The latest restorable time, without the index and on demand.
		latest := table + "-latest"
		_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
			TargetTableName: aws.String(latest), UseLatestRestorableTime: aws.Bool(true),
			BillingModeOverride: types.BillingModePayPerRequest, GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{}})
		noErr(t, err, "RestoreTableToPointInTime latest")
		d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(latest)})
		noErr(t, err, "DescribeTable")
		if len(d.Table.GlobalSecondaryIndexes) != 0 || d.Table.BillingModeSummary == nil || d.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("overrides not applied: GSIs %d, billing %+v", len(d.Table.GlobalSecondaryIndexes), d.Table.BillingModeSummary)
		}
		wantItem(t, get(t, tg, latest, item{"pk": s("a")}), item{"pk": s("a"), "g": s("y"), "v": n("2")})
		if get(t, tg, latest, item{"pk": s("b")}) != nil || get(t, tg, latest, item{"pk": s("c")}) == nil {
			t.Errorf("latest restore is not the current state")
		}

		// Disabling PITR deletes the history.
		_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
		noErr(t, err, "UpdateContinuousBackups off")
		_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
			TargetTableName: aws.String(table + "-off"), RestoreDateTime: aws.Time(middle)})
		wantErr(t, err, "PointInTimeRecoveryUnavailableException")
	})
}

func TestBackupsAndRestore(t *testing.T) {
	doc(t, pageOnDemandBackups, `CreateBackup makes a full backup of a table (BackupName: 3 to 255 characters of [a-zA-Z0-9_.-]; TableNotFoundException for a missing table); DescribeBackup describes it with its source table's details (BackupNotFoundException for an unknown ARN); ListBackups lists the backups, of one table or all, within a creation time range, Limit at a time with LastEvaluatedBackupArn; DeleteBackup deletes it; RestoreTableFromBackup creates a new table with the backup's data (TableAlreadyExistsException for an existing target), without the stream, TTL, tags or PITR settings of the source.`)
	clock := newFakeClock(time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option()}, func(t *testing.T, tg *target) {
		table := backupTable(t, tg)
		c := tg.client
		_, err := c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("b!")})
		wantValidation(t, err, "backupName")
		_, err = c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String(table + "-missing"), BackupName: aws.String("nightly")})
		wantErr(t, err, "TableNotFoundException")

		put(t, tg, table, item{"pk": s("a"), "g": s("x"), "v": n("1")})
		first, err := c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("first")})
		noErr(t, err, "CreateBackup")
		arn := aws.ToString(first.BackupDetails.BackupArn)
		if first.BackupDetails.BackupStatus != types.BackupStatusAvailable || first.BackupDetails.BackupType != types.BackupTypeUser {
			t.Errorf("BackupDetails %+v, want an AVAILABLE USER backup", first.BackupDetails)
		}
		clock.Advance(time.Minute)
		put(t, tg, table, item{"pk": s("a"), "g": s("x"), "v": n("2")})
		put(t, tg, table, item{"pk": s("b"), "g": s("x"), "v": n("1")})
		_, err = c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("second")})
		noErr(t, err, "CreateBackup second")

		d, err := c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
		noErr(t, err, "DescribeBackup")
		if aws.ToString(d.BackupDescription.SourceTableDetails.TableName) != table || aws.ToInt64(d.BackupDescription.SourceTableDetails.ItemCount) != 1 {
			t.Errorf("SourceTableDetails %+v, want %s with 1 item", d.BackupDescription.SourceTableDetails, table)
		}
		if f := d.BackupDescription.SourceTableFeatureDetails; f == nil || len(f.GlobalSecondaryIndexes) != 1 || f.StreamDescription == nil || f.TimeToLiveDescription == nil {
			t.Errorf("SourceTableFeatureDetails %+v, want the GSI, stream and TTL", f)
		}

		l, err := c.ListBackups(ctx(t), &dynamodb.ListBackupsInput{TableName: aws.String(table), Limit: aws.Int32(1)})
		noErr(t, err, "ListBackups")
		if len(l.BackupSummaries) != 1 || aws.ToString(l.BackupSummaries[0].BackupArn) != arn || l.LastEvaluatedBackupArn == nil {
			t.Fatalf("ListBackups page 1: %+v", l)
		}
		l, err = c.ListBackups(ctx(t), &dynamodb.ListBackupsInput{TableName: aws.String(table), ExclusiveStartBackupArn: l.LastEvaluatedBackupArn})
		noErr(t, err, "ListBackups page 2")
		if len(l.BackupSummaries) != 1 || aws.ToString(l.BackupSummaries[0].BackupName) != "second" || l.LastEvaluatedBackupArn != nil {
			t.Errorf("ListBackups page 2: %+v", l)
		}
		l, err = c.ListBackups(ctx(t), &dynamodb.ListBackupsInput{TableName: aws.String(table), TimeRangeUpperBound: aws.Time(clock.Now())})
		noErr(t, err, "ListBackups by time")
		if len(l.BackupSummaries) != 1 {
			t.Errorf("ListBackups before now: %d backups, want the first only", len(l.BackupSummaries))
		}

		target := table + "-restored"
		_, err = c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(table)})
		wantErr(t, err, "TableAlreadyExistsException")
		_, err = c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(target)})
		noErr(t, err, "RestoreTableFromBackup")
		desc := checkRestoredSettings(t, tg, target, aws.ToString(d.BackupDescription.SourceTableDetails.TableArn))
		if aws.ToString(desc.RestoreSummary.SourceBackupArn) != arn {
			t.Errorf("RestoreSummary.SourceBackupArn = %s, want %s", aws.ToString(desc.RestoreSummary.SourceBackupArn), arn)
		}
		wantItem(t, get(t, tg, target, item{"pk": s("a")}), item{"pk": s("a"), "g": s("x"), "v": n("1")})
		if get(t, tg, target, item{"pk": s("b")}) != nil {
			t.Errorf("an item written after the backup was restored")
		}
		if got := len(queryIndex(t, tg, target, "byG", "g = :g", item{":g": s("x")})); got != 1 {
			t.Errorf("restored index holds %d items, want 1", got)
		}

		del, err := c.DeleteBackup(ctx(t), &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)})
		noErr(t, err, "DeleteBackup")
		if del.BackupDescription.BackupDetails.BackupStatus != types.BackupStatusDeleted {
			t.Errorf("DeleteBackup status %s, want DELETED", del.BackupDescription.BackupDetails.BackupStatus)
		}
		_, err = c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
		wantErr(t, err, "BackupNotFoundException")
	})
}

func TestBackupsOfACreatingTable(t *testing.T) {
	doc(t, pageOnDemandBackups, `CreateBackup and UpdateContinuousBackups fail with ContinuousBackupsUnavailableException ("Backups have not yet been enabled for this table") while the table is being created; once it is ACTIVE they work.`)
	clock := newFakeClock(time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC))
	delay := func(o *ddblocal.Options) { o.TransientStatusDelay = time.Minute }
	eachEngine(t, []func(*ddblocal.Options){clock.option(), delay}, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(tableName(t))
		_, err := tg.client.CreateTable(ctx(t), in)
		noErr(t, err, "CreateTable")
		_, err = tg.client.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: in.TableName, BackupName: aws.String("early")})
		wantErr(t, err, "ContinuousBackupsUnavailableException")
		_, err = tg.client.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: in.TableName,
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
		wantErr(t, err, "ContinuousBackupsUnavailableException")
		clock.Advance(2 * time.Minute)
		_, err = tg.client.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: in.TableName, BackupName: aws.String("active")})
		noErr(t, err, "CreateBackup of the ACTIVE table")
	})
}

// TestABackupIsTheTableWhenItWasMade checks that a backup holds the items
// as they were when CreateBackup returned: writes to the source after it
// (updates of the same item, deletes, new items) are not in a table
// restored from it, and writes to that restored table reach neither the
// source nor a second restore of the same backup.
func TestABackupIsTheTableWhenItWasMade(t *testing.T) {
	doc(t, pageOnDemandBackups, `A backup is a full copy of the table's data at the time of the backup; a table restored from it holds that data, and is a table of its own: writes to the source after the backup, and writes to the restored table, do not reach each other.`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		c := tg.client
		table := createTable(t, tg, tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil))
		put(t, tg, table, item{"pk": s("a"), "v": n("1")})
		put(t, tg, table, item{"pk": s("b"), "v": n("1")})
		b, err := c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("before")})
		noErr(t, err, "CreateBackup")
		arn := b.BackupDetails.BackupArn
		addOne(t, tg, table, "a")
		addOne(t, tg, table, "a")
		_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("b")}})
		noErr(t, err, "DeleteItem")
		put(t, tg, table, item{"pk": s("c"), "v": n("1")})

		first := restoreFrom(t, tg, arn, table+"-r1")
		wantItem(t, get(t, tg, first, item{"pk": s("a")}), item{"pk": s("a"), "v": n("1")})
		wantItem(t, get(t, tg, first, item{"pk": s("b")}), item{"pk": s("b"), "v": n("1")})
		if it := get(t, tg, first, item{"pk": s("c")}); it != nil {
			t.Errorf("the restored table holds %v, written after the backup", show(it))
		}
		addOne(t, tg, first, "a")
		addOne(t, tg, first, "b")
		wantItem(t, get(t, tg, table, item{"pk": s("a")}), item{"pk": s("a"), "v": n("3")})
		second := restoreFrom(t, tg, arn, table+"-r2")
		wantItem(t, get(t, tg, second, item{"pk": s("a")}), item{"pk": s("a"), "v": n("1")})
		wantItem(t, get(t, tg, second, item{"pk": s("b")}), item{"pk": s("b"), "v": n("1")})
		wantItem(t, get(t, tg, first, item{"pk": s("a")}), item{"pk": s("a"), "v": n("2")})
	})
}

// addOne adds 1 to v of the item pk in table.
func addOne(t *testing.T, tg *target, table, pk string) {
	t.Helper()
	_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s(pk)},
		UpdateExpression: aws.String("ADD v :one"), ExpressionAttributeValues: item{":one": n("1")}})
	noErr(t, err, "UpdateItem")
}

// restoreFrom restores the backup arn to a new table named name, deleted
// when the test ends, and returns its name.
func restoreFrom(t *testing.T, tg *target, arn *string, name string) string {
	t.Helper()
	_, err := tg.client.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(name)})
	noErr(t, err, "RestoreTableFromBackup")
	t.Cleanup(func() {
		_, _ = tg.client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}
