package ddblocal

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// settle writes value v to the four items of one transaction.
func settle(t *testing.T, f *durableFixture, v string) {
	t.Helper()
	var items []types.TransactWriteItem
	for _, pk := range []string{"t1", "t2", "t3", "t4"} {
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("tab-a"), Item: fixtureItem(pk, v)}})
	}
	if _, err := f.db.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		t.Fatal(err)
	}
}

// enablePITR turns point-in-time recovery on for tab-a.
func enablePITR(t *testing.T, f *durableFixture) {
	t.Helper()
	if _, err := f.db.UpdateContinuousBackups(context.Background(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("tab-a"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
}

// values returns n of the transaction's four items in table.
func values(t *testing.T, f *durableFixture, table string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, pk := range []string{"t1", "t2", "t3", "t4"} {
		if it := f.item(table, pk); it != nil {
			out[pk] = it["n"].(*types.AttributeValueMemberN).Value
		}
	}
	return out
}

func count(m map[string]string, v string) int {
	n := 0
	for _, x := range m {
		if x == v {
			n++
		}
	}
	return n
}

// TestBackupsSurviveRestart checks that the PITR history and backups are
// kept with a data directory: after a restart, a restore to a point in
// time and from a backup give the states they were taken at.
func TestBackupsSurviveRestart(t *testing.T) {
	f := newDurableFixture(t)
	ctx := context.Background()
	enablePITR(t, f)
	settle(t, f, "1")
	f.now.Add(int64(time.Minute))
	mid := time.Unix(0, f.now.Load())
	bk, err := f.db.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("tab-a"), BackupName: aws.String("mid")})
	if err != nil {
		t.Fatal(err)
	}
	f.now.Add(int64(time.Second))
	settle(t, f, "2")
	f.now.Add(int64(10 * time.Minute))
	f.restart()

	if _, err := f.db.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("tab-a"),
		TargetTableName: aws.String("tab-pitr"), RestoreDateTime: aws.Time(mid)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: bk.BackupDetails.BackupArn,
		TargetTableName: aws.String("tab-backup")}); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"tab-pitr", "tab-backup"} {
		if got := values(t, f, table); count(got, "1") != 4 {
			t.Errorf("%s holds %v, want the four items at 1", table, got)
		}
	}
	if got := values(t, f, "tab-a"); count(got, "2") != 4 {
		t.Errorf("source holds %v, want the four items at 2", got)
	}
	f.restart() // the restored tables are stored too
	if got := values(t, f, "tab-pitr"); count(got, "1") != 4 {
		t.Errorf("restored table after a restart holds %v", got)
	}
}

// TestTornBackupsFault checks Faults.TornBackups: a backup and a restore
// to a point in time hold only part of the last transaction (half its
// items new, half as they were), and without the fault all of it.
func TestTornBackupsFault(t *testing.T) {
	f := newDurableFixture(t)
	ctx := context.Background()
	enablePITR(t, f)
	settle(t, f, "1")
	f.now.Add(int64(time.Minute))
	settle(t, f, "2")
	f.now.Add(int64(time.Minute))
	at := time.Unix(0, f.now.Load())
	f.now.Add(int64(10 * time.Minute))

	restore := func(target string) map[string]string {
		if _, err := f.db.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("tab-a"),
			TargetTableName: aws.String(target), RestoreDateTime: aws.Time(at)}); err != nil {
			t.Fatal(err)
		}
		return values(t, f, target)
	}
	backup := func(target string) map[string]string {
		bk, err := f.db.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("tab-a"), BackupName: aws.String(target)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: bk.BackupDetails.BackupArn,
			TargetTableName: aws.String(target)}); err != nil {
			t.Fatal(err)
		}
		return values(t, f, target)
	}
	if got := restore("tab-whole"); count(got, "2") != 4 {
		t.Fatalf("restore without the fault: %v, want all four at 2", got)
	}
	if got := backup("tab-whole-backup"); count(got, "2") != 4 {
		t.Fatalf("backup without the fault: %v, want all four at 2", got)
	}
	f.e.SetFaults("tab-a", Faults{TornBackups: true})
	for name, got := range map[string]map[string]string{"restore": restore("tab-torn"), "backup": backup("tab-torn-backup")} {
		if count(got, "2") != 2 || count(got, "1") != 2 {
			t.Errorf("%s with TornBackups: %v, want two items of the last transaction at 2 and two before it, at 1", name, got)
		}
	}
}
