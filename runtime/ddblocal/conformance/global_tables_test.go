package conformance_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// Global tables, version 2019.11.21, between the Regions of one engine.
const (
	pageGTHowItWorks  = "How DynamoDB global tables work (Developer Guide, V2globaltables_HowItWorks)"
	pageGTVersion     = "Determining the version of a global table (Developer Guide, V2globaltables_versions)"
	pageGTMonitoring  = "Monitoring global tables (Developer Guide, V2globaltables_monitoring)"
	pageGTUpdateTable = "UpdateTable (API Reference): ReplicaUpdates, MultiRegionConsistency, GlobalTableWitnessUpdates"
	pageRWCE          = "ReplicatedWriteConflictException (API Reference, errors of PutItem, UpdateItem, DeleteItem)"
	pageMRSC          = "Multi-Region strong consistency (Developer Guide; example_dynamodb_Scenario_MRSCGlobalTables_section)"
)

// globalEngine runs f against a fresh engine of the given Regions whose
// replication happens only when the case delivers it.
func globalEngine(t *testing.T, regions []string, f func(t *testing.T, tg *target)) {
	t.Helper()
	eachEngine(t, []func(*ddblocal.Options){func(o *ddblocal.Options) {
		o.Regions = regions
		o.ManualReplication = true
	}}, f)
}

// globalTable creates a table keyed by pk with a NEW_AND_OLD_IMAGES stream
// in the first client's Region and adds a replica in each other Region.
func globalTable(t *testing.T, tg *target, home *dynamodb.Client, others ...string) string {
	t.Helper()
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
	in.TableName = aws.String(tableName(t))
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	_, err := home.CreateTable(ctx(t), in)
	noErr(t, err, "CreateTable")
	for _, r := range others {
		_, err := home.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: in.TableName,
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}}})
		noErr(t, err, "UpdateTable ReplicaUpdates Create "+r)
	}
	return *in.TableName
}

func TestGlobalTableDescribedAsVersion2019(t *testing.T) {
	doc(t, pageGTVersion, "If the output of describe-table contains the GlobalTableVersion attribute with the value 2019.11.21, the table is a version 2019.11.21 (Current) global table replica; Replicas lists the replicas in the other Regions")
	doc(t, pageGTHowItWorks, "A global table consists of two or more replica tables across Regions; all replicas share the same table name, primary key schema and item data")
	globalEngine(t, []string{"us-east-1", "eu-west-1"}, func(t *testing.T, tg *target) {
		east, west := regionClient(tg, "us-east-1"), regionClient(tg, "eu-west-1")
		name := globalTable(t, tg, east, "eu-west-1")
		lt, err := west.ListTables(ctx(t), &dynamodb.ListTablesInput{})
		noErr(t, err, "ListTables in eu-west-1")
		if len(lt.TableNames) != 1 || lt.TableNames[0] != name {
			t.Errorf("eu-west-1 ListTables = %v, want [%s]", lt.TableNames, name)
		}
		d, err := west.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable in eu-west-1")
		if v := aws.ToString(d.Table.GlobalTableVersion); v != "2019.11.21" {
			t.Errorf("GlobalTableVersion %q, want 2019.11.21", v)
		}
		if len(d.Table.Replicas) != 1 || aws.ToString(d.Table.Replicas[0].RegionName) != "us-east-1" {
			t.Errorf("Replicas %s, want us-east-1's", show(d.Table.Replicas))
		}
		if d.Table.MultiRegionConsistency != types.MultiRegionConsistencyEventual {
			t.Errorf("MultiRegionConsistency %q, want EVENTUAL", d.Table.MultiRegionConsistency)
		}
	})
}

func TestGlobalTableReplicatesAsynchronouslyLastWriterWins(t *testing.T) {
	doc(t, pageGTHowItWorks, "When an application writes data to a replica in one Region, DynamoDB automatically replicates the write to all other replicas, asynchronously (MREC); strongly consistent reads return the latest version in the Region of the read, which may not reflect writes in other Regions; concurrent updates of the same item are reconciled with last writer wins")
	globalEngine(t, []string{"us-east-1", "eu-west-1"}, func(t *testing.T, tg *target) {
		east, west := regionClient(tg, "us-east-1"), regionClient(tg, "eu-west-1")
		name := globalTable(t, tg, east, "eu-west-1")
		rep := tg.engine.Replication()
		rep.SetClockSkew("eu-west-1", time.Second) // eu-west-1's write is the later
		_, err := east.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": s("k"), "by": s("east")}})
		noErr(t, err, "PutItem in us-east-1")
		got, err := west.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": s("k")}, ConsistentRead: aws.Bool(true)})
		noErr(t, err, "GetItem in eu-west-1")
		if got.Item != nil {
			t.Errorf("a consistent read in eu-west-1 saw %s before replication", show(got.Item))
		}
		_, err = west.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": s("k"), "by": s("west")}})
		noErr(t, err, "PutItem in eu-west-1")
		if q := rep.WaitQuiet(); !q.Identical {
			t.Fatalf("replicas differ after quiet: %v", q.Differences)
		}
		for r, db := range map[string]*dynamodb.Client{"us-east-1": east, "eu-west-1": west} {
			got, err := db.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": s("k")}, ConsistentRead: aws.Bool(true)})
			noErr(t, err, "GetItem")
			wantItem(t, got.Item, item{"pk": s("k"), "by": s("west")})
			_ = r
		}
	})
}

func TestGlobalTableReplicationLatency(t *testing.T) {
	doc(t, pageGTMonitoring, "ReplicationLatency is the elapsed time between when an item is written to a replica table and when that item appears in another replica, emitted for every source and destination Region pair")
	globalEngine(t, []string{"us-east-1", "eu-west-1"}, func(t *testing.T, tg *target) {
		east := regionClient(tg, "us-east-1")
		name := globalTable(t, tg, east, "eu-west-1")
		rep := tg.engine.Replication()
		rep.SetFaults(ddblocal.ReplicationFaults{Seed: 7, Lag: ddblocal.UniformLag(200*time.Millisecond, 200*time.Millisecond)})
		put(t, &target{client: east}, name, item{"pk": s("a")})
		rep.WaitQuiet()
		if s := rep.ReplicationLatency(name, "us-east-1", "eu-west-1"); s.Count != 1 || s.Last < 200*time.Millisecond {
			t.Errorf("ReplicationLatency %+v, want one write of at least 200 ms", s)
		}
	})
}

func TestGlobalTableReplicaDeleted(t *testing.T) {
	doc(t, pageGTUpdateTable, "ReplicaUpdates Delete removes a replica: its table in that Region is deleted, and the others' Replicas no longer list it")
	globalEngine(t, []string{"us-east-1", "eu-west-1", "ap-south-1"}, func(t *testing.T, tg *target) {
		east := regionClient(tg, "us-east-1")
		name := globalTable(t, tg, east, "eu-west-1", "ap-south-1")
		_, err := east.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("ap-south-1")}}}})
		noErr(t, err, "UpdateTable ReplicaUpdates Delete")
		_, err = regionClient(tg, "ap-south-1").DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		wantErr(t, err, "ResourceNotFoundException")
		_, err = regionClient(tg, "eu-west-1").DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		noErr(t, err, "DeleteTable of the eu-west-1 replica")
		d, err := east.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		if len(d.Table.Replicas) != 0 {
			t.Errorf("Replicas %s after both replicas were deleted, want none", show(d.Table.Replicas))
		}
	})
}

func TestGlobalTableReplicaPreconditions(t *testing.T) {
	doc(t, pageGTUpdateTable, "A replica cannot be created where a table of the same name exists; MREC replication needs a stream with new and old images")
	globalEngine(t, []string{"us-east-1", "eu-west-1"}, func(t *testing.T, tg *target) {
		east, west := regionClient(tg, "us-east-1"), regionClient(tg, "eu-west-1")
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(tableName(t))
		_, err := east.CreateTable(ctx(t), in)
		noErr(t, err, "CreateTable")
		create := &dynamodb.UpdateTableInput{TableName: in.TableName,
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}
		_, err = east.UpdateTable(ctx(t), create)
		wantValidation(t, err, "NEW_AND_OLD_IMAGES")
		_, err = east.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: in.TableName,
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
		noErr(t, err, "UpdateTable StreamSpecification")
		_, err = west.CreateTable(ctx(t), in)
		noErr(t, err, "CreateTable in eu-west-1")
		_, err = east.UpdateTable(ctx(t), create)
		wantValidation(t, err, "because one or more replicas already existed as tables")
	})
}

func TestGlobalTableStrongConsistency(t *testing.T) {
	doc(t, pageMRSC, "An MRSC global table is created from an empty table with exactly three Regions of one Region set (or two replicas and a witness); a write is acknowledged once replicated, so a strongly consistent read in any Region returns it")
	doc(t, pageRWCE, "The request was rejected because one or more items in the request are being modified by a request in another Region.")
	globalEngine(t, []string{"us-east-1", "us-east-2", "us-west-2"}, func(t *testing.T, tg *target) {
		e1 := regionClient(tg, "us-east-1")
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(tableName(t))
		_, err := e1.CreateTable(ctx(t), in)
		noErr(t, err, "CreateTable")
		_, err = e1.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: in.TableName, MultiRegionConsistency: types.MultiRegionConsistencyStrong,
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}}}})
		wantValidation(t, err, "three Regions")
		_, err = e1.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: in.TableName, MultiRegionConsistency: types.MultiRegionConsistencyStrong,
			ReplicaUpdates:            []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}}},
			GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-west-2")}}}})
		noErr(t, err, "UpdateTable STRONG with a witness")
		_, err = e1.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: in.TableName, Item: item{"pk": s("k"), "v": n("1")}})
		noErr(t, err, "PutItem in us-east-1")
		got, err := regionClient(tg, "us-east-2").GetItem(ctx(t), &dynamodb.GetItemInput{TableName: in.TableName, Key: item{"pk": s("k")}, ConsistentRead: aws.Bool(true)})
		noErr(t, err, "GetItem in us-east-2")
		wantItem(t, got.Item, item{"pk": s("k"), "v": n("1")})
	})
}

func TestGlobalTableLegacyOperations(t *testing.T) {
	doc(t, pageGTVersion, "describe-global-table on a table that is not a version 2017.11.29 (Legacy) replica returns GlobalTableNotFoundException")
	globalEngine(t, []string{"us-east-1", "eu-west-1"}, func(t *testing.T, tg *target) {
		east := regionClient(tg, "us-east-1")
		name := globalTable(t, tg, east, "eu-west-1")
		_, err := east.DescribeGlobalTable(ctx(t), &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String(name)})
		wantErr(t, err, "GlobalTableNotFoundException")
		lg, err := east.ListGlobalTables(ctx(t), &dynamodb.ListGlobalTablesInput{})
		noErr(t, err, "ListGlobalTables")
		if len(lg.GlobalTables) != 0 {
			t.Errorf("ListGlobalTables = %s, want no legacy global tables", show(lg.GlobalTables))
		}
	})
}

// The wording of these two refusals is DynamoDB's answer as users quote
// it (aws/aws-cli#4906 for the local Region; terraform-aws-modules/
// terraform-aws-dynamodb-table#30 and hashicorp/terraform-provider-aws#20019
// for the stream); the pages document the rules.
func TestGlobalTableReplicaUpdateMessages(t *testing.T) {
	doc(t, pageGTUpdateTable, "ReplicaUpdates adds, updates or deletes replicas in other Regions; the table's own Region is changed with CreateTable, UpdateTable or DeleteTable")
	doc(t, pageGTHowItWorks, "Replicas of an MREC global table replicate through DynamoDB Streams, which must stay enabled with new and old images")
	globalEngine(t, []string{"us-east-1", "eu-west-1"}, func(t *testing.T, tg *target) {
		east := regionClient(tg, "us-east-1")
		name := globalTable(t, tg, east, "eu-west-1")
		for _, u := range []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-1")}},
			{Update: &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("us-east-1")}},
			{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("us-east-1")}},
		} {
			_, err := east.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), ReplicaUpdates: []types.ReplicationGroupUpdate{u}})
			wantValidation(t, err, "Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
		}
		for _, region := range []string{"us-east-1", "eu-west-1"} {
			_, err := regionClient(tg, region).UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
			wantValidation(t, err, "One or more parameter values were invalid: Disabling Stream is not allowed for a Global Table replica.")
		}
		d, err := east.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		if d.Table.StreamSpecification == nil || !aws.ToBool(d.Table.StreamSpecification.StreamEnabled) || len(d.Table.Replicas) != 1 {
			t.Errorf("after the refusals: stream %s, replicas %s; want the stream and one replica unchanged", show(d.Table.StreamSpecification), show(d.Table.Replicas))
		}
	})
}
