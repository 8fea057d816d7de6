package idempotency_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
)

// Another team's table from scratch: create it with the library's
// helpers, turn TTL on, and check the options against it at start-up.
func ExampleTable_Check() {
	ctx := context.Background()
	eng := ddblocal.New() // tests: runtime/ddbtest.Client uses DYNAMODB_ENDPOINT when set
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	db.CreateTable(ctx, idempotency.CreateTableInput("giftcards", names))
	db.UpdateTimeToLive(ctx, idempotency.TimeToLiveInput("giftcards", names))

	records := idempotency.NewTable(db, "giftcards", func(o *idempotency.Options) { o.Attributes = names })
	rep, err := records.Check(ctx)
	fmt.Println(rep.PartitionKey, rep.SortKey, rep.TTLEnabled("purge_at"), err)

	forgot := idempotency.NewTable(db, "giftcards") // oncetable's default names
	_, err = forgot.Check(ctx)
	fmt.Println(err != nil)
	fmt.Println(idempotency.TTLCommand("giftcards", names))
	// Output:
	// id kind true <nil>
	// true
	// aws dynamodb update-time-to-live --table-name giftcards --time-to-live-specification Enabled=true,AttributeName=purge_at
}

// The external mode in one call: an e-mail provider is called once per
// key; the replay answers the stored status, headers and body.
func ExampleTable_Run() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	db.CreateTable(ctx, idempotency.CreateTableInput("mail", names))
	records := idempotency.NewTable(db, "mail", func(o *idempotency.Options) { o.Attributes = names })

	sent := 0
	send := func(ctx context.Context, forwardKey string) (*idempotency.Effect, error) {
		sent++ // the provider would get forwardKey as its own idempotency key
		return &idempotency.Effect{Status: http.StatusAccepted, Header: http.Header{"Location": {"/messages/m1"}},
			Body: []byte("queued")}, nil
	}
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "ann", Operation: "send-card"},
		Key: "k1", Fingerprint: idempotency.FingerprintOf([]byte("to=bob@example.com"))}
	for range 2 {
		resp, err := records.Run(ctx, req, send)
		fmt.Println(resp.Status, resp.Header.Get("Location"), string(resp.Body), resp.Replayed, err)
	}
	fmt.Println("sent:", sent)
	// Output:
	// 202 /messages/m1 queued false <nil>
	// 202 /messages/m1 queued true <nil>
	// sent: 1
}

// Any Go function, once per key taken from its input.
func ExampleFunc() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	db.CreateTable(ctx, idempotency.CreateTableInput("jobs", idempotency.Attributes{}))
	records := idempotency.NewTable(db, "jobs")

	type Refund struct {
		OrderID string
		Cents   int64
	}
	runs := 0
	refund := idempotency.Func(records, "refund",
		func(r Refund) (string, error) { return r.OrderID, nil }, // the key, from the input
		func(ctx context.Context, r Refund) (string, error) {
			runs++
			return fmt.Sprintf("refunded %d on %s", r.Cents, r.OrderID), nil
		})
	for range 3 {
		out, err := refund(ctx, Refund{OrderID: "o-1", Cents: 500})
		fmt.Println(out, err)
	}
	_, err := refund(ctx, Refund{OrderID: "o-1", Cents: 900})
	fmt.Println(err)
	fmt.Println("runs:", runs)
	// Output:
	// refunded 500 on o-1 <nil>
	// refunded 500 on o-1 <nil>
	// refunded 500 on o-1 <nil>
	// idempotency: key reused with a different request
	// runs: 1
}
