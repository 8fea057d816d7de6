package idemqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemqueue"
)

// custom are non-default names for every attribute of a record: the
// shipment service's own table.
var custom = idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at", EntityType: "type",
	Operation: "op", Fingerprint: "fp", Status: "code", Body: "result", Header: "hdrs", CreatedAt: "made",
	State: "st", LockedUntil: "busy_until", Owner: "holder"}

// world is a table with those names, on the embedded engine or on
// DYNAMODB_ENDPOINT, holding the records and the stock counters the
// transactional effects write; calls counts the external effects.
type world struct {
	db      *dynamodb.Client
	table   string
	records *idempotency.Table
	mu      sync.Mutex
	calls   map[string]int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db, _ := ddbtest.Client(t, nil)
	name := ddbtest.TableName("shipments")
	if err := idempotency.CreateTable(context.Background(), db, name, custom, time.Minute); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, name)
	return &world{db: db, table: name, calls: map[string]int{},
		records: idempotency.NewTable(db, name, func(o *idempotency.Options) { o.Attributes = custom })}
}

// order is a message body.
type order struct {
	Order string `json:"order"`
	Qty   int    `json:"qty"`
	Panic bool   `json:"panic,omitempty"`
	Fail  bool   `json:"fail,omitempty"`
}

var errRefused = errors.New("stock service refused")

func parse(body []byte) order {
	var o order
	json.Unmarshal(body, &o)
	return o
}

// reserve is a transactional effect: add the quantity to the order's
// reserved-stock item, in the same transaction as the record.
func (w *world) reserve(body []byte, now time.Time) (*idempotency.Effect, error) {
	o := parse(body)
	switch {
	case o.Panic:
		panic("reserve: corrupt order " + o.Order)
	case o.Fail:
		return nil, errRefused
	}
	eff := &idempotency.Effect{Status: 200, Body: map[string]any{"order": o.Order, "at": now.Unix()}}
	eff.Items.Add("stock", types.TransactWriteItem{Update: &types.Update{TableName: aws.String(w.table),
		Key:              map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "stock#" + o.Order}, "kind": &types.AttributeValueMemberS{Value: "reserved"}},
		UpdateExpression: aws.String("ADD n :q"), ExpressionAttributeValues: map[string]types.AttributeValue{":q": &types.AttributeValueMemberN{Value: fmt.Sprint(o.Qty)}}}})
	return eff, nil
}

// call is a lock-first effect: one call to the carrier per order.
func (w *world) call(body []byte, hold time.Duration) (*idempotency.Effect, error) {
	o := parse(body)
	switch {
	case o.Panic:
		panic("carrier: corrupt order " + o.Order)
	case o.Fail:
		return nil, errRefused
	}
	w.mu.Lock()
	w.calls[o.Order]++
	w.mu.Unlock()
	time.Sleep(hold) // keeps the carrier call open so that concurrent deliveries overlap it
	return &idempotency.Effect{Status: 201, Body: map[string]string{"label": "L-" + o.Order}}, nil
}

func (w *world) reserved(t *testing.T, order string) int {
	t.Helper()
	out, err := w.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(w.table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "stock#" + order}, "kind": &types.AttributeValueMemberS{Value: "reserved"}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if v, ok := out.Item["n"].(*types.AttributeValueMemberN); ok {
		fmt.Sscan(v.Value, &n)
	}
	return n
}

func (w *world) called(order string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[order]
}

const stdQueue, fifoQueue, otherQueue = "arn:aws:sqs:eu-west-1:123456789012:orders", "arn:aws:sqs:eu-west-1:123456789012:orders.fifo", "arn:aws:sqs:eu-west-1:123456789012:orders-eu"

// msg is "id=body" or "id@group=body".
func sqsBatch(arn string, msgs ...string) events.SQSEvent {
	var ev events.SQSEvent
	for _, m := range msgs {
		id, body, _ := strings.Cut(m, "=")
		id, group, _ := strings.Cut(id, "@")
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: id, Body: body, EventSourceARN: arn,
			Attributes: map[string]string{"MessageGroupId": group}})
	}
	return ev
}

func sqsFailures(r events.SQSEventResponse) string {
	var ids []string
	for _, f := range r.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return fmt.Sprint(ids)
}

// byOrder keys a message on its body's order field.
func byOrder(m events.SQSMessage) (string, error) {
	o := parse([]byte(m.Body))
	if o.Order == "" {
		return "", errors.New("no order in the body")
	}
	return o.Order, nil
}

// TestSQSStandard: a failing message fails alone; a redelivery replays
// (OnReplay counts it); with Key on a body field and one Caller, the same
// order sent twice under two message ids, even from two queues, is applied
// once; a reused key with another body fails with ErrKeyReused; the core
// takes an order id the HTTP rules would refuse (é, 306 bytes).
func TestSQSStandard(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	var replays atomic.Int32
	var errs []error
	h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "reserve", Key: byOrder, Caller: "shipments",
		OnReplay: func(events.SQSMessage, idempotency.Response) { replays.Add(1) },
		OnError:  func(_ events.SQSMessage, err error) { errs = append(errs, err) }},
		func(_ context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
			return w.reserve([]byte(m.Body), at.Now)
		})
	long := "é" + strings.Repeat("o", 304)
	steps := []struct {
		name    string
		ev      events.SQSEvent
		fails   string
		replays int32
	}{
		{"a failing message fails alone", sqsBatch(stdQueue, `m1={"order":"o1","qty":2}`, `m2={"order":"o2","fail":true}`, `m3={"order":"o3","qty":1}`), "[m2]", 0},
		{"redelivery replays", sqsBatch(stdQueue, `m1={"order":"o1","qty":2}`, `m3={"order":"o3","qty":1}`), "[]", 2},
		{"the producer sent o1 again under a new id", sqsBatch(stdQueue, `m9={"order":"o1","qty":2}`), "[]", 3},
		{"o1 from another queue, same Caller", sqsBatch(otherQueue, `x1={"order":"o1","qty":2}`), "[]", 4},
		{"o1 reused with another body", sqsBatch(stdQueue, `m10={"order":"o1","qty":5}`), "[m10]", 4},
		{"a key the HTTP rules refuse", sqsBatch(stdQueue, `m11={"order":"`+long+`","qty":1}`), "[]", 4},
		{"a message without a key", sqsBatch(stdQueue, `m12={"qty":1}`), "[m12]", 4},
	}
	for _, st := range steps {
		resp, err := h(ctx, st.ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := sqsFailures(resp); got != st.fails || replays.Load() != st.replays {
			t.Errorf("%s: failures %s, replays %d; want %s, %d", st.name, got, replays.Load(), st.fails, st.replays)
		}
	}
	if w.reserved(t, "o1") != 2 || w.reserved(t, "o3") != 1 || w.reserved(t, long) != 1 || w.reserved(t, "o2") != 0 {
		t.Errorf("reserved o1=%d o3=%d long=%d o2=%d, want 2, 1, 1, 0", w.reserved(t, "o1"), w.reserved(t, "o3"), w.reserved(t, long), w.reserved(t, "o2"))
	}
	if len(errs) != 3 || !errors.Is(errs[0], errRefused) || !errors.Is(errs[1], idempotency.ErrKeyReused) || !strings.Contains(errs[2].Error(), "no order") {
		t.Errorf("errors told: %v", errs)
	}
}

// TestSQSDefaultKeyIsTheMessageID: without Key, the message id (scoped to
// the queue) is the key: a redelivery replays, the same body under another
// id runs again.
func TestSQSDefaultKeyIsTheMessageID(t *testing.T) {
	w := newWorld(t)
	h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "reserve"},
		func(_ context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
			return w.reserve([]byte(m.Body), at.Now)
		})
	for _, ev := range []events.SQSEvent{sqsBatch(stdQueue, `m1={"order":"o1","qty":1}`), sqsBatch(stdQueue, `m1={"order":"o1","qty":1}`),
		sqsBatch(stdQueue, `m2={"order":"o1","qty":1}`), sqsBatch(otherQueue, `m1={"order":"o1","qty":1}`)} {
		if resp, err := h(context.Background(), ev); err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("%v, %v", resp, err)
		}
	}
	if n := w.reserved(t, "o1"); n != 3 {
		t.Errorf("reserved %d, want 3 (m1 once, m2, m1 of the other queue)", n)
	}
}

// TestSQSFIFO: by default the first failure fails every later message of
// the batch, unrun; with SkipFailedGroup only the failed group's.
func TestSQSFIFO(t *testing.T) {
	for _, tt := range []struct {
		skip  bool
		fails string
		ran   []string
	}{
		{false, "[a2 b1 a3 b2]", []string{"o1"}},
		{true, "[a2 a3]", []string{"o1", "o4", "o6"}},
	} {
		t.Run(fmt.Sprintf("SkipFailedGroup=%v", tt.skip), func(t *testing.T) {
			w := newWorld(t)
			h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "reserve", SkipFailedGroup: tt.skip},
				func(_ context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
					return w.reserve([]byte(m.Body), at.Now)
				})
			resp, err := h(context.Background(), sqsBatch(fifoQueue, `a1@A={"order":"o1","qty":1}`, `a2@A={"order":"o2","fail":true}`,
				`b1@B={"order":"o4","qty":1}`, `a3@A={"order":"o5","qty":1}`, `b2@B={"order":"o6","qty":1}`))
			if err != nil {
				t.Fatal(err)
			}
			if got := sqsFailures(resp); got != tt.fails {
				t.Errorf("failures %s, want %s", got, tt.fails)
			}
			for _, o := range []string{"o1", "o4", "o5", "o6"} {
				want := 0
				for _, r := range tt.ran {
					if r == o {
						want = 1
					}
				}
				if got := w.reserved(t, o); got != want {
					t.Errorf("%s reserved %d, want %d", o, got, want)
				}
			}
		})
	}
}

func ddbRecords(arn string, recs ...string) events.DynamoDBEvent {
	var ev events.DynamoDBEvent
	for i, r := range recs {
		ev.Records = append(ev.Records, events.DynamoDBEventRecord{EventID: fmt.Sprintf("ev-%s", r), EventName: "INSERT", EventSourceArn: arn,
			Change: events.DynamoDBStreamRecord{SequenceNumber: fmt.Sprint(100 + i),
				NewImage: map[string]events.DynamoDBAttributeValue{"order": events.NewStringAttribute(r)}}})
	}
	return ev
}

// TestDynamoDBStream: in order, stop at the first failure and report its
// sequence number; the records after it do not run. Lambda retries from
// that record: the earlier ones, delivered again (a retried whole batch),
// replay instead of running.
func TestDynamoDBStream(t *testing.T) {
	w := newWorld(t)
	fail := map[string]bool{"o2": true}
	var replays atomic.Int32
	h := idemqueue.DynamoDBStream(w.records, idemqueue.Options[events.DynamoDBEventRecord]{Operation: "ship",
		OnReplay: func(events.DynamoDBEventRecord, idempotency.Response) { replays.Add(1) }},
		func(_ context.Context, r events.DynamoDBEventRecord, at idemqueue.Attempt) (*idempotency.Effect, error) {
			o := r.Change.NewImage["order"].String()
			if fail[o] {
				return nil, errRefused
			}
			return w.reserve([]byte(`{"order":"`+o+`","qty":1}`), at.Now)
		})
	const arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/2026-12-04T00:00:00.000"
	ev := ddbRecords(arn, "o1", "o2", "o3")
	resp, err := h(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "101" {
		t.Fatalf("first delivery: %+v, %v; want the failure at sequence number 101 only", resp, err)
	}
	if w.reserved(t, "o1") != 1 || w.reserved(t, "o3") != 0 {
		t.Fatalf("o1=%d o3=%d, want 1 and 0 (o3 is after the failure)", w.reserved(t, "o1"), w.reserved(t, "o3"))
	}
	delete(fail, "o2")
	resp, err = h(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("retry: %+v, %v", resp, err)
	}
	if w.reserved(t, "o1") != 1 || w.reserved(t, "o2") != 1 || w.reserved(t, "o3") != 1 || replays.Load() != 1 {
		t.Errorf("o1=%d o2=%d o3=%d replays=%d, want 1 1 1 and one replay (o1)", w.reserved(t, "o1"), w.reserved(t, "o2"), w.reserved(t, "o3"), replays.Load())
	}
}

func kinesisRecords(recs ...string) events.KinesisEvent {
	var ev events.KinesisEvent
	for i, r := range recs {
		shard, body, _ := strings.Cut(r, "=")
		seq := fmt.Sprintf("4959%04d", i)
		ev.Records = append(ev.Records, events.KinesisEventRecord{EventID: shard + ":" + seq, EventSourceArn: "arn:aws:kinesis:eu-west-1:123456789012:stream/orders",
			Kinesis: events.KinesisRecord{SequenceNumber: seq, Data: []byte(body), PartitionKey: shard}})
	}
	return ev
}

// TestKinesis: per shard, stop at the shard's first failure and report its
// sequence number; the other shard carries on. A panic is a failure like
// any other and writes nothing.
func TestKinesis(t *testing.T) {
	w := newWorld(t)
	h := idemqueue.Kinesis(w.records, idemqueue.Options[events.KinesisEventRecord]{Operation: "reserve"},
		func(_ context.Context, r events.KinesisEventRecord, at idemqueue.Attempt) (*idempotency.Effect, error) {
			return w.reserve(r.Kinesis.Data, at.Now)
		})
	ev := kinesisRecords(`shardId-000=`+`{"order":"a1","qty":1}`, `shardId-001=`+`{"order":"b1","qty":1}`,
		`shardId-000=`+`{"order":"a2","panic":true}`, `shardId-001=`+`{"order":"b2","qty":1}`, `shardId-000=`+`{"order":"a3","qty":1}`)
	resp, err := h(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "49590002" {
		t.Fatalf("%+v, %v; want one failure at a2's sequence number 49590002", resp, err)
	}
	for o, want := range map[string]int{"a1": 1, "b1": 1, "a2": 0, "b2": 1, "a3": 0} {
		if got := w.reserved(t, o); got != want {
			t.Errorf("%s reserved %d, want %d", o, got, want)
		}
	}
}

// TestConcurrentDuplicates delivers one order to 8 concurrent handler
// invocations (run with -race). Transactional: the effect commits once,
// every delivery is acknowledged (the others replay). LockFirst: the
// carrier is called once, and it answers only after the 7 others have
// returned: each met the pending record and is a batch failure (SQS
// delivers it again, and then it replays).
func TestConcurrentDuplicates(t *testing.T) {
	for _, mode := range []idemqueue.Mode{idemqueue.Transactional, idemqueue.LockFirst} {
		t.Run(fmt.Sprint("mode=", mode), func(t *testing.T) {
			w := newWorld(t)
			var inProgress atomic.Int32
			othersDone := make(chan struct{})
			h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "ship", Mode: mode, Key: byOrder,
				OnError: func(_ events.SQSMessage, err error) {
					var ip *idempotency.InProgressError
					if errors.As(err, &ip) {
						inProgress.Add(1)
					} else {
						t.Errorf("unexpected error: %v", err)
					}
				}},
				func(_ context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
					if mode == idemqueue.LockFirst {
						if at.ForwardKey == "" {
							t.Error("no forward key in lock-first mode")
						}
						// The carrier answers only once the 7 other deliveries
						// have returned: they all met the pending record.
						select {
						case <-othersDone:
						case <-time.After(10 * time.Second):
							t.Error("the other deliveries did not return while the carrier call was pending")
						}
						return w.call([]byte(m.Body), 0)
					}
					return w.reserve([]byte(m.Body), at.Now)
				})
			var wg sync.WaitGroup
			var failed, returned atomic.Int32
			for i := range 8 {
				wg.Go(func() {
					resp, err := h(context.Background(), sqsBatch(stdQueue, fmt.Sprintf(`m%d={"order":"o1","qty":1}`, i)))
					if err != nil {
						t.Error(err)
					}
					failed.Add(int32(len(resp.BatchItemFailures)))
					if returned.Add(1) == 7 {
						close(othersDone)
					}
				})
			}
			wg.Wait()
			if mode == idemqueue.Transactional {
				if w.reserved(t, "o1") != 1 || failed.Load() != 0 {
					t.Errorf("reserved %d, failures %d; want 1 and 0", w.reserved(t, "o1"), failed.Load())
				}
				return
			}
			if w.called("o1") != 1 || failed.Load() != 7 || inProgress.Load() != 7 {
				t.Errorf("carrier called %d times, failures %d, in progress %d; want 1 call and 7 in-progress failures", w.called("o1"), failed.Load(), inProgress.Load())
			}
			// SQS delivers the failed ones again: they replay.
			resp, err := h(context.Background(), sqsBatch(stdQueue, `m0={"order":"o1","qty":1}`))
			if err != nil || len(resp.BatchItemFailures) != 0 || w.called("o1") != 1 {
				t.Errorf("redelivery: %+v, %v, calls %d", resp, err, w.called("o1"))
			}
		})
	}
}

// TestPanicMidBatch: a panic in the middle of a batch fails that message
// only (its error wraps ErrPanic), writes nothing and, in LockFirst mode,
// releases the key, so the redelivered message runs at once.
func TestPanicMidBatch(t *testing.T) {
	for _, mode := range []idemqueue.Mode{idemqueue.Transactional, idemqueue.LockFirst} {
		t.Run(fmt.Sprint("mode=", mode), func(t *testing.T) {
			w := newWorld(t)
			var panics atomic.Int32
			broken := atomic.Bool{}
			broken.Store(true)
			h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "ship", Mode: mode, Key: byOrder,
				OnError: func(_ events.SQSMessage, err error) {
					if errors.Is(err, idemqueue.ErrPanic) {
						panics.Add(1)
					}
				}},
				func(_ context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
					o := parse([]byte(m.Body))
					if o.Order == "o2" && broken.Load() {
						panic("corrupt order")
					}
					if mode == idemqueue.LockFirst {
						return w.call([]byte(m.Body), 0)
					}
					return w.reserve([]byte(m.Body), at.Now)
				})
			ev := sqsBatch(stdQueue, `m1={"order":"o1","qty":1}`, `m2={"order":"o2","qty":1}`, `m3={"order":"o3","qty":1}`)
			resp, err := h(context.Background(), ev)
			if err != nil || sqsFailures(resp) != "[m2]" || panics.Load() != 1 {
				t.Fatalf("%v, %v, panics %d; want [m2] and one panic", sqsFailures(resp), err, panics.Load())
			}
			broken.Store(false)
			if resp, err = h(context.Background(), ev); err != nil || len(resp.BatchItemFailures) != 0 {
				t.Fatalf("redelivery: %v, %v", sqsFailures(resp), err)
			}
			for _, o := range []string{"o1", "o2", "o3"} {
				if got := w.reserved(t, o) + w.called(o); got != 1 {
					t.Errorf("%s applied %d times, want 1", o, got)
				}
			}
		})
	}
}

// TestTooLargeResult: an answer over DynamoDB's item limit fails the
// message with *idempotency.ResultTooLargeError in both modes, and leaves
// no record, so the message can be retried once the handler stores the
// result elsewhere.
func TestTooLargeResult(t *testing.T) {
	for _, mode := range []idemqueue.Mode{idemqueue.Transactional, idemqueue.LockFirst} {
		t.Run(fmt.Sprint("mode=", mode), func(t *testing.T) {
			w := newWorld(t)
			var got error
			h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "label", Mode: mode,
				OnError: func(_ events.SQSMessage, err error) { got = err }},
				func(context.Context, events.SQSMessage, idemqueue.Attempt) (*idempotency.Effect, error) {
					return &idempotency.Effect{Status: 200, Body: strings.Repeat("x", 500_000)}, nil
				})
			resp, err := h(context.Background(), sqsBatch(stdQueue, `m1={"order":"o1"}`))
			var tl *idempotency.ResultTooLargeError
			if err != nil || sqsFailures(resp) != "[m1]" || !errors.As(got, &tl) || tl.Limit != idempotency.MaxItemSize {
				t.Fatalf("%v, %v, told %v; want [m1] and a ResultTooLargeError", sqsFailures(resp), err, got)
			}
			out, err := w.db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(w.table)})
			if err != nil || len(out.Items) != 0 {
				t.Errorf("%d items left, %v; want none", len(out.Items), err)
			}
		})
	}
}

// TestConfigError: a handler without an operation fails the whole batch
// with a ConfigError naming the option, and writes nothing.
func TestConfigError(t *testing.T) {
	w := newWorld(t)
	h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{},
		func(context.Context, events.SQSMessage, idemqueue.Attempt) (*idempotency.Effect, error) {
			t.Error("work ran")
			return nil, nil
		})
	_, err := h(context.Background(), sqsBatch(stdQueue, `m1={}`))
	var ce *idempotency.ConfigError
	if !errors.As(err, &ce) || ce.Option != "idemqueue.Options.Operation" {
		t.Errorf("err = %v, want a ConfigError naming idemqueue.Options.Operation", err)
	}
}

// TestEventBridge: an event delivered three times runs once; a failure is
// returned for Lambda to retry; Drop acknowledges what no retry can fix.
func TestEventBridge(t *testing.T) {
	w := newWorld(t)
	h := idemqueue.EventBridge(w.records, idemqueue.Options[events.EventBridgeEvent]{Operation: "reserve",
		Drop: func(err error) bool { return errors.Is(err, idemqueue.ErrPanic) }},
		func(_ context.Context, ev events.EventBridgeEvent, at idemqueue.Attempt) (*idempotency.Effect, error) {
			return w.reserve(ev.Detail, at.Now)
		})
	ev := events.EventBridgeEvent{ID: "6a7e8feb-b491-4cf7-a9f1-bf3703467718", Source: "shop", AccountID: "123456789012", Detail: json.RawMessage(`{"order":"o1","qty":1}`)}
	for range 3 {
		if err := h(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := h(context.Background(), events.EventBridgeEvent{ID: "e2", Source: "shop", Detail: json.RawMessage(`{"order":"o2","fail":true}`)}); !errors.Is(err, errRefused) {
		t.Errorf("failing event: %v, want it returned for a retry", err)
	}
	if err := h(context.Background(), events.EventBridgeEvent{ID: "e3", Source: "shop", Detail: json.RawMessage(`{"order":"o3","panic":true}`)}); err != nil {
		t.Errorf("dropped event: %v, want nil", err)
	}
	if w.reserved(t, "o1") != 1 {
		t.Errorf("reserved %d, want 1", w.reserved(t, "o1"))
	}
}

// TestOffload: with Options.Offload an answer over OffloadOver is stored
// elsewhere (here a map standing in for S3) under the key's scoped hash,
// the record holds the pointer, and a replay sees it; in both modes.
func TestOffload(t *testing.T) {
	for _, mode := range []idemqueue.Mode{idemqueue.Transactional, idemqueue.LockFirst} {
		t.Run(fmt.Sprint("mode=", mode), func(t *testing.T) {
			w := newWorld(t)
			var mu sync.Mutex
			bucket := map[string][]byte{}
			var replayed []byte
			h := idemqueue.SQS(w.records, idemqueue.Options[events.SQSMessage]{Operation: "label", Mode: mode,
				Offload: func(_ context.Context, name string, body []byte) (string, error) {
					mu.Lock()
					defer mu.Unlock()
					bucket[name] = body
					return "s3://labels/" + name, nil
				},
				OnReplay: func(_ events.SQSMessage, stored idempotency.Response) { replayed = stored.Body }},
				func(context.Context, events.SQSMessage, idemqueue.Attempt) (*idempotency.Effect, error) {
					return &idempotency.Effect{Status: 200, Body: strings.Repeat("x", 500_000)}, nil
				})
			ev := sqsBatch(stdQueue, `m1={"order":"o1"}`)
			for range 2 {
				if resp, err := h(context.Background(), ev); err != nil || len(resp.BatchItemFailures) != 0 {
					t.Fatalf("%v, %v", sqsFailures(resp), err)
				}
			}
			name := idempotency.Scope{Caller: stdQueue, Operation: "label"}.Hash("m1")
			if len(bucket) != 1 || len(bucket[name]) != 500_002 {
				t.Fatalf("bucket holds %d objects, %d bytes under the key's hash; want one of 500002", len(bucket), len(bucket[name]))
			}
			if want := `{"offloaded":"s3://labels/` + name + `"}`; string(replayed) != want {
				t.Errorf("replayed body %s, want %s", replayed, want)
			}
		})
	}
}
