package verify_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

// healthyFixture is the table the cases break: written by the real flows
// (buildHealthy) when the test runs with -update-fixture, read back otherwise, so
// the goldens' ids and timestamps stay put.
const healthyFixture = "testdata/healthy.json"

// buildHealthy runs the money flows on table: alice credits, pays order
// o-1 (charge, settle) and debits; bob credits, is charged for o-2 and has
// o-3 unpaid; carol has no money.
func buildHealthy(t *testing.T, db *dynamodb.Client, table string) {
	t.Helper()
	ctx := context.Background()
	st := store.New(db, func(o *store.Options) { o.Table = table })
	svc := payments.New(st)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	eur := func(n int64) money.Amount { a, _ := money.New(n, "EUR"); return a }
	idem := func(op, key string) payments.Idem {
		fp, _ := idempotency.Fingerprint("POST", "/"+op+"/"+key, nil)
		return payments.Idem{Scope: idempotency.Scope{Caller: "iam:fixture", Operation: op}, Key: key, Fingerprint: fp}
	}
	order := func(id string, price int64) payments.NewOrder {
		return payments.NewOrder{OrderID: id, Currency: "EUR", Items: []payments.NewItem{{ProductID: "mug", Quantity: 1, UnitPrice: eur(price)}}}
	}
	for _, u := range []string{"alice", "bob", "carol"} {
		must(st.CreateUser(ctx, store.NewUser{UserID: u, Name: u, Email: u + "@example.com"}))
	}
	must(svc.Credit(ctx, idem(payments.FlowCredit, "a-1"), "alice", eur(5000)))
	must(svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "a-2"), "alice", order("o-1", 2500)))
	must(svc.Charge(ctx, idem(payments.FlowCharge, "a-3"), "o-1", eur(2500)))
	must(svc.Settle(ctx, idem(payments.FlowSettle, "a-4"), "o-1", nil))
	must(svc.Debit(ctx, idem(payments.FlowDebit, "a-5"), "alice", eur(500)))
	must(svc.Credit(ctx, idem(payments.FlowCredit, "b-1"), "bob", eur(1000)))
	must(svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "b-2"), "bob", order("o-2", 300)))
	must(svc.Charge(ctx, idem(payments.FlowCharge, "b-3"), "o-2", eur(300)))
	must(svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "b-4"), "bob", order("o-3", 700)))
}

// fixtureItems returns the healthy table's items: built on a new engine
// and written to testdata with -update-fixture, else read from testdata.
func fixtureItems(t *testing.T) []map[string]types.AttributeValue {
	t.Helper()
	if *updateFixture {
		eng := ddblocal.New()
		defer eng.Close()
		db := eng.Client()
		ctx := context.Background()
		if err := provision.EnsureTable(ctx, db, "fixture"); err != nil {
			t.Fatal(err)
		}
		buildHealthy(t, db, "fixture")
		out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("fixture"), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(out.Items, func(i, j int) bool { return itemKey(out.Items[i]) < itemKey(out.Items[j]) })
		raw := make([]map[string]any, len(out.Items))
		for i, it := range out.Items {
			if _, ok := it["expiresAt"]; ok {
				// Records outlive the fixture: no TTL sweep removes them
				// from a table loaded in years.
				it["expiresAt"] = &types.AttributeValueMemberN{Value: "4102444800"}
			}
			raw[i] = toJSON(it)
		}
		b, _ := json.MarshalIndent(raw, "", " ")
		if err := os.WriteFile(healthyFixture, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(healthyFixture)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	items := make([]map[string]types.AttributeValue, len(raw))
	for i, r := range raw {
		if items[i], err = fromJSONItem(r); err != nil {
			t.Fatalf("%s item %d: %v", healthyFixture, i, err)
		}
	}
	return items
}

func itemKey(it map[string]types.AttributeValue) string {
	return it["PK"].(*types.AttributeValueMemberS).Value + "\x00" + it["SK"].(*types.AttributeValueMemberS).Value
}

// toJSON and fromJSON convert attribute values to and from DynamoDB JSON
// ({"S": "..."}), the form of the fixtures.
func toJSON(item map[string]types.AttributeValue) map[string]any {
	out := map[string]any{}
	for k, v := range item {
		out[k] = valueJSON(v)
	}
	return out
}

func valueJSON(v types.AttributeValue) map[string]any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": toJSON(v.Value)}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = valueJSON(e)
		}
		return map[string]any{"L": l}
	}
	panic(fmt.Sprintf("fixture: attribute value %T", v))
}

func fromJSONItem(raw map[string]json.RawMessage) (map[string]types.AttributeValue, error) {
	out := make(map[string]types.AttributeValue, len(raw))
	for k, r := range raw {
		v, err := fromJSON(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func fromJSON(r json.RawMessage) (types.AttributeValue, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r, &m); err != nil || len(m) != 1 {
		return nil, fmt.Errorf("not one typed attribute value: %s", r)
	}
	for typ, body := range m {
		var err error
		switch typ {
		case "S", "N":
			var s string
			err = json.Unmarshal(body, &s)
			if typ == "S" {
				return &types.AttributeValueMemberS{Value: s}, err
			}
			return &types.AttributeValueMemberN{Value: s}, err
		case "BOOL":
			var b bool
			err = json.Unmarshal(body, &b)
			return &types.AttributeValueMemberBOOL{Value: b}, err
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}, nil
		case "SS", "NS":
			var ss []string
			err = json.Unmarshal(body, &ss)
			if typ == "SS" {
				return &types.AttributeValueMemberSS{Value: ss}, err
			}
			return &types.AttributeValueMemberNS{Value: ss}, err
		case "M":
			var mm map[string]json.RawMessage
			if err = json.Unmarshal(body, &mm); err != nil {
				return nil, err
			}
			v, err := fromJSONItem(mm)
			return &types.AttributeValueMemberM{Value: v}, err
		case "L":
			var l []json.RawMessage
			if err = json.Unmarshal(body, &l); err != nil {
				return nil, err
			}
			out := make([]types.AttributeValue, len(l))
			for i, e := range l {
				if out[i], err = fromJSON(e); err != nil {
					return nil, err
				}
			}
			return &types.AttributeValueMemberL{Value: out}, nil
		}
		return nil, fmt.Errorf("attribute type %q", typ)
	}
	return nil, nil
}
