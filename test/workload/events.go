package workload

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// Event faults, on in every window but calm.
const (
	// EventEntryFailRate is the share of PutEvents entries the fake
	// EventBridge endpoint refuses.
	EventEntryFailRate = 0.1
	// ConsumerCrashRate is the share of handler invocations that crash
	// after publishing part of their batch.
	ConsumerCrashRate = 0.05
)

// EventStats are the counts of the events pipeline of a run.
type EventStats struct {
	Delivered    int // entries the fake EventBridge accepted
	Distinct     int // distinct event ids among them
	Redeliveries int // Delivered - Distinct
	Refused      int // entries refused (injected partial failures)
	Calls        int // PutEvents calls
	Crashes      int // consumer invocations crashed mid-batch
	GivenUp      int // records the poller gave up (on-failure destination)
	Records      int // stream records of the table at the end
	// CommittedAtInversions counts a user's events adjacent in commit
	// order whose committedAt is in the other order (not promised: the
	// order is the stream's, not the timestamps').
	CommittedAtInversions int
}

// EventLog is what the checker reads: the accepted events in arrival
// order and the position in the stream of the record each event id comes
// from (its commit order).
type EventLog struct {
	Arrivals []Arrival
	Commit   map[string]int
}

// eventPipe is the outbox running beside the workload: the table's stream,
// read by streampoll like an event source mapping, into the production
// Publisher, into a fake EventBridge.
type eventPipe struct {
	eng     *ddblocal.Engine
	arn     string
	bus     *fakeBus
	srv     *httptest.Server
	poller  *streampoll.Poller
	crash   *crashingConsumer
	givenUp int
	cancel  context.CancelFunc
	done    chan struct{}
}

// startEvents enables the table's stream and starts consuming it. faulty
// says whether event faults are on now.
func startEvents(ctx context.Context, eng *ddblocal.Engine, db *dynamodb.Client, cfg Config, faulty func() bool) (*eventPipe, error) {
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(Table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		return nil, fmt.Errorf("workload: enable the stream: %w", err)
	}
	rate := func(r float64) func() float64 {
		return func() float64 {
			if faulty() {
				return r
			}
			return 0
		}
	}
	p := &eventPipe{eng: eng, arn: aws.ToString(out.TableDescription.LatestStreamArn), done: make(chan struct{}),
		bus: &fakeBus{rng: rand.New(rand.NewPCG(cfg.Seed, 7)), failRate: rate(EventEntryFailRate)}}
	p.srv = httptest.NewServer(p.bus)
	pub := outbox.NewPublisher(eventBridgeClient(p.srv.URL), func(o *outbox.Options) {
		o.BusName, o.Logger = "oncetable-workload", slog.New(slog.NewTextHandler(io.Discard, nil))
		o.Backoff = func(int) time.Duration { return 2 * time.Millisecond }
	})
	p.crash = &crashingConsumer{h: pub.Handle, rng: rand.New(rand.NewPCG(cfg.Seed, 8)), rate: rate(ConsumerCrashRate)}
	h := streampoll.Handler(p.crash.handle)
	if cfg.Consumer != nil {
		h = cfg.Consumer(h)
	}
	p.poller = streampoll.New(eng.StreamsClient(), p.arn, h, func(o *streampoll.Options) {
		// an event source mapping's default: retry until the records expire
		o.MaxRetries, o.PollInterval, o.BatchSize = 1<<30, 20*time.Millisecond, 100
		o.OnFailure = func(recs []events.DynamoDBEventRecord, _ error) { p.givenUp += len(recs) }
	})
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	go func() { defer close(p.done); _ = p.poller.Run(pctx) }()
	return p, nil
}

// drain stops the background poller and polls until the stream has
// nothing left to deliver (the engine's faults must be cleared), then
// reads the stream itself for the commit order.
func (p *eventPipe) drain(ctx context.Context) (*EventLog, EventStats, error) {
	defer p.srv.Close()
	p.cancel()
	<-p.done
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		n, err := p.poller.Poll(ctx)
		if err != nil {
			return nil, EventStats{}, fmt.Errorf("workload: drain the stream: %w", err)
		}
		if n == 0 {
			break
		}
	}
	commit, records, err := commitOrder(ctx, p.eng, p.arn)
	if err != nil {
		return nil, EventStats{}, err
	}
	arrivals, refused, calls := p.bus.snapshot()
	s := EventStats{Delivered: len(arrivals), Refused: refused, Calls: calls, Crashes: p.crash.crashes, GivenUp: p.givenUp, Records: records}
	seen := map[string]bool{}
	for _, a := range arrivals {
		seen[a.ID] = true
	}
	s.Distinct = len(seen)
	s.Redeliveries = s.Delivered - s.Distinct
	log := &EventLog{Arrivals: arrivals, Commit: commit}
	s.CommittedAtInversions = CommittedAtInversions(log)
	return log, s, nil
}

// commitOrder reads the whole stream again, with a poller of its own and
// no faults, and returns the position of the first record of each event
// id, and how many records the stream holds.
func commitOrder(ctx context.Context, eng *ddblocal.Engine, arn string) (map[string]int, int, error) {
	order, n := map[string]int{}, 0
	p := streampoll.New(eng.StreamsClient(), arn, func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		for _, r := range b.Records {
			n++
			if ev, ok, err := outbox.FromRecord(r); err == nil && ok {
				if _, dup := order[ev.ID]; !dup {
					order[ev.ID] = n
				}
			}
		}
		return events.DynamoDBEventResponse{}, nil
	})
	for {
		k, err := p.Poll(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("workload: read the stream: %w", err)
		}
		if k == 0 {
			return order, n, nil
		}
	}
}
