package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// Arrival is one event the fake EventBridge endpoint accepted, in order.
type Arrival struct {
	ID     string // the event's id, read from its Detail
	Type   string // DetailType
	Detail string
	Window FaultKind // the fault window it arrived in
}

// fakeBus is a PutEvents endpoint on loopback, reached through the real
// aws-sdk-go-v2 eventbridge client. It refuses a seeded share of entries
// (PutEvents partial failures) and records the ones it accepts.
type fakeBus struct {
	mu       sync.Mutex
	rng      *rand.Rand
	window   func() FaultKind
	arrivals []Arrival
	refused  map[FaultKind]int
	calls    map[FaultKind]int
}

type putEventsBody struct {
	Entries []struct{ Detail, DetailType, Source, EventBusName string }
}

func (b *fakeBus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	var in putEventsBody
	if r.Header.Get("X-Amz-Target") != "AWSEvents.PutEvents" || json.Unmarshal(body, &in) != nil || len(in.Entries) == 0 || len(in.Entries) > outbox.MaxEntries {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"__type":"ValidationException","message":"%d entries"}`, len(in.Entries))
		return
	}
	k := b.window()
	rate := eventFaultsFor(k).EntryFailRate
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls[k]++
	results := make([]map[string]string, 0, len(in.Entries))
	failed := 0
	for _, e := range in.Entries {
		if rate > 0 && b.rng.Float64() < rate {
			failed++
			b.refused[k]++
			results = append(results, map[string]string{"ErrorCode": "InternalFailure", "ErrorMessage": "injected partial failure"})
			continue
		}
		var d struct{ ID string }
		_ = json.Unmarshal([]byte(e.Detail), &d)
		b.arrivals = append(b.arrivals, Arrival{ID: d.ID, Type: e.DetailType, Detail: e.Detail, Window: k})
		results = append(results, map[string]string{"EventId": fmt.Sprintf("fake-%d", len(b.arrivals))})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"FailedEntryCount": failed, "Entries": results})
}

func (b *fakeBus) snapshot() (arrivals []Arrival, refused, calls map[FaultKind]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Arrival(nil), b.arrivals...), maps.Clone(b.refused), maps.Clone(b.calls)
}

// eventBridgeClient is the real SDK client for the fake endpoint, without
// the SDK's retries: the publisher's own are what the soak exercises.
func eventBridgeClient(url string) *eventbridge.Client {
	return eventbridge.New(eventbridge.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "workload", SecretAccessKey: "workload"}, nil
		}),
		Retryer: aws.NopRetryer{},
	})
}

// errCrash is the error of a consumer that crashed in the middle of a batch.
var errCrash = errors.New("workload: consumer crashed in the middle of a batch")

// crashingConsumer publishes a batch with the production handler, but in
// a seeded share of invocations (EventFaults of the window) publishes only
// a prefix of the batch and then:
//
//   - fails, as a function that dies mid-batch: the mapping retries the
//     whole batch, so the prefix is delivered again;
//   - or kills its process (kill ends the running poller's context) after
//     publishing some or all of the batch, before the poller checkpoints
//     it: the poller is gone with what it held, and the next one resumes
//     from the checkpoints, so the batch is delivered again from its
//     first record not checkpointed.
type crashingConsumer struct {
	h        streampoll.Handler
	rng      *rand.Rand
	window   func() FaultKind
	kill     context.CancelFunc
	crashes  map[FaultKind]int
	restarts map[FaultKind]int
	prev     FaultKind // the window of the previous invocation
}

func (c *crashingConsumer) setKill(kill context.CancelFunc) { c.kill = kill }

func (c *crashingConsumer) handle(ctx context.Context, batch events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	k := c.window()
	f := eventFaultsFor(k)
	n, x := len(batch.Records), c.rng.Float64()
	// The first invocation in a consumer-restart window always dies, so
	// that every window the consumer reaches exercises a restart, however
	// few invocations a loaded machine fits in it.
	first := k == ConsumerRestart && c.prev != ConsumerRestart
	if n > 0 {
		c.prev = k
	}
	switch {
	case n > 0 && (first || x < f.RestartRate):
		// dies after publishing some or all of the batch, before its
		// checkpoint
		c.restarts[k]++
		_, _ = c.h(ctx, events.DynamoDBEvent{Records: batch.Records[:1+c.rng.IntN(n)]})
		c.kill()
	case n > 1 && x < f.RestartRate+f.ErrorRate:
		c.crashes[k]++
		_, _ = c.h(ctx, events.DynamoDBEvent{Records: batch.Records[:1+c.rng.IntN(n-1)]})
	default:
		return c.h(ctx, batch)
	}
	return events.DynamoDBEventResponse{}, errCrash
}
