package idemqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// Mode is how a record's effect runs.
type Mode int

const (
	// Transactional commits the effect's items (Effect.Items, your own
	// DynamoDB writes) and the record in one TransactWriteItems
	// (idempotency.Table.Do): one request, and nothing in progress.
	Transactional Mode = iota
	// LockFirst claims the key with a pending record, runs the effect (an
	// external call, Effect.Items empty) and stores its answer
	// (idempotency.Table.Run). A concurrent duplicate gets
	// *idempotency.InProgressError and is reported as a batch failure, so
	// the service delivers it again later, when it replays.
	LockFirst
)

// Options configures a batch handler over records of type R (an
// events.SQSMessage, events.DynamoDBEventRecord, events.KinesisEventRecord
// or events.EventBridgeEvent). Only Operation is required.
type Options[R any] struct {
	// Operation is the keys' Scope.Operation ("reserve-stock"). Required.
	Operation string
	// Key is a record's idempotency key, any non-empty string. Default: the
	// SQS message id, the stream record's event ID, the EventBridge event
	// id. Key on a field of the body to deduplicate a message its producer
	// sent twice.
	Key func(R) (string, error)
	// Fingerprint identifies a record's content; the same key with another
	// fingerprint fails with idempotency.ErrKeyReused. Default: SHA-256 of
	// the SQS body, the Kinesis data, the DynamoDB change's keys and
	// images, the EventBridge detail. With Key on a body field, make it the
	// fields that must agree (or a constant).
	Fingerprint func(R) string
	// Caller is the keys' Scope.Caller. Default: the record's event source
	// ARN (EventBridge: source@account), so ids of two queues never
	// collide. Set one value for the consumers of two queues or streams
	// that must deduplicate one order between them.
	Caller string
	// Mode is Transactional (default) or LockFirst.
	Mode Mode
	// SkipFailedGroup, on a FIFO queue, fails only the rest of the failed
	// message's group and carries on with the other groups (Powertools'
	// skip_group_on_error). Default: the first failure fails every later
	// message of the batch, which keeps order across groups too.
	SkipFailedGroup bool
	// OnReplay, if set, is told about each record answered from its stored
	// record instead of running (to count or log replays).
	OnReplay func(r R, stored idempotency.Response)
	// OnError, if set, is told about each failed record, dropped or not.
	OnError func(r R, err error)
	// Drop reports errors after which a record is acknowledged without
	// effect (a malformed message that no retry can fix). Default: none, so
	// every failure is retried and, in the end, dead-lettered.
	Drop func(err error) bool
	// Offload, if set, stores an answer body over [OffloadOver] bytes
	// elsewhere (an S3 PutObject under name, the key's scoped hash, which
	// does not reveal the key) and returns a pointer to it (its s3:// URL);
	// the record then holds {"offloaded":"<pointer>"} as its body, which
	// replays see (OnReplay). Without it such an answer fails the record
	// with *idempotency.ResultTooLargeError once it exceeds the item limit.
	Offload func(ctx context.Context, name string, body []byte) (pointer string, err error)
}

// OffloadOver is the body size above which Options.Offload stores an
// answer elsewhere: well under DynamoDB's 400 KB item limit
// (idempotency.MaxItemSize), which also holds the record's key and
// bookkeeping attributes.
const OffloadOver = 300 * 1024

// Attempt is what an effect is run with: Now, the attempt's time; and, in
// LockFirst mode, ForwardKey, the key to hand to the external system
// (idempotency.Pending.ForwardKey) so that it can deduplicate too.
type Attempt struct {
	Now        time.Time
	ForwardKey string
}

// Work builds one record's effect. In Transactional mode it is called once
// per attempt (a transaction conflict retries it) and Effect.Items commit
// with the record; in LockFirst mode it is called once, holding the key,
// and Effect.Items must be empty. An error fails the record and writes
// nothing; so does a panic, which becomes the record's error.
type Work[R any] func(ctx context.Context, r R, at Attempt) (*idempotency.Effect, error)

// source is what a handler needs to know of a record type.
type source[R any] struct {
	key, fingerprint, caller func(R) string
	id                       func(R) string // the BatchItemFailure identifier
	group                    func(R) string // FIFO group or shard
}

type handler[R any] struct {
	records *idempotency.Table
	o       Options[R]
	src     source[R]
	work    Work[R]
	broken  error
}

func newHandler[R any](records *idempotency.Table, o Options[R], src source[R], work Work[R]) *handler[R] {
	h := &handler[R]{records: records, o: o, src: src, work: work}
	switch {
	case records == nil:
		h.broken = errors.New("idemqueue: no idempotency.Table")
	case o.Operation == "":
		h.broken = &idempotency.ConfigError{Table: records.Name(), Option: "idemqueue.Options.Operation", Problem: "no operation: every key needs one"}
	case work == nil:
		h.broken = errors.New("idemqueue: no Work function")
	case o.Mode != Transactional && o.Mode != LockFirst:
		h.broken = &idempotency.ConfigError{Table: records.Name(), Option: "idemqueue.Options.Mode", Problem: fmt.Sprintf("unknown mode %d", o.Mode)}
	}
	return h
}

// one runs one record; a nil error acknowledges it.
func (h *handler[R]) one(ctx context.Context, r R) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicked(p)
		}
		if err == nil {
			return
		}
		if h.o.OnError != nil {
			h.o.OnError(r, err)
		}
		if h.o.Drop != nil && h.o.Drop(err) {
			err = nil
		}
	}()
	key := ""
	if h.o.Key != nil {
		if key, err = h.o.Key(r); err != nil {
			return fmt.Errorf("idemqueue: key: %w", err)
		}
	} else {
		key = h.src.key(r)
	}
	caller := h.o.Caller
	if caller == "" {
		caller = h.src.caller(r)
	}
	fp := ""
	if h.o.Fingerprint != nil {
		fp = h.o.Fingerprint(r)
	} else {
		fp = h.src.fingerprint(r)
	}
	req := idempotency.Request{Scope: idempotency.Scope{Caller: caller, Operation: h.o.Operation}, Key: key, Fingerprint: fp}
	var resp idempotency.Response
	if h.o.Mode == LockFirst {
		resp, err = h.records.Run(ctx, req, func(ctx context.Context, forwardKey string) (*idempotency.Effect, error) {
			return h.safe(ctx, r, Attempt{Now: h.records.Now(), ForwardKey: forwardKey}, req.Scope.Hash(key))
		})
	} else {
		resp, err = h.records.Do(ctx, req, func(now time.Time) (*idempotency.Effect, error) {
			return h.safe(ctx, r, Attempt{Now: now}, req.Scope.Hash(key))
		})
	}
	if err == nil && resp.Replayed && h.o.OnReplay != nil {
		h.o.OnReplay(r, resp)
	}
	return err
}

// safe runs the work, turning a panic into an error so that nothing is
// written (Do) or the key is released (Run).
func (h *handler[R]) safe(ctx context.Context, r R, at Attempt, name string) (eff *idempotency.Effect, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicked(p)
		}
	}()
	eff, err = h.work(ctx, r, at)
	if err == nil && eff == nil {
		err = errors.New("idemqueue: Work returned no Effect and no error")
	}
	if err == nil && h.o.Offload != nil {
		err = h.offload(ctx, eff, name)
	}
	return eff, err
}

// offload replaces a body over OffloadOver with a pointer to where
// Options.Offload stored it.
func (h *handler[R]) offload(ctx context.Context, eff *idempotency.Effect, name string) error {
	var body []byte
	switch b := eff.Body.(type) {
	case json.RawMessage:
		body = b
	case []byte:
		body = b
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			return err
		}
	}
	if len(body) <= OffloadOver {
		return nil
	}
	ptr, err := h.o.Offload(ctx, name, body)
	if err != nil {
		return fmt.Errorf("idemqueue: offload a %d-byte answer: %w", len(body), err)
	}
	eff.Body = map[string]string{"offloaded": ptr}
	return nil
}

// ErrPanic is wrapped by the error of a record whose work panicked.
var ErrPanic = errors.New("idemqueue: panic")

func panicked(p any) error {
	return fmt.Errorf("%w: %v\n%s", ErrPanic, p, debug.Stack())
}

// queue runs a batch as SQS needs: every message, failures reported one by
// one; on a FIFO queue, after a failure, the rest of the batch (or of the
// failed group, with SkipFailedGroup) is reported without running.
func (h *handler[R]) queue(ctx context.Context, recs []R, fifo bool) ([]string, error) {
	if h.broken != nil {
		return nil, h.broken
	}
	var failed []string
	stopAll := false
	stopped := map[string]bool{}
	for _, r := range recs {
		g := h.src.group(r)
		if fifo && (stopAll || stopped[g]) {
			failed = append(failed, h.src.id(r))
			continue
		}
		if err := h.one(ctx, r); err != nil {
			failed = append(failed, h.src.id(r))
			if fifo && h.o.SkipFailedGroup {
				stopped[g] = true
			} else if fifo {
				stopAll = true
			}
		}
	}
	return failed, nil
}

// stream runs a batch as a stream's event source mapping needs: per shard,
// in order, stopping at the shard's first failure, which is reported (its
// sequence number is where Lambda resumes); the records after it are not
// run, and come again with it.
func (h *handler[R]) stream(ctx context.Context, recs []R) ([]string, error) {
	if h.broken != nil {
		return nil, h.broken
	}
	var failed []string
	stopped := map[string]bool{}
	for _, r := range recs {
		shard := h.src.group(r)
		if stopped[shard] {
			continue
		}
		if err := h.one(ctx, r); err != nil {
			stopped[shard] = true
			failed = append(failed, h.src.id(r))
		}
	}
	return failed, nil
}

// SQS is the handler of an SQS event source mapping with
// FunctionResponseTypes ReportBatchItemFailures: it runs work once per key
// (default: the message id) and reports the messages to retry. A queue
// whose ARN ends in ".fifo" keeps order: see Options.SkipFailedGroup. An
// error (not a failure of a message) is returned only for a handler whose
// Options are incomplete, which fails the whole batch.
func SQS(records *idempotency.Table, o Options[events.SQSMessage], work Work[events.SQSMessage]) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	h := newHandler(records, o, source[events.SQSMessage]{
		key:         func(m events.SQSMessage) string { return m.MessageId },
		fingerprint: func(m events.SQSMessage) string { return idempotency.FingerprintOf([]byte(m.Body)) },
		caller:      func(m events.SQSMessage) string { return m.EventSourceARN },
		id:          func(m events.SQSMessage) string { return m.MessageId },
		group:       func(m events.SQSMessage) string { return m.Attributes["MessageGroupId"] },
	}, work)
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		fifo := len(ev.Records) > 0 && strings.HasSuffix(ev.Records[0].EventSourceARN, ".fifo")
		failed, err := h.queue(ctx, ev.Records, fifo)
		var resp events.SQSEventResponse
		for _, id := range failed {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		return resp, err
	}
}

// DynamoDBStream is the handler of a DynamoDB Streams event source mapping
// with FunctionResponseTypes ReportBatchItemFailures: it runs work once
// per key (default: the record's eventID) in order and stops at the first
// failure, reporting that record's sequence number, from which Lambda
// retries. A record already applied replays instead of running again.
func DynamoDBStream(records *idempotency.Table, o Options[events.DynamoDBEventRecord], work Work[events.DynamoDBEventRecord]) func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	h := newHandler(records, o, source[events.DynamoDBEventRecord]{
		key: func(r events.DynamoDBEventRecord) string { return r.EventID },
		fingerprint: func(r events.DynamoDBEventRecord) string {
			b, _ := json.Marshal([]any{r.EventName, r.Change.Keys, r.Change.NewImage, r.Change.OldImage})
			return idempotency.FingerprintOf(b)
		},
		caller: func(r events.DynamoDBEventRecord) string { return r.EventSourceArn },
		id:     func(r events.DynamoDBEventRecord) string { return r.Change.SequenceNumber },
		// A batch of a DynamoDB stream comes from one shard.
		group: func(events.DynamoDBEventRecord) string { return "" },
	}, work)
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		failed, err := h.stream(ctx, ev.Records)
		var resp events.DynamoDBEventResponse
		for _, id := range failed {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: id})
		}
		return resp, err
	}
}

// Kinesis is the handler of a Kinesis event source mapping with
// FunctionResponseTypes ReportBatchItemFailures: per shard, it runs work
// once per key (default: the record's eventID, shard and sequence number)
// in order and stops at the shard's first failure, reporting that record's
// sequence number. A record already applied replays instead of running.
func Kinesis(records *idempotency.Table, o Options[events.KinesisEventRecord], work Work[events.KinesisEventRecord]) func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error) {
	h := newHandler(records, o, source[events.KinesisEventRecord]{
		key:         func(r events.KinesisEventRecord) string { return r.EventID },
		fingerprint: func(r events.KinesisEventRecord) string { return idempotency.FingerprintOf(r.Kinesis.Data) },
		caller:      func(r events.KinesisEventRecord) string { return r.EventSourceArn },
		id:          func(r events.KinesisEventRecord) string { return r.Kinesis.SequenceNumber },
		group: func(r events.KinesisEventRecord) string {
			shard, _, _ := strings.Cut(r.EventID, ":")
			return shard
		},
	}, work)
	return func(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
		failed, err := h.stream(ctx, ev.Records)
		var resp events.KinesisEventResponse
		for _, id := range failed {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.KinesisBatchItemFailure{ItemIdentifier: id})
		}
		return resp, err
	}
}

// EventBridge is the handler of an EventBridge target: it runs work once
// per key (default: the event id); an error makes Lambda retry the event.
func EventBridge(records *idempotency.Table, o Options[events.EventBridgeEvent], work Work[events.EventBridgeEvent]) func(context.Context, events.EventBridgeEvent) error {
	h := newHandler(records, o, source[events.EventBridgeEvent]{
		key:         func(ev events.EventBridgeEvent) string { return ev.ID },
		fingerprint: func(ev events.EventBridgeEvent) string { return idempotency.FingerprintOf(ev.Detail) },
		caller:      func(ev events.EventBridgeEvent) string { return ev.Source + "@" + ev.AccountID },
		id:          func(ev events.EventBridgeEvent) string { return ev.ID },
		group:       func(events.EventBridgeEvent) string { return "" },
	}, work)
	return func(ctx context.Context, ev events.EventBridgeEvent) error {
		if h.broken != nil {
			return h.broken
		}
		return h.one(ctx, ev)
	}
}
