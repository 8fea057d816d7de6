package conformance_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const pageResourcePolicy = "PutResourcePolicy / GetResourcePolicy / DeleteResourcePolicy (DynamoDB API Reference); Using resource-based policies for DynamoDB (Developer Guide)"

func policyDoc(arn, action string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"` + action + `","Resource":"` + arn + `"}]}`
}

// TestResourcePolicyRevisions: a policy attached to a table or stream has a
// revision id; the same document again keeps it ("PutResourcePolicy is an
// idempotent operation"); ExpectedRevisionId makes a change conditional
// (NO_POLICY: only when there is none) and a mismatch is
// PolicyNotFoundException; GetResourcePolicy and DeleteResourcePolicy on a
// resource without a policy are PolicyNotFoundException.
func TestResourcePolicyRevisions(t *testing.T) {
	doc(t, pageResourcePolicy, `"running it multiple times on the same resource using the same policy document will return the same revision ID. If you specify an ExpectedRevisionId that doesn't match the current policy's RevisionId, the PolicyNotFoundException will be returned"; "To conditionally attach a policy when no policy exists for the resource, specify NO_POLICY for the revision ID"; resources are tables and streams`)
	each(t, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
		name := createTable(t, tg, in)
		desc, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		tableARN, streamARN := *desc.Table.TableArn, *desc.Table.LatestStreamArn

		for _, arn := range []string{tableARN, streamARN} {
			_, err := tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
			wantErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+arn)
		}
		first := policyDoc(tableARN, "dynamodb:GetItem")
		p1, err := tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(tableARN), Policy: aws.String(first), ExpectedRevisionId: aws.String("NO_POLICY")})
		noErr(t, err, "PutResourcePolicy NO_POLICY")
		if aws.ToString(p1.RevisionId) == "" {
			t.Fatal("PutResourcePolicy returned no RevisionId")
		}
		again, err := tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(tableARN), Policy: aws.String(first)})
		noErr(t, err, "PutResourcePolicy again")
		if aws.ToString(again.RevisionId) != aws.ToString(p1.RevisionId) {
			t.Errorf("the same document got revision %s, want %s", aws.ToString(again.RevisionId), aws.ToString(p1.RevisionId))
		}
		_, err = tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(tableARN), Policy: aws.String(first), ExpectedRevisionId: aws.String("NO_POLICY")})
		wantErr(t, err, "PolicyNotFoundException", "expecting none to be present", aws.ToString(p1.RevisionId))
		second := policyDoc(tableARN, "dynamodb:Query")
		_, err = tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(tableARN), Policy: aws.String(second), ExpectedRevisionId: aws.String("123")})
		wantErr(t, err, "PolicyNotFoundException", "revision id 123", aws.ToString(p1.RevisionId))
		p2, err := tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(tableARN), Policy: aws.String(second), ExpectedRevisionId: p1.RevisionId})
		noErr(t, err, "PutResourcePolicy expecting the current revision")
		if aws.ToString(p2.RevisionId) == aws.ToString(p1.RevisionId) {
			t.Errorf("a new document kept revision %s", aws.ToString(p1.RevisionId))
		}
		got, err := tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(tableARN)})
		noErr(t, err, "GetResourcePolicy")
		if aws.ToString(got.Policy) != second || aws.ToString(got.RevisionId) != aws.ToString(p2.RevisionId) {
			t.Errorf("GetResourcePolicy = %s %s, want the second document at %s", aws.ToString(got.RevisionId), aws.ToString(got.Policy), aws.ToString(p2.RevisionId))
		}
		// The stream has a policy of its own.
		_, err = tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(streamARN)})
		wantErr(t, err, "PolicyNotFoundException")
		sp, err := tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(streamARN), Policy: aws.String(policyDoc(streamARN, "dynamodb:GetRecords"))})
		noErr(t, err, "PutResourcePolicy on the stream")

		_, err = tg.client.DeleteResourcePolicy(ctx(t), &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(tableARN), ExpectedRevisionId: p1.RevisionId})
		wantErr(t, err, "PolicyNotFoundException")
		del, err := tg.client.DeleteResourcePolicy(ctx(t), &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(tableARN), ExpectedRevisionId: p2.RevisionId})
		noErr(t, err, "DeleteResourcePolicy")
		if aws.ToString(del.RevisionId) != aws.ToString(p2.RevisionId) {
			t.Errorf("DeleteResourcePolicy RevisionId = %s, want %s", aws.ToString(del.RevisionId), aws.ToString(p2.RevisionId))
		}
		_, err = tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(tableARN)})
		wantErr(t, err, "PolicyNotFoundException")
		_, err = tg.client.DeleteResourcePolicy(ctx(t), &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(tableARN)})
		wantErr(t, err, "PolicyNotFoundException")
		sg, err := tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(streamARN)})
		noErr(t, err, "GetResourcePolicy on the stream")
		if aws.ToString(sg.RevisionId) != aws.ToString(sp.RevisionId) {
			t.Errorf("the stream's revision = %s, want %s", aws.ToString(sg.RevisionId), aws.ToString(sp.RevisionId))
		}
	})
}

// TestResourcePolicyResources: only table and stream ARNs of the caller's
// account take a policy; an ARN of a table that does not exist is
// ResourceNotFoundException; a malformed ARN, an index ARN or a backup ARN
// is a ValidationException; a document over 20 KB is refused. CreateTable's
// ResourcePolicy attaches the policy with the table, and DeleteTable takes
// it with the table.
func TestResourcePolicyResources(t *testing.T) {
	doc(t, pageResourcePolicy, `ResourceArn: "The resources you can specify include tables and streams"; Policy: "The maximum size supported for a resource-based policy document is 20 KB. DynamoDB counts whitespaces"; ResourceNotFoundException: "The operation tried to access a nonexistent table or index"; CreateTable ResourcePolicy: "A resource-based policy document that contains permissions to add to the specified table"`)
	each(t, func(t *testing.T, tg *target) {
		name := tableName(t)
		arnPrefix := "arn:aws:dynamodb:" + tg.region + ":"
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(name)
		// The table's ARN is known only once it exists; the policy names
		// its resource by a wildcard of the table name.
		created := policyDoc("*", "dynamodb:GetItem")
		in.ResourcePolicy = aws.String(created)
		createTable(t, tg, in)
		desc, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		arn := *desc.Table.TableArn
		got, err := tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
		noErr(t, err, "GetResourcePolicy of CreateTable's policy")
		if aws.ToString(got.Policy) != created || aws.ToString(got.RevisionId) == "" {
			t.Errorf("CreateTable's policy = %s at %q, want %s", aws.ToString(got.Policy), aws.ToString(got.RevisionId), created)
		}
		account := strings.Split(arn, ":")[4]

		for _, c := range []struct {
			name, arn, code, msg string
		}{
			{"bare name", name, "ValidationException", "ARNs must start with 'arn:'"},
			{"missing table", arnPrefix + account + ":table/conf-no-such-policy-table", "ResourceNotFoundException", "Requested resource not found: Table: conf-no-such-policy-table not found"},
			{"index", arn + "/index/byX", "ValidationException", "only table or stream is accepted"},
			{"backup", arn + "/backup/01700000000000-abcdefgh", "ValidationException", "Provided Arn is not a DynamoDB resource"},
			{"unknown stream", arn + "/stream/2000-01-01T00:00:00.000", "ResourceNotFoundException", "Stream: 2000-01-01T00:00:00.000 not found for Table: " + name},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(c.arn)})
				wantErr(t, err, c.code, c.msg)
				_, err = tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(c.arn), Policy: aws.String(policyDoc(c.arn, "dynamodb:GetItem"))})
				wantErr(t, err, c.code, c.msg)
			})
		}
		big := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"` + arn + `","Sid":"` + strings.Repeat("x", 21*1024) + `"}]}`
		_, err = tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(big)})
		if err == nil {
			t.Error("a 21 KB policy was accepted")
		}
		_, err = tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String("not json")})
		wantValidation(t, err, "Invalid policy document")

		_, err = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		noErr(t, err, "DeleteTable")
		if tg.external() {
			waitTable(t, tg, name, false)
		}
		_, err = tg.client.GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
		wantErr(t, err, "ResourceNotFoundException", "Table: "+name+" not found")
	})
}

// TestResourcePolicyPersists: a policy is part of the table's definition and
// survives a restart with Options.Dir.
func TestResourcePolicyPersists(t *testing.T) {
	doc(t, pageResourcePolicy, `a resource-based policy stays attached to its table until it is deleted`)
	dir := t.TempDir()
	e := ddblocal.New(func(o *ddblocal.Options) { o.Dir = dir })
	tg := &target{name: "persist", engine: e, client: e.Client(clientOptions)}
	name := createTable(t, tg, tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil))
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
	put, err := tg.client.PutResourcePolicy(ctx(t), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(policyDoc(arn, "dynamodb:GetItem"))})
	noErr(t, err, "PutResourcePolicy")
	noErr(t, e.Close(), "Close")
	e2 := ddblocal.New(func(o *ddblocal.Options) { o.Dir = dir })
	defer e2.Close()
	got, err := e2.Client(clientOptions).GetResourcePolicy(ctx(t), &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	noErr(t, err, "GetResourcePolicy after a restart")
	if aws.ToString(got.RevisionId) != aws.ToString(put.RevisionId) {
		t.Errorf("revision after a restart = %s, want %s", aws.ToString(got.RevisionId), aws.ToString(put.RevisionId))
	}
}

const pageTableStatus = "TableDescription TableStatus (DynamoDB API Reference); DynamoDB local usage notes, -delayTransientStatuses (Developer Guide)"

// TestTransientStatuses: with Options.TransientStatusDelay a new table is
// CREATING (not found by data operations, not deleted or updated) until the
// delay has passed, an updated table UPDATING, a deleted one DELETING (its
// name not yet free); then ACTIVE, or gone.
func TestTransientStatuses(t *testing.T) {
	doc(t, pageTableStatus, `TableStatus: CREATING - The table is being created. UPDATING - The table/index configuration is being updated. DELETING - The table is being deleted. ACTIVE - The table is ready for use. ResourceNotFoundException: "its status might not be ACTIVE"; ResourceInUseException: "you attempted to recreate an existing table, or tried to delete a table currently in the CREATING state"`)
	clock := newFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option(), func(o *ddblocal.Options) { o.TransientStatusDelay = 5 * time.Second }}, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.TableName = aws.String(tableName(t))
		out, err := tg.client.CreateTable(ctx(t), in)
		noErr(t, err, "CreateTable")
		status := func() types.TableStatus {
			d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: in.TableName})
			noErr(t, err, "DescribeTable")
			return d.Table.TableStatus
		}
		if out.TableDescription.TableStatus != types.TableStatusCreating || status() != types.TableStatusCreating {
			t.Errorf("a new table is %s / %s, want CREATING", out.TableDescription.TableStatus, status())
		}
		_, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: in.TableName, Item: item{"pk": s("a")}})
		wantErr(t, err, "ResourceNotFoundException")
		// "tried to delete a table currently in the CREATING state"
		_, err = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: in.TableName})
		wantErr(t, err, "ResourceInUseException", "being created")
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: in.TableName, DeletionProtectionEnabled: aws.Bool(false)})
		wantErr(t, err, "ResourceInUseException", "being created")
		clock.Advance(5 * time.Second)
		if st := status(); st != types.TableStatusActive {
			t.Errorf("after the delay the table is %s, want ACTIVE", st)
		}
		put(t, tg, *in.TableName, item{"pk": s("a")})
		u, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: in.TableName, DeletionProtectionEnabled: aws.Bool(false)})
		noErr(t, err, "UpdateTable")
		if u.TableDescription.TableStatus != types.TableStatusUpdating || status() != types.TableStatusUpdating {
			t.Errorf("an updated table is %s / %s, want UPDATING", u.TableDescription.TableStatus, status())
		}
		put(t, tg, *in.TableName, item{"pk": s("b")}) // an UPDATING table serves data
		clock.Advance(5 * time.Second)
		if st := status(); st != types.TableStatusActive {
			t.Errorf("after the update's delay the table is %s, want ACTIVE", st)
		}
		_, err = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: in.TableName})
		noErr(t, err, "DeleteTable")
		if st := status(); st != types.TableStatusDeleting {
			t.Errorf("a deleted table is described as %s, want DELETING", st)
		}
		_, err = tg.client.CreateTable(ctx(t), in)
		wantErr(t, err, "ResourceInUseException", "being deleted")
		clock.Advance(5 * time.Second)
		_, err = tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: in.TableName})
		wantErr(t, err, "ResourceNotFoundException")
	})
}
