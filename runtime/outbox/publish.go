package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// MaxEntries is how many entries one PutEvents call takes.
const MaxEntries = 10

// PutEventsAPI is the part of the EventBridge client a Publisher uses.
type PutEventsAPI interface {
	PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, optFns ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error)
}

// Options configures a Publisher.
type Options struct {
	// BusName is the event bus, by name or ARN. Default: "default".
	BusName string
	// Source is the entries' Source. Default: "oncetable.payments".
	Source string
	// MaxAttempts is how many times an entry is sent before its record is
	// reported as failed. Default: 4.
	MaxAttempts int
	// Backoff is the wait before attempt n (2, 3, ...). Default: 50 ms
	// doubling, at most 1 s.
	Backoff func(attempt int) time.Duration
	// Logger receives a line per failed attempt. Default: slog.Default().
	Logger *slog.Logger
	// EntityTypeAttribute is the table's entity type attribute
	// (schema.Schema.EntityType). Default: schema.EntityType.
	EntityTypeAttribute string
}

// Publisher publishes the events of stream records to EventBridge.
type Publisher struct {
	api  PutEventsAPI
	opts Options
}

// NewPublisher returns a Publisher sending through api.
func NewPublisher(api PutEventsAPI, opts ...func(*Options)) *Publisher {
	o := Options{BusName: "default", Source: "oncetable.payments", MaxAttempts: 4, Logger: slog.Default(), EntityTypeAttribute: schema.EntityType}
	for _, f := range opts {
		f(&o)
	}
	if o.Backoff == nil {
		o.Backoff = func(n int) time.Duration { return min(time.Second, 50*time.Millisecond<<max(0, n-2)) }
	}
	if o.MaxAttempts < 1 {
		o.MaxAttempts = 1
	}
	return &Publisher{api: api, opts: o}
}

// pending is an event waiting to be published, with the index of its
// stream record and its user.
type pending struct {
	record int
	user   string
	entry  types.PutEventsRequestEntry
}

// chunks cuts todo, which is in stream order, into consecutive PutEvents
// calls of at most MaxEntries entries holding at most one entry per
// user. EventBridge keeps no order among the entries of one call,
// and a retry of the refused entries alone puts them after the others:
// with one entry per user in a call, neither can reorder a user's events.
func chunks(todo []pending) [][]pending {
	var out [][]pending
	start, users := 0, map[string]bool{}
	for i, p := range todo {
		if i-start == MaxEntries || users[p.user] {
			out = append(out, todo[start:i])
			start = i
			clear(users)
		}
		users[p.user] = true
	}
	if start < len(todo) {
		out = append(out, todo[start:])
	}
	return out
}

// Handle publishes the events of a batch of stream records. Records that
// carry no event are skipped. The events are sent in stream order, in
// calls of at most MaxEntries entries with at most one entry per user
// (chunks), one call after another: a call is sent only once every entry
// of the previous one was accepted, so a user's events reach the bus in
// stream order. When an event cannot be published, or a record cannot be
// read, the response names the first such record in BatchItemFailures and
// no later call is sent, so the event source mapping retries from that
// record and no later event of its user was published before it. The
// error is non-nil only when ctx ends.
//
// The batch is one span (tracing), and each event's envelope carries its
// W3C traceparent, so that a consumer's work joins the trace.
func (p *Publisher) Handle(ctx context.Context, batch events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	ctx, span := tracing.Tracer().Start(ctx, "stream batch", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.Int("oncetable.stream.records", len(batch.Records))))
	defer span.End()
	resp, published, err := p.handle(ctx, batch)
	span.SetAttributes(attribute.Int("oncetable.stream.events_published", published))
	if len(resp.BatchItemFailures) > 0 {
		span.SetAttributes(attribute.String("oncetable.stream.failed_sequence_number", resp.BatchItemFailures[0].ItemIdentifier))
		span.SetStatus(codes.Error, "a record was not published")
	}
	return resp, err
}

func (p *Publisher) handle(ctx context.Context, batch events.DynamoDBEvent) (events.DynamoDBEventResponse, int, error) {
	traceParent := tracing.TraceParent(ctx)
	var todo []pending
	failAt := -1
	for i, r := range batch.Records {
		ev, ok, err := FromRecordOf(r, p.opts.EntityTypeAttribute)
		if err != nil {
			p.opts.Logger.Error("outbox: unreadable stream record", "err", err)
			failAt = i
			break
		}
		if ok {
			ev.TraceParent = traceParent
			todo = append(todo, pending{record: i, user: ev.UserID, entry: p.entry(ev)})
		}
	}
	published := 0
	for _, chunk := range chunks(todo) {
		if first, err := p.send(ctx, chunk); err != nil {
			if ctx.Err() != nil {
				return events.DynamoDBEventResponse{}, published, ctx.Err()
			}
			failAt = first
			break
		}
		published += len(chunk)
	}
	var resp events.DynamoDBEventResponse
	if failAt >= 0 {
		resp.BatchItemFailures = []events.DynamoDBBatchItemFailure{{ItemIdentifier: batch.Records[failAt].Change.SequenceNumber}}
	}
	return resp, published, nil
}

// PublishError reports events a Publish could not publish: the first
// of them, and every later one, were not sent.
type PublishError struct {
	Published int    // events published before it, in order
	EventID   string // the first event not published
	Err       error
}

func (e *PublishError) Error() string {
	return fmt.Sprintf("outbox: published %d events, then not %s: %v", e.Published, e.EventID, e.Err)
}

func (e *PublishError) Unwrap() error { return e.Err }

// Publish sends evs, which are in commit order, as Handle sends a batch's
// events: in calls of at most MaxEntries entries with at most one per
// user, each call only once the previous one was accepted. It is how
// events rebuilt from the table (FromItem) are published again under
// their original ids. An event without a TraceParent gets ctx's. On
// failure it returns a *PublishError.
func (p *Publisher) Publish(ctx context.Context, evs []Event) (int, error) {
	traceParent := tracing.TraceParent(ctx)
	todo := make([]pending, len(evs))
	for i, ev := range evs {
		if ev.TraceParent == "" {
			ev.TraceParent = traceParent
		}
		todo[i] = pending{record: i, user: ev.UserID, entry: p.entry(ev)}
	}
	published := 0
	for _, chunk := range chunks(todo) {
		first, err := p.send(ctx, chunk)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return published, &PublishError{Published: published, EventID: evs[first].ID, Err: err}
		}
		published += len(chunk)
	}
	return published, nil
}

func (p *Publisher) entry(ev Event) types.PutEventsRequestEntry {
	detail, _ := json.Marshal(ev) // an Event always marshals
	return types.PutEventsRequestEntry{
		EventBusName: aws.String(p.opts.BusName),
		Source:       aws.String(p.opts.Source),
		DetailType:   aws.String(string(ev.Type)),
		Detail:       aws.String(string(detail)),
		Time:         aws.Time(ev.CommittedAt),
	}
}

// errUnpublished reports entries still failing after every attempt.
var errUnpublished = errors.New("outbox: events not published")

// send publishes a chunk, resending only the entries that failed (in
// stream order). On failure it returns the record index of the first
// unpublished entry.
func (p *Publisher) send(ctx context.Context, chunk []pending) (int, error) {
	left := chunk
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			select {
			case <-ctx.Done():
				return left[0].record, ctx.Err()
			case <-time.After(p.opts.Backoff(attempt)):
			}
		}
		failed, err := p.putEvents(ctx, left)
		if err == nil && len(failed) == 0 {
			return 0, nil
		}
		if err == nil {
			left = failed
		}
		p.opts.Logger.Warn("outbox: PutEvents failed", "attempt", attempt, "entries", len(left), "err", err)
		if attempt >= p.opts.MaxAttempts || ctx.Err() != nil {
			return left[0].record, errUnpublished
		}
	}
}

// putEvents sends entries once and returns those EventBridge refused, in
// order.
func (p *Publisher) putEvents(ctx context.Context, entries []pending) ([]pending, error) {
	in := &eventbridge.PutEventsInput{Entries: make([]types.PutEventsRequestEntry, len(entries))}
	for i, e := range entries {
		in.Entries[i] = e.entry
	}
	out, err := p.api.PutEvents(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(out.Entries) != len(entries) {
		return nil, fmt.Errorf("outbox: PutEvents answered %d entries for %d", len(out.Entries), len(entries))
	}
	var failed []pending
	for i, res := range out.Entries {
		if res.ErrorCode != nil || res.EventId == nil {
			failed = append(failed, entries[i])
		}
	}
	return failed, nil
}
