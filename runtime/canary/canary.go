package canary

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/obs"
)

// Options configures a Canary. BaseURL is required.
type Options struct {
	// BaseURL is the API's invoke URL, without a trailing slash.
	BaseURL string
	// UserID is the canary user. Default: "canary".
	UserID string
	// Amount is what each run moves, in minor units of Currency.
	// Default: 100.
	Amount int64
	// Currency is the canary user's currency. Default: "EUR".
	Currency string
	// Client sends the requests. Default: a client with a 10 s timeout.
	Client *http.Client
	// Sign authenticates a request whose body is body (nil without one).
	// Default: nothing.
	Sign func(r *http.Request, body []byte) error
	// Metrics receives the run's EMF metric. Default: none.
	Metrics *obs.Metrics
	// NewID returns a fresh random token for idempotency keys and the
	// order id. Default: 16 random bytes in hex.
	NewID func() string
}

// Canary runs the probe.
type Canary struct{ o Options }

// New returns a Canary. It panics without opts' BaseURL.
func New(opts ...func(*Options)) *Canary {
	o := Options{UserID: "canary", Amount: 100, Currency: "EUR", Client: &http.Client{Timeout: 10 * time.Second}, NewID: randomID}
	for _, f := range opts {
		f(&o)
	}
	if o.BaseURL == "" {
		panic("canary: Options.BaseURL is required")
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	return &Canary{o: o}
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Step is one request of a run.
type Step struct {
	Name     string
	Status   int
	Duration time.Duration
}

// Result is a run: its steps, in order, and the first failure.
type Result struct {
	Steps []Step
	// Err is nil when every step answered as expected and the balance
	// ended where it began; else a *StepError.
	Err error
}

// StepError is a run's failure: the step, what it answered and what was
// expected.
type StepError struct {
	Step   string
	Status int
	Want   string
	Detail string
}

func (e *StepError) Error() string {
	return fmt.Sprintf("canary: %s answered %d, want %s: %s", e.Step, e.Status, e.Want, e.Detail)
}

// Run runs one probe and records Success 1 or 0.
func (c *Canary) Run(ctx context.Context) Result {
	r := c.run(ctx)
	success := 1.0
	if r.Err != nil {
		success = 0
	}
	c.o.Metrics.Canary(c.o.UserID, obs.CanarySuccess, success)
	return r
}

type balance struct {
	Balance  int64  `json:"balance"`
	Currency string `json:"currency"`
}

func (c *Canary) run(ctx context.Context) Result {
	var res Result
	run, user, amt := c.o.NewID(), c.o.UserID, c.o.Amount
	money := fmt.Sprintf(`{"amount":%d,"currency":%q}`, amt, c.o.Currency)
	order := "canary-" + run
	step := func(name, method, path, body string, want ...int) ([]byte, error) {
		return c.call(ctx, &res, name, method, path, body, run+"-"+strings.ReplaceAll(name, " ", "-"), want)
	}
	if _, err := c.call(ctx, &res, "create user", http.MethodPost, "/v1/users",
		fmt.Sprintf(`{"userId":%q,"name":"Canary","email":"canary@example.com"}`, user), "", []int{http.StatusCreated, http.StatusConflict}); err != nil {
		return failed(res, err)
	}
	before, err := c.balance(ctx, &res, "balance before")
	if err != nil {
		return failed(res, err)
	}
	steps := []struct{ name, path, body string }{
		{"credit", "/v1/users/" + user + "/credits", money},
		{"create order", "/v1/users/" + user + "/orders", fmt.Sprintf(`{"orderId":%q,"currency":%q,"items":[{"productId":"canary","quantity":1,"unitPrice":%d}]}`, order, c.o.Currency, amt)},
		{"charge", "/v1/orders/" + order + "/payments", money},
		{"settle", "/v1/orders/" + order + "/settle", ""},
		{"refund", "/v1/orders/" + order + "/refunds", ""},
		{"debit", "/v1/users/" + user + "/debits", money},
	}
	for _, s := range steps {
		if _, err := step(s.name, http.MethodPost, s.path, s.body, http.StatusOK, http.StatusCreated); err != nil {
			return failed(res, err)
		}
	}
	after, err := c.balance(ctx, &res, "balance after")
	if err != nil {
		return failed(res, err)
	}
	if after.Balance != before.Balance {
		return failed(res, &StepError{Step: "balance after", Status: http.StatusOK, Want: fmt.Sprintf("the balance before, %+v", before),
			Detail: fmt.Sprintf("balance %+v after crediting, settling, refunding and debiting %d", after, amt)})
	}
	return res
}

func failed(res Result, err error) Result {
	res.Err = err
	return res
}

func (c *Canary) balance(ctx context.Context, res *Result, name string) (balance, error) {
	body, err := c.call(ctx, res, name, http.MethodGet, "/v1/users/"+c.o.UserID+"/balance", "", "", []int{http.StatusOK})
	if err != nil {
		return balance{}, err
	}
	var b balance
	if err := json.Unmarshal(body, &b); err != nil {
		return balance{}, &StepError{Step: name, Status: http.StatusOK, Want: "a balance", Detail: err.Error()}
	}
	return b, nil
}

// call sends one request and checks its status against want.
func (c *Canary) call(ctx context.Context, res *Result, name, method, path, body, key string, want []int) ([]byte, error) {
	var payload []byte
	if body != "" {
		payload = []byte(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.o.BaseURL+path, bytes.NewReader(payload))
	if err != nil {
		return nil, &StepError{Step: name, Want: fmt.Sprint(want), Detail: err.Error()}
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if c.o.Sign != nil {
		if err := c.o.Sign(req, payload); err != nil {
			return nil, &StepError{Step: name, Want: fmt.Sprint(want), Detail: "signing: " + err.Error()}
		}
	}
	start := time.Now()
	resp, err := c.o.Client.Do(req)
	if err != nil {
		res.Steps = append(res.Steps, Step{Name: name, Duration: time.Since(start)})
		return nil, &StepError{Step: name, Want: fmt.Sprint(want), Detail: err.Error()}
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	res.Steps = append(res.Steps, Step{Name: name, Status: resp.StatusCode, Duration: time.Since(start)})
	for _, w := range want {
		if resp.StatusCode == w {
			return out, nil
		}
	}
	return nil, &StepError{Step: name, Status: resp.StatusCode, Want: fmt.Sprint(want), Detail: string(out)}
}
