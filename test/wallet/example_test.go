package wallet_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/test/wallet"
)

func Example() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	svc := wallet.New(eng.Client(), "wallets")
	if err := svc.CreateTable(ctx); err != nil {
		fmt.Println(err)
		return
	}
	svc.Open(ctx, "alice", money.Amount{Minor: 10_000, Currency: "EUR"})
	svc.Open(ctx, "bob", money.Amount{Minor: 0, Currency: "EUR"})
	h := svc.Handler()

	for _, body := range []string{
		`{"from":"alice","to":"bob","amount":2500,"currency":"EUR"}`,
		`{"from":"alice","to":"bob","amount":2500,"currency":"EUR"}`, // a retry
		`{"from":"alice","to":"bob","amount":9999,"currency":"EUR"}`, // same key, other payload
	} {
		r := httptest.NewRequest(http.MethodPost, "/transfers", strings.NewReader(body))
		r.Header.Set("X-Caller", "alice")
		r.Header.Set("Idempotency-Key", `"9b1f0c2e"`)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("Idempotent-Replayed") == "true")
	}
	a, _ := svc.Balance(ctx, "alice")
	b, _ := svc.Balance(ctx, "bob")
	fmt.Println(a, b)
	// Output:
	// 201 false
	// 201 true
	// 422 false
	// 75.00 EUR 25.00 EUR
}
