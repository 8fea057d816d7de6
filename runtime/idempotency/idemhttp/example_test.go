package idemhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

func ExampleTransactional() {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("counters"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("sk"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: "HASH"}, {AttributeName: aws.String("sk"), KeyType: "RANGE"}}})
	records := idempotency.NewTable(db, "counters", func(o *idempotency.Options) {
		o.Attributes = idempotency.Attributes{PartitionKey: "pk", SortKey: "sk", TTL: "ttl"}
	})
	caller := func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }
	h := idemhttp.Transactional(records, caller, bump) // bump: an ADD on one counter item

	for _, req := range []struct{ key, body string }{{`"k1"`, `{"a":1}`}, {`"k1"`, `{"a":1}`}, {`"k1"`, `{"a":2}`}, {"", `{}`}} {
		r := httptest.NewRequest(http.MethodPost, "/counter", strings.NewReader(req.body))
		r.Header.Set("X-User", "ann")
		if req.key != "" {
			r.Header.Set(idemhttp.KeyHeader, req.key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, "replayed:", w.Header().Get(idemhttp.ReplayedHeader) == "true")
	}
	// Output:
	// 201 replayed: false
	// 201 replayed: true
	// 422 replayed: false
	// 400 replayed: false
}
