package idempotency_test

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

func ExampleFingerprint() {
	a, _ := idempotency.Fingerprint("POST", "/users/u1/debits", []byte(`{"amount":100,"currency":"EUR"}`))
	b, _ := idempotency.Fingerprint("POST", "/users/u1/debits", []byte(`{ "currency": "EUR", "amount": 100 }`))
	fmt.Println(a == b)

	// Output:
	// true
}
