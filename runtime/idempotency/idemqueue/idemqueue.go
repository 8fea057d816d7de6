package idemqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// Options configures a consumer.
type Options struct {
	// Drop reports errors after which a message is acknowledged without
	// effect (a malformed message that no retry can fix). Default: none, so
	// every failure is retried and, in the end, dead-lettered.
	Drop func(err error) bool
	// OnError, if set, is told about every failed or dropped message.
	OnError func(messageID string, err error)
	// CheckTable runs idempotency.Table.Check once, when the consumer is
	// built; if the table does not match the options every message fails
	// with that error (which names the option to fix), so nothing is
	// written and the messages stay on the queue.
	CheckTable bool
}

func options(records *idempotency.Table, opts []func(*Options)) (Options, error) {
	o := Options{Drop: func(error) bool { return false }}
	for _, f := range opts {
		f(&o)
	}
	if !o.CheckTable {
		return o, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := records.Check(ctx)
	return o, err
}

// SQSPlanFunc plans the effect of one message.
type SQSPlanFunc func(ctx context.Context, m events.SQSMessage) (idempotency.Plan, error)

// SQSHandler is the aws-lambda-go handler of an SQS event source.
type SQSHandler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// SQS runs plan's effect once per message id of operation, one message at
// a time, and reports the messages to retry.
func SQS(records *idempotency.Table, operation string, plan SQSPlanFunc, opts ...func(*Options)) SQSHandler {
	o, broken := options(records, opts)
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		failed := false
		for _, m := range ev.Records {
			if broken != nil {
				if o.OnError != nil {
					o.OnError(m.MessageId, broken)
				}
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
				continue
			}
			fifo := strings.HasSuffix(m.EventSourceARN, ".fifo")
			if failed && fifo {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
				continue
			}
			err := once(ctx, records, o, message{id: m.MessageId, source: m.EventSourceARN, op: operation, body: m.Body},
				func(ctx context.Context) (idempotency.Plan, error) { return plan(ctx, m) })
			if err != nil {
				failed = true
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return resp, nil
	}
}

// EventBridgePlanFunc plans the effect of one event.
type EventBridgePlanFunc func(ctx context.Context, ev events.EventBridgeEvent) (idempotency.Plan, error)

// EventBridgeHandler is the aws-lambda-go handler of an EventBridge target.
type EventBridgeHandler func(ctx context.Context, ev events.EventBridgeEvent) error

// EventBridge runs plan's effect once per event id of operation; an error
// makes Lambda retry the event.
func EventBridge(records *idempotency.Table, operation string, plan EventBridgePlanFunc, opts ...func(*Options)) EventBridgeHandler {
	o, broken := options(records, opts)
	return func(ctx context.Context, ev events.EventBridgeEvent) error {
		if broken != nil {
			return broken
		}
		return once(ctx, records, o, message{id: ev.ID, source: ev.Source + "@" + ev.AccountID, op: operation, body: string(ev.Detail)},
			func(ctx context.Context) (idempotency.Plan, error) { return plan(ctx, ev) })
	}
}

type message struct {
	id, source, op, body string
}

// once runs one message; a nil error acknowledges it.
func once(ctx context.Context, records *idempotency.Table, o Options, m message, plan func(context.Context) (idempotency.Plan, error)) error {
	err := run(ctx, records, m, plan)
	if err == nil {
		return nil
	}
	if o.OnError != nil {
		o.OnError(m.id, err)
	}
	if o.Drop(err) {
		return nil
	}
	return err
}

func run(ctx context.Context, records *idempotency.Table, m message, plan func(context.Context) (idempotency.Plan, error)) error {
	if m.id == "" {
		return errors.New("idemqueue: message has no id")
	}
	p, err := plan(ctx)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(m.body))
	req := idempotency.Request{Scope: idempotency.Scope{Caller: m.source, Operation: m.op},
		Key: m.id, Fingerprint: hex.EncodeToString(sum[:]), Invocation: p.Invocation}
	_, err = records.Do(ctx, req, p.Effect)
	return err
}
