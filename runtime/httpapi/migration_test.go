package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

// shop drives the API of one order layout and remembers every order it
// created and the status it left it in.
type shop struct {
	h      *harness
	mu     sync.Mutex
	status map[string]string
	n      int
}

func layoutAPI(env *dbtest.Env, stage schema.OrderIndexes) *httpapi.API {
	return httpapi.New(env.Client, httpapi.Config{Auth: testAuth, Table: env.Table, Clock: env.Clock.Now, Log: io.Discard, Metrics: io.Discard,
		CursorSecret: []byte("test secret of at least 32 bytes!!"),
		Orders:       store.OrderLayout{Stage: stage, Shards: 4, PhaseTTL: 20 * time.Millisecond}})
}

// order creates one order of user and settles every third; it returns the
// first unexpected answer.
func (s *shop) order(t *testing.T, prefix, user string) error {
	s.mu.Lock()
	s.n++
	id := fmt.Sprintf("%s-%03d", prefix, s.n)
	s.mu.Unlock()
	body := `{"orderId":"` + id + `","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`
	if r := s.h.do(t, "POST", "/users/"+user+"/orders", body, key("ord-"+id)); r.StatusCode != 201 {
		return fmt.Errorf("create %s: %d %s", id, r.StatusCode, r.Body)
	}
	st := store.OrderCreated
	if strings.HasSuffix(id, "0") || strings.HasSuffix(id, "3") || strings.HasSuffix(id, "6") {
		if r := s.h.do(t, "POST", "/orders/"+id+"/payments", `{"amount":100,"currency":"EUR"}`, key("pay-"+id)); r.StatusCode != 201 {
			return fmt.Errorf("charge %s: %d %s", id, r.StatusCode, r.Body)
		}
		if r := s.h.do(t, "POST", "/orders/"+id+"/settle", "", key("set-"+id)); r.StatusCode != 200 {
			return fmt.Errorf("settle %s: %d %s", id, r.StatusCode, r.Body)
		}
		st = store.OrderPaid
	}
	s.mu.Lock()
	s.status[id] = st
	s.mu.Unlock()
	return nil
}

// list pages GET /orders?status= and returns the ids and each one's status.
func list(t *testing.T, h *harness, status string, limit int) []string {
	t.Helper()
	var ids []string
	for cur := ""; ; {
		path := fmt.Sprintf("/orders?status=%s&limit=%d", status, limit)
		if cur != "" {
			path += "&cursor=" + cur
		}
		r := h.do(t, "GET", path, "", nil)
		var p struct {
			Items []struct {
				OrderID string `json:"orderId"`
				Status  string `json:"status"`
			} `json:"items"`
			NextCursor *string `json:"nextCursor"`
		}
		if r.StatusCode != 200 || json.Unmarshal([]byte(r.Body), &p) != nil {
			t.Fatalf("GET %s = %d %s", path, r.StatusCode, r.Body)
		}
		for _, o := range p.Items {
			if o.Status != status {
				t.Errorf("order %s listed under %s is %s", o.OrderID, status, o.Status)
			}
			ids = append(ids, o.OrderID)
		}
		if p.NextCursor == nil {
			return ids
		}
		cur = *p.NextCursor
	}
}

// TestOrdersMigrationEndToEnd creates orders in v1, adds the v2 index
// (stage both), runs orders-by-status-v2 to done (with a rollback from
// cutover on the way) while two writers create and settle orders through
// the API, and then lists every order by status in v2: each exactly once,
// in its status.
func TestOrdersMigrationEndToEnd(t *testing.T) {
	env := dbtest.New(t) // stage v1: GSI1 only
	ctx := context.Background()
	s := &shop{h: &harness{env: env, api: layoutAPI(env, schema.OrdersV1)}, status: map[string]string{}}
	for _, u := range []string{"u1", "u2"} {
		s.h.do(t, "POST", "/users", `{"userId":"`+u+`","name":"U","email":"`+u+`@example.com"}`, nil)
		s.h.do(t, "POST", "/users/"+u+"/credits", `{"amount":100000000,"currency":"EUR"}`, key("cr-"+u))
	}
	for range 20 {
		if err := s.order(t, "v1", "u1"); err != nil {
			t.Fatal(err)
		}
	}
	v1Page := s.h.do(t, "GET", "/orders?status=created&limit=3", "", nil)
	v1Cursor, _ := field(t, v1Page.Body, "nextCursor").(string)

	// Deploy 1: the v2 index, and writers in stage both.
	if err := provision.AddIndex(ctx, env.Client, env.Table, schema.OrdersByStatus); err != nil {
		t.Fatal(err)
	}
	both := layoutAPI(env, schema.OrdersBoth)
	s.h.api = both
	m, _ := orders.ByStatus(4, keys.Default)
	mg, err := migrate.New(env.Client, env.Table, m, func(o *migrate.Options) {
		o.Holder, o.Segments, o.PageSize, o.Budget = "e2e", 3, 5, 1e6
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i, u := range []string{"u1", "u2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := s.order(t, fmt.Sprintf("w%d", i), u); err != nil {
					errs <- err
					return
				}
				time.Sleep(time.Millisecond) // paces this writer of the background load
			}
		}()
	}
	runErr := migrateWithRollback(t, s.h, mg)
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if runErr != nil {
		t.Fatalf("run to done (verify included): %v", runErr)
	}

	// Deploy 2: stage v2.
	s.h.api = layoutAPI(env, schema.OrdersV2)
	seen := map[string]string{}
	for _, status := range []string{store.OrderCreated, store.OrderPaid} {
		for _, id := range list(t, s.h, status, 7) {
			if prev, dup := seen[id]; dup {
				t.Errorf("order %s listed twice (%s, %s)", id, prev, status)
			}
			seen[id] = status
		}
	}
	for id, want := range s.status {
		if seen[id] != want {
			t.Errorf("order %s listed as %q, want %q", id, seen[id], want)
		}
	}
	if len(seen) != len(s.status) {
		t.Errorf("listed %d orders, created %d", len(seen), len(s.status))
	}
	t.Logf("%d orders (%d during the migration), %d writes cancelled by the fence", len(s.status), len(s.status)-20,
		store.StaleWrites(both.Store().Orders()))
	checkNoGSI1(t, env)
	r := s.h.do(t, "GET", "/orders?status=created&limit=3&cursor="+v1Cursor, "", nil)
	if r.StatusCode != 400 || field(t, r.Body, "type") != httpapi.ProblemTypeBase+"invalid-cursor" || !strings.Contains(r.Body, "other index") {
		t.Errorf("a v1 cursor in v2 = %d %s, want a 400 invalid-cursor naming the other index", r.StatusCode, r.Body)
	}
}

// migrateWithRollback runs the migration to cutover, takes a page of the
// sharded read, rolls back to verify (reads go back to GSI1, where that
// cursor is refused) and runs on to done.
func migrateWithRollback(t *testing.T, h *harness, mg *migrate.Migrator) error {
	ctx := context.Background()
	if _, err := mg.Run(ctx, migrate.Cutover); err != nil {
		return err
	}
	h.env.Clock.Advance(50 * time.Millisecond) // the API's cached phase (20ms) is cutover now
	page := h.do(t, "GET", "/orders?status=created&limit=2", "", nil)
	cur, _ := field(t, page.Body, "nextCursor").(string)
	if _, err := mg.Rollback(ctx); err != nil {
		return err
	}
	h.env.Clock.Advance(50 * time.Millisecond)
	r := h.do(t, "GET", "/orders?status=created&limit=2&cursor="+cur, "", nil)
	if r.StatusCode != 400 || !strings.Contains(r.Body, "other index") {
		t.Errorf("a sharded cursor after the rollback from cutover = %d %s, want a 400 naming the other index", r.StatusCode, r.Body)
	}
	_, err := mg.Run(ctx, migrate.Done)
	return err
}

// checkNoGSI1 fails t if an order still carries GSI1PK or GSI1SK.
func checkNoGSI1(t *testing.T, env *dbtest.Env) {
	t.Helper()
	p := dynamodb.NewScanPaginator(env.Client, &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			_, pk := it["GSI1PK"]
			_, sk := it["GSI1SK"]
			if pk || sk {
				t.Errorf("item %v still carries GSI1 keys after done", it["PK"])
			}
		}
	}
}
