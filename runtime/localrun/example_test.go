package localrun_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/localrun"
)

func ExampleEvent() {
	r := httptest.NewRequest("POST", "http://127.0.0.1:8080/users/alice/debits", strings.NewReader(`{"amount":100,"currency":"EUR"}`))
	r.Header.Set("Idempotency-Key", "d-1")
	ev := localrun.Event(r, []byte(`{"amount":100,"currency":"EUR"}`), "local", time.Now())
	fmt.Println(ev.RequestContext.HTTP.Method, ev.RawPath, ev.Headers["idempotency-key"])
	fmt.Println(ev.RequestContext.Authorizer.IAM.UserARN)
	// Output:
	// POST /users/alice/debits d-1
	// arn:aws:iam::000000000000:user/local
}
