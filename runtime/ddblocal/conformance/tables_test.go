package conformance_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageCreateTable = "CreateTable (DynamoDB API Reference)"
	pageDescribe    = "DescribeTable (DynamoDB API Reference)"
	pageListTables  = "ListTables (DynamoDB API Reference)"
	pageDeleteTable = "DeleteTable (DynamoDB API Reference)"
	pageUpdateTable = "UpdateTable (DynamoDB API Reference)"
	pageTTLAPI      = "UpdateTimeToLive / DescribeTimeToLive (DynamoDB API Reference)"
	pageBackups     = "UpdateContinuousBackups / DescribeContinuousBackups (DynamoDB API Reference)"
)

func describe(t *testing.T, tg *target, table string) *types.TableDescription {
	t.Helper()
	out, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	noErr(t, err, "DescribeTable "+table)
	return out.Table
}

func TestCreateTableKeyTypes(t *testing.T) {
	doc(t, pageCreateTable, `AttributeType: S - the attribute is of type String; N - Number; B - Binary. KeySchema: HASH is the partition key, RANGE the sort key. DescribeTable: TableStatus ACTIVE - the table is ready for use`)
	combos := []struct {
		name      string
		hash      types.ScalarAttributeType
		rng       types.ScalarAttributeType
		hashValue types.AttributeValue
		rngValue  types.AttributeValue
	}{
		{"S hash", types.ScalarAttributeTypeS, "", s("a"), nil},
		{"N hash", types.ScalarAttributeTypeN, "", n("12.5"), nil},
		{"B hash", types.ScalarAttributeTypeB, "", b([]byte{0, 1, 2}), nil},
		{"S hash N range", types.ScalarAttributeTypeS, types.ScalarAttributeTypeN, s("a"), n("-3")},
		{"N hash B range", types.ScalarAttributeTypeN, types.ScalarAttributeTypeB, n("7"), b([]byte{0xff})},
		{"B hash S range", types.ScalarAttributeTypeB, types.ScalarAttributeTypeS, b([]byte("k")), s("z")},
	}
	for _, c := range combos {
		t.Run(c.name, func(t *testing.T) {
			each(t, func(t *testing.T, tg *target) {
				var rng *keyDef
				if c.rng != "" {
					rng = &keyDef{"rk", c.rng}
				}
				table := createTable(t, tg, tableInput(keyDef{"hk", c.hash}, rng))
				d := describe(t, tg, table)
				if d.TableStatus != types.TableStatusActive {
					t.Errorf("TableStatus = %q, want ACTIVE", d.TableStatus)
				}
				if aws.ToString(d.TableName) != table {
					t.Errorf("TableName = %q, want %q", aws.ToString(d.TableName), table)
				}
				if !strings.HasSuffix(aws.ToString(d.TableArn), ":table/"+table) || !strings.HasPrefix(aws.ToString(d.TableArn), "arn:aws:dynamodb:") {
					t.Errorf("TableArn = %q, want arn:aws:dynamodb:<region>:<account>:table/%s", aws.ToString(d.TableArn), table)
				}
				if d.CreationDateTime == nil {
					t.Errorf("CreationDateTime is not set")
				}
				wantKeys := 1
				if rng != nil {
					wantKeys = 2
				}
				if len(d.KeySchema) != wantKeys || aws.ToString(d.KeySchema[0].AttributeName) != "hk" || d.KeySchema[0].KeyType != types.KeyTypeHash {
					t.Errorf("KeySchema = %+v, want hk HASH first", d.KeySchema)
				}
				for _, ad := range d.AttributeDefinitions {
					want := c.hash
					if aws.ToString(ad.AttributeName) == "rk" {
						want = c.rng
					}
					if ad.AttributeType != want {
						t.Errorf("AttributeDefinition %s = %s, want %s", aws.ToString(ad.AttributeName), ad.AttributeType, want)
					}
				}
				key := item{"hk": c.hashValue}
				if rng != nil {
					key["rk"] = c.rngValue
				}
				it := item{"v": s("payload")}
				for k, v := range key {
					it[k] = v
				}
				put(t, tg, table, it)
				wantItem(t, get(t, tg, table, key), it)
			})
		})
	}
}

func TestCreateTableBillingModes(t *testing.T) {
	doc(t, pageCreateTable, `BillingMode: PROVISIONED - for predictable workloads (default); PAY_PER_REQUEST - on-demand. If you set BillingMode as PROVISIONED, you must specify ProvisionedThroughput. DescribeTable returns BillingModeSummary and ProvisionedThroughput`)
	each(t, func(t *testing.T, tg *target) {
		t.Run("PAY_PER_REQUEST", func(t *testing.T) {
			table := hashTable(t, tg)
			d := describe(t, tg, table)
			if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
				t.Errorf("BillingModeSummary = %+v, want PAY_PER_REQUEST", d.BillingModeSummary)
			}
		})
		t.Run("PROVISIONED", func(t *testing.T) {
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
			in.BillingMode = types.BillingModeProvisioned
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(3)}
			table := createTable(t, tg, in)
			d := describe(t, tg, table)
			if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
				t.Errorf("BillingModeSummary = %+v, want PROVISIONED or absent", d.BillingModeSummary)
			}
			pt := d.ProvisionedThroughput
			if pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 7 || aws.ToInt64(pt.WriteCapacityUnits) != 3 {
				t.Errorf("ProvisionedThroughput = %+v, want 7 read / 3 write", pt)
			}
		})
		t.Run("PROVISIONED without throughput", func(t *testing.T) {
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
			in.TableName = aws.String(tableName(t))
			in.BillingMode = types.BillingModeProvisioned
			_, err := tg.client.CreateTable(ctx(t), in)
			wantValidation(t, err, "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
		})
		t.Run("PAY_PER_REQUEST with throughput", func(t *testing.T) {
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
			in.TableName = aws.String(tableName(t))
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
			_, err := tg.client.CreateTable(ctx(t), in)
			wantValidation(t, err, "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		})
	})
}

func TestCreateTableIndexes(t *testing.T) {
	doc(t, pageCreateTable, `GlobalSecondaryIndexes / LocalSecondaryIndexes: Projection ProjectionType KEYS_ONLY - only the index and primary keys are projected; INCLUDE - only the specified table attributes (NonKeyAttributes) are projected; ALL - all of the table attributes are projected. A local secondary index has the same partition key as the table`)
	each(t, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, &keyDef{"sk", types.ScalarAttributeTypeS})
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String("g1"), AttributeType: types.ScalarAttributeTypeS},
			types.AttributeDefinition{AttributeName: aws.String("g2"), AttributeType: types.ScalarAttributeTypeN},
			types.AttributeDefinition{AttributeName: aws.String("g3"), AttributeType: types.ScalarAttributeTypeB},
			types.AttributeDefinition{AttributeName: aws.String("l1"), AttributeType: types.ScalarAttributeTypeN},
		)
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{
			{IndexName: aws.String("all"), KeySchema: hashRange("g1", "sk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("keys"), KeySchema: hashOnly("g2"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("incl"), KeySchema: hashRange("g3", "g1"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x"}}},
		}
		in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{
			{IndexName: aws.String("lsi"), KeySchema: hashRange("pk", "l1"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"y"}}},
		}
		table := createTable(t, tg, in)
		d := waitIndexesActive(t, tg, table)
		got := map[string]types.GlobalSecondaryIndexDescription{}
		for _, g := range d.GlobalSecondaryIndexes {
			got[aws.ToString(g.IndexName)] = g
		}
		for _, want := range in.GlobalSecondaryIndexes {
			g, ok := got[aws.ToString(want.IndexName)]
			if !ok {
				t.Errorf("GSI %s missing from DescribeTable", aws.ToString(want.IndexName))
				continue
			}
			if g.IndexStatus != types.IndexStatusActive {
				t.Errorf("GSI %s IndexStatus = %q, want ACTIVE", aws.ToString(g.IndexName), g.IndexStatus)
			}
			if g.Projection == nil || g.Projection.ProjectionType != want.Projection.ProjectionType || !slices.Equal(g.Projection.NonKeyAttributes, want.Projection.NonKeyAttributes) {
				t.Errorf("GSI %s Projection = %+v, want %+v", aws.ToString(g.IndexName), g.Projection, want.Projection)
			}
			if !strings.HasSuffix(aws.ToString(g.IndexArn), "/index/"+aws.ToString(want.IndexName)) {
				t.Errorf("GSI %s IndexArn = %q", aws.ToString(g.IndexName), aws.ToString(g.IndexArn))
			}
			if len(g.KeySchema) != len(want.KeySchema) || aws.ToString(g.KeySchema[0].AttributeName) != aws.ToString(want.KeySchema[0].AttributeName) {
				t.Errorf("GSI %s KeySchema = %+v", aws.ToString(g.IndexName), g.KeySchema)
			}
		}
		if len(d.LocalSecondaryIndexes) != 1 || aws.ToString(d.LocalSecondaryIndexes[0].IndexName) != "lsi" {
			t.Fatalf("LocalSecondaryIndexes = %+v, want lsi", d.LocalSecondaryIndexes)
		}
		lp := d.LocalSecondaryIndexes[0].Projection
		if lp == nil || lp.ProjectionType != types.ProjectionTypeInclude || !slices.Equal(lp.NonKeyAttributes, []string{"y"}) {
			t.Errorf("LSI projection = %+v, want INCLUDE [y]", lp)
		}

		// Each projection copies exactly what it promises.
		put(t, tg, table, item{"pk": s("p"), "sk": s("s"), "g1": s("G"), "g2": n("2"), "g3": b([]byte{3}), "l1": n("1"), "x": s("X"), "y": s("Y"), "z": s("Z")})
		check := func(index string, kc string, vals item, want item) {
			t.Helper()
			out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{
				TableName: aws.String(table), IndexName: aws.String(index),
				KeyConditionExpression: aws.String(kc), ExpressionAttributeValues: vals,
			})
			noErr(t, err, "Query "+index)
			if len(out.Items) != 1 {
				t.Fatalf("Query %s returned %d items, want 1", index, len(out.Items))
			}
			wantItem(t, out.Items[0], want)
		}
		check("all", "g1 = :v", item{":v": s("G")}, item{"pk": s("p"), "sk": s("s"), "g1": s("G"), "g2": n("2"), "g3": b([]byte{3}), "l1": n("1"), "x": s("X"), "y": s("Y"), "z": s("Z")})
		check("keys", "g2 = :v", item{":v": n("2")}, item{"pk": s("p"), "sk": s("s"), "g2": n("2")})
		check("incl", "g3 = :v", item{":v": b([]byte{3})}, item{"pk": s("p"), "sk": s("s"), "g3": b([]byte{3}), "g1": s("G"), "x": s("X")})
		check("lsi", "pk = :v", item{":v": s("p")}, item{"pk": s("p"), "sk": s("s"), "l1": n("1"), "y": s("Y")})
	})
}

func hashOnly(h string) []types.KeySchemaElement {
	return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}}
}

func hashRange(h, r string) []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(h), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(r), KeyType: types.KeyTypeRange},
	}
}

// waitIndexesActive returns the description once every GSI is ACTIVE.
func waitIndexesActive(t *testing.T, tg *target, table string) *types.TableDescription {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		d := describe(t, tg, table)
		ready := d.TableStatus == types.TableStatusActive
		for _, g := range d.GlobalSecondaryIndexes {
			if g.IndexStatus != types.IndexStatusActive {
				ready = false
			}
		}
		if ready || !tg.external() || time.Now().After(deadline) {
			return d
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func TestCreateTableErrors(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		t.Run("duplicate", func(t *testing.T) {
			doc(t, pageCreateTable, `ResourceInUseException: The operation conflicts with the resource's availability. For example: You attempted to recreate an existing table.`)
			table := hashTable(t, tg)
			_, err := tg.client.CreateTable(ctx(t), tableInputNamed(table))
			var riu *types.ResourceInUseException
			if !errors.As(err, &riu) {
				t.Fatalf("got %v, want *types.ResourceInUseException", err)
			}
			wantErr(t, err, "ResourceInUseException", "Table already exists: "+table)
		})
		t.Run("key not in AttributeDefinitions", func(t *testing.T) {
			doc(t, pageCreateTable, `AttributeDefinitions: An array of attributes that describe the key schema for the table and indexes.`)
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
			in.TableName = aws.String(tableName(t))
			in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
			_, err := tg.client.CreateTable(ctx(t), in)
			wantValidation(t, err, "Some index key attributes are not defined in AttributeDefinitions")
		})
		t.Run("unused AttributeDefinition", func(t *testing.T) {
			doc(t, pageCreateTable, `AttributeDefinitions describe the key schema for the table and indexes; every definition must be used by a key`)
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
			in.TableName = aws.String(tableName(t))
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("extra"), AttributeType: types.ScalarAttributeTypeS})
			_, err := tg.client.CreateTable(ctx(t), in)
			wantValidation(t, err, "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		})
	})
}

func tableInputNamed(name string) *dynamodb.CreateTableInput {
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
	in.TableName = aws.String(name)
	return in
}

func TestDescribeTableCounts(t *testing.T) {
	doc(t, pageDescribe, `ItemCount: The number of items in the specified table. TableSizeBytes: The total size of the specified table, in bytes. (DynamoDB updates these approximately every six hours; the embedded engine reports them exactly, and a new table reports 0.)`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		d := describe(t, tg, table)
		if aws.ToInt64(d.ItemCount) != 0 || aws.ToInt64(d.TableSizeBytes) != 0 {
			t.Errorf("new table: ItemCount %d, TableSizeBytes %d, want 0 and 0", aws.ToInt64(d.ItemCount), aws.ToInt64(d.TableSizeBytes))
		}
		if tg.external() {
			return // AWS refreshes the counts every six hours
		}
		put(t, tg, table, item{"pk": s("a")})
		put(t, tg, table, item{"pk": s("b"), "x": s("123")})
		d = describe(t, tg, table)
		if aws.ToInt64(d.ItemCount) != 2 {
			t.Errorf("ItemCount = %d, want 2", aws.ToInt64(d.ItemCount))
		}
		// Sizes by the documented rule: name length plus value length.
		if want := int64((2 + 1) + (2 + 1) + (1 + 3)); aws.ToInt64(d.TableSizeBytes) != want {
			t.Errorf("TableSizeBytes = %d, want %d", aws.ToInt64(d.TableSizeBytes), want)
		}
	})
}

func TestDescribeTableMissing(t *testing.T) {
	doc(t, pageDescribe, `ResourceNotFoundException: The operation tried to access a nonexistent table or index. (Error handling: message "Requested resource not found: Table: tablename not found")`)
	each(t, func(t *testing.T, tg *target) {
		name := tableName(t)
		_, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		wantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
	})
}

func TestListTablesPagination(t *testing.T) {
	doc(t, pageListTables, `Limit: A maximum number of table names to return (1-100). LastEvaluatedTableName: The name of the last table in the current page of results. Use this value as the ExclusiveStartTableName in a new request to obtain the next page of results, until all the table names are returned. If you do not receive a LastEvaluatedTableName value in the response, this means that there are no more table names to be retrieved.`)
	each(t, func(t *testing.T, tg *target) {
		var made []string
		for range 3 {
			made = append(made, hashTable(t, tg))
		}
		var all []string
		var start *string
		for pages := 0; ; pages++ {
			if pages > 10000 {
				t.Fatalf("ListTables never stopped paginating")
			}
			out, err := tg.client.ListTables(ctx(t), &dynamodb.ListTablesInput{Limit: aws.Int32(2), ExclusiveStartTableName: start})
			noErr(t, err, "ListTables")
			if len(out.TableNames) > 2 {
				t.Fatalf("page of %d names with Limit 2", len(out.TableNames))
			}
			all = append(all, out.TableNames...)
			if out.LastEvaluatedTableName == nil {
				break
			}
			if len(out.TableNames) == 0 || *out.LastEvaluatedTableName != out.TableNames[len(out.TableNames)-1] {
				t.Fatalf("LastEvaluatedTableName %q is not the last name of page %q", *out.LastEvaluatedTableName, out.TableNames)
			}
			start = out.LastEvaluatedTableName
		}
		for _, name := range made {
			if c := countOf(all, name); c != 1 {
				t.Errorf("table %s listed %d times across pages, want once", name, c)
			}
		}
		if !slices.IsSorted(all) {
			t.Errorf("table names are not in ascending order: %q", all)
		}
	})
	t.Run("limit over 100", func(t *testing.T) {
		doc(t, pageListTables, `Limit: Valid Range: Minimum value of 1. Maximum value of 100.`)
		each(t, func(t *testing.T, tg *target) {
			_, err := tg.client.ListTables(ctx(t), &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
			wantValidation(t, err, "Member must have value less than or equal to 100")
		})
	})
}

func countOf(list []string, v string) int {
	c := 0
	for _, x := range list {
		if x == v {
			c++
		}
	}
	return c
}

func TestDeleteTable(t *testing.T) {
	doc(t, pageDeleteTable, `The DeleteTable operation deletes a table and all of its items. After a DeleteTable request, the specified table is in the DELETING state until DynamoDB completes the deletion. If the table does not exist, DynamoDB returns a ResourceNotFoundException.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, item{"pk": s("a")})
		out, err := tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		noErr(t, err, "DeleteTable")
		if out.TableDescription == nil || aws.ToString(out.TableDescription.TableName) != table {
			t.Errorf("DeleteTable TableDescription = %+v, want the deleted table", out.TableDescription)
		} else if st := out.TableDescription.TableStatus; st != types.TableStatusDeleting && st != types.TableStatusActive {
			t.Errorf("DeleteTable TableStatus = %q, want DELETING", st)
		}
		if tg.external() {
			waitTable(t, tg, table, false)
		}
		_, err = tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		wantErr(t, err, "ResourceNotFoundException")
		_, err = tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}})
		wantErr(t, err, "ResourceNotFoundException")
		_, err = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		wantErr(t, err, "ResourceNotFoundException")

		// The name is free again and the new table starts empty.
		if _, err := tg.client.CreateTable(ctx(t), tableInputNamed(table)); err != nil {
			t.Fatalf("re-create %s: %v", table, err)
		}
		if tg.external() {
			waitTable(t, tg, table, true)
		}
		if it := get(t, tg, table, item{"pk": s("a")}); it != nil {
			t.Errorf("re-created table still holds %s", show(it))
		}
	})
}

func TestUpdateTableGSI(t *testing.T) {
	doc(t, pageUpdateTable, `GlobalSecondaryIndexUpdates: Create - a new global secondary index to be added to an existing table; Delete - an existing global secondary index to be removed. (Managing GSIs: when you add a global secondary index to an existing table, DynamoDB backfills it with the existing items that carry the index key attributes.)`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		for i, g := range []string{"red", "red", "blue", ""} {
			it := item{"pk": s("p"), "sk": s(string(rune('a' + i))), "n": n("1")}
			if g != "" {
				it["color"] = s(g)
			}
			put(t, tg, table, it)
		}
		_, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("color"), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("byColor"), KeySchema: hashRange("color", "sk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}}},
		})
		noErr(t, err, "UpdateTable create GSI")
		d := waitIndexesActive(t, tg, table)
		if len(d.GlobalSecondaryIndexes) != 1 || aws.ToString(d.GlobalSecondaryIndexes[0].IndexName) != "byColor" {
			t.Fatalf("GlobalSecondaryIndexes = %+v, want byColor", d.GlobalSecondaryIndexes)
		}
		out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{
			TableName: aws.String(table), IndexName: aws.String("byColor"),
			KeyConditionExpression:    aws.String("color = :c"),
			ExpressionAttributeValues: item{":c": s("red")},
		})
		noErr(t, err, "Query backfilled index")
		if len(out.Items) != 2 {
			t.Errorf("backfilled index returned %d red items, want 2: %s", len(out.Items), show(out.Items))
		}
		// Writes after the backfill are indexed too.
		put(t, tg, table, item{"pk": s("q"), "sk": s("z"), "color": s("red")})
		out, err = tg.client.Query(ctx(t), &dynamodb.QueryInput{
			TableName: aws.String(table), IndexName: aws.String("byColor"),
			KeyConditionExpression:    aws.String("color = :c"),
			ExpressionAttributeValues: item{":c": s("red")},
		})
		noErr(t, err, "Query index")
		if len(out.Items) != 3 {
			t.Errorf("index returned %d red items after a new write, want 3", len(out.Items))
		}

		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{
			TableName:                   aws.String(table),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byColor")}}},
		})
		noErr(t, err, "UpdateTable delete GSI")
		if tg.external() {
			for i := 0; i < 1000 && len(describe(t, tg, table).GlobalSecondaryIndexes) > 0; i++ {
				time.Sleep(300 * time.Millisecond)
			}
		}
		if g := describe(t, tg, table).GlobalSecondaryIndexes; len(g) != 0 {
			t.Errorf("GlobalSecondaryIndexes after delete = %+v, want none", g)
		}
		_, err = tg.client.Query(ctx(t), &dynamodb.QueryInput{
			TableName: aws.String(table), IndexName: aws.String("byColor"),
			KeyConditionExpression:    aws.String("color = :c"),
			ExpressionAttributeValues: item{":c": s("red")},
		})
		wantValidation(t, err, "The table does not have the specified index: byColor")
	})
}

func TestUpdateTableBillingMode(t *testing.T) {
	doc(t, pageUpdateTable, `BillingMode: Controls how you are charged for read and write throughput; ProvisionedThroughput: The new provisioned throughput settings for the specified table or index.`)
	each(t, func(t *testing.T, tg *target) {
		if tg.external() {
			t.Skip("AWS allows one billing-mode switch per 24 hours; not exercised against a real account")
		}
		table := hashTable(t, tg)
		out, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{
			TableName:             aws.String(table),
			BillingMode:           types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(4), WriteCapacityUnits: aws.Int64(2)},
		})
		noErr(t, err, "UpdateTable")
		if out.TableDescription == nil {
			t.Fatalf("UpdateTable returned no TableDescription")
		}
		d := describe(t, tg, table)
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Errorf("BillingModeSummary = %+v, want PROVISIONED", d.BillingModeSummary)
		}
		if pt := d.ProvisionedThroughput; pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 4 || aws.ToInt64(pt.WriteCapacityUnits) != 2 {
			t.Errorf("ProvisionedThroughput = %+v, want 4/2", pt)
		}
	})
}

func TestTimeToLiveSettings(t *testing.T) {
	doc(t, pageTTLAPI, `UpdateTimeToLive enables or disables TTL for the specified table and returns the TimeToLiveSpecification. DescribeTimeToLive gives a description of the TTL status: TimeToLiveStatus ENABLING | DISABLING | ENABLED | DISABLED and AttributeName. A table with TTL never configured reports DISABLED. Enabling TTL when it is already enabled is a ValidationException ("TimeToLive is already enabled").`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		d, err := tg.client.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeTimeToLive")
		if d.TimeToLiveDescription == nil || d.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
			t.Errorf("initial TTL description = %+v, want DISABLED", d.TimeToLiveDescription)
		}
		u, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)},
		})
		noErr(t, err, "UpdateTimeToLive")
		if spec := u.TimeToLiveSpecification; spec == nil || aws.ToString(spec.AttributeName) != "expiresAt" || !aws.ToBool(spec.Enabled) {
			t.Errorf("UpdateTimeToLive returned %+v, want expiresAt enabled", spec)
		}
		d, err = tg.client.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeTimeToLive")
		got := d.TimeToLiveDescription
		if got == nil || (got.TimeToLiveStatus != types.TimeToLiveStatusEnabled && got.TimeToLiveStatus != types.TimeToLiveStatusEnabling) || aws.ToString(got.AttributeName) != "expiresAt" {
			t.Errorf("TTL description = %+v, want ENABLED on expiresAt", got)
		}
		if !tg.external() && got != nil && got.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
			t.Errorf("embedded engine TTL status = %q, want ENABLED at once", got.TimeToLiveStatus)
		}
		_, err = tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)},
		})
		wantValidation(t, err, "TimeToLive is already enabled")

		_, err = tg.client.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tableName(t))})
		wantErr(t, err, "ResourceNotFoundException")
	})
}

func TestContinuousBackups(t *testing.T) {
	doc(t, pageBackups, `DescribeContinuousBackups: ContinuousBackupsStatus can be one of ENABLED or DISABLED; it is ENABLED on all tables at creation. PointInTimeRecoveryStatus is ENABLED or DISABLED. UpdateContinuousBackups enables or disables point in time recovery; once enabled, EarliestRestorableDateTime and LatestRestorableDateTime are reported. A missing table is TableNotFoundException.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		d, err := tg.client.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeContinuousBackups")
		cb := d.ContinuousBackupsDescription
		if cb == nil || cb.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled {
			t.Fatalf("ContinuousBackupsDescription = %+v, want ContinuousBackupsStatus ENABLED", cb)
		}
		if cb.PointInTimeRecoveryDescription == nil || cb.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
			t.Errorf("PITR = %+v, want DISABLED initially", cb.PointInTimeRecoveryDescription)
		}
		u, err := tg.client.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{
			TableName:                        aws.String(table),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)},
		})
		noErr(t, err, "UpdateContinuousBackups")
		p := u.ContinuousBackupsDescription.PointInTimeRecoveryDescription
		if p == nil || p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
			t.Errorf("UpdateContinuousBackups PITR = %+v, want ENABLED", p)
		}
		d, err = tg.client.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeContinuousBackups")
		p = d.ContinuousBackupsDescription.PointInTimeRecoveryDescription
		if p == nil || p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
			t.Errorf("recorded PITR = %+v, want ENABLED", p)
		} else if p.EarliestRestorableDateTime == nil || p.LatestRestorableDateTime == nil {
			t.Errorf("PITR enabled but restorable times missing: %+v", p)
		}
		_, err = tg.client.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{
			TableName:                        aws.String(table),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)},
		})
		noErr(t, err, "disable PITR")
		d, err = tg.client.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeContinuousBackups")
		if p := d.ContinuousBackupsDescription.PointInTimeRecoveryDescription; p == nil || p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
			t.Errorf("PITR after disable = %+v, want DISABLED", p)
		}
		_, err = tg.client.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(tableName(t))})
		wantErr(t, err, "TableNotFoundException")
	})
}

func TestUpdateTimeToLiveArguments(t *testing.T) {
	doc(t, pageTTLAPI, "TimeToLiveSpecification is required, with AttributeName (Length Constraints: Minimum length of 1. Maximum length of 255; Required) and Enabled (Required); violations are reported together in the model's message form, and nothing changes")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		for _, tt := range []struct {
			body, msg string
		}{
			{`{"TableName":%q}`, "1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null"},
			{`{"TableName":%q,"TimeToLiveSpecification":{}}`, "2 validation errors detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null; Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null"},
			{`{"TableName":%q,"TimeToLiveSpecification":{"AttributeName":"","Enabled":true}}`, "1 validation error detected: Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
			{`{"TableName":%q,"TimeToLiveSpecification":{"AttributeName":"` + strings.Repeat("a", 256) + `","Enabled":true}}`, "at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255"},
			{`{"TableName":%q,"TimeToLiveSpecification":{"AttributeName":"exp"}}`, "1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null"},
		} {
			r := rawCall(t, tg, targetPrefix+"UpdateTimeToLive", jsonType, fmt.Sprintf(tt.body, name))
			eb := decodeError(t, r)
			if r.status != 400 || !strings.HasSuffix(eb.Type, "#ValidationException") || !strings.Contains(eb.Message, tt.msg) {
				t.Errorf("%.80s: %d %s %q, want ValidationException %q", tt.body, r.status, eb.Type, eb.Message, tt.msg)
			}
		}
		_, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(strings.Repeat("a", 255)), Enabled: aws.Bool(true)}})
		noErr(t, err, "UpdateTimeToLive with a 255-character name")
	})
}
