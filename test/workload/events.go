package workload

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// Event fault rates (see EventFaults and eventFaultsFor).
const (
	// EventEntryFailRate is the share of PutEvents entries the fake
	// EventBridge endpoint refuses, in every window but calm.
	EventEntryFailRate = 0.1
	// ConsumerCrashRate is the share of handler invocations that fail
	// after publishing part of their batch, in every window but calm.
	ConsumerCrashRate = 0.05
	// ConsumerRestartRate is the share of handler invocations during which
	// the consumer's process dies after publishing part of its batch, in
	// the consumer-restart window (a fifth of it in all-faults). The first
	// invocation of each consumer-restart window always dies.
	ConsumerRestartRate = 0.25
)

// EventStats are the counts of the events pipeline of a run.
type EventStats struct {
	Delivered    int // entries the fake EventBridge accepted
	Distinct     int // distinct event ids among them
	Redeliveries int // Delivered - Distinct
	Refused      int // entries refused (injected partial failures)
	Calls        int // PutEvents calls
	Crashes      int // consumer invocations failed mid-batch (the mapping retried the batch)
	Restarts     int // consumer processes killed mid-batch and restarted from the checkpoint
	GivenUp      int // records the poller gave up (on-failure destination)
	Records      int // stream records of the table at the end
	// CommittedAtInversions counts a user's events adjacent in commit
	// order whose committedAt is in the other order (not promised: the
	// order is the stream's, not the timestamps').
	CommittedAtInversions int
	// Stalled says why the stream could not be drained within a minute
	// after the run (a record the publisher cannot read blocks its shard,
	// as it would an event source mapping's), with the publisher's last
	// error; "" when it drained.
	Stalled string
	// Windows are the counts by the fault window they happened in; the
	// drain after the run counts under the last window.
	Windows map[FaultKind]*WindowEvents
}

// WindowEvents are the events pipeline's counts in one kind of fault
// window.
type WindowEvents struct {
	First, Redelivered, Refused, Calls, Crashes, Restarts int
}

func (s *EventStats) window(k FaultKind) *WindowEvents {
	if s.Windows == nil {
		s.Windows = map[FaultKind]*WindowEvents{}
	}
	if s.Windows[k] == nil {
		s.Windows[k] = &WindowEvents{}
	}
	return s.Windows[k]
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
// Publisher, into a fake EventBridge. The consumer's process can die (the
// consumer-restart fault): a new poller then resumes from the checkpoints,
// which outlive it as the mapping's do.
type eventPipe struct {
	eng         *ddblocal.Engine
	arn         string
	bus         *fakeBus
	srv         *httptest.Server
	h           streampoll.Handler
	crash       *crashingConsumer
	checkpoints *streampoll.MemoryCheckpoints
	givenUp     int
	errs        lockedBuffer // the publisher's error log
	cancel      context.CancelFunc
	done        chan struct{}
}

// startEvents enables the table's stream and starts consuming it. window
// says which fault window the run is in ("" before the first).
func startEvents(ctx context.Context, eng *ddblocal.Engine, db *dynamodb.Client, cfg Config, window func() FaultKind) (*eventPipe, error) {
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(Table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		return nil, fmt.Errorf("workload: enable the stream: %w", err)
	}
	p := &eventPipe{eng: eng, arn: aws.ToString(out.TableDescription.LatestStreamArn), done: make(chan struct{}),
		bus:         &fakeBus{rng: rand.New(rand.NewPCG(cfg.Seed, 7)), window: window, refused: map[FaultKind]int{}, calls: map[FaultKind]int{}},
		checkpoints: &streampoll.MemoryCheckpoints{}}
	p.srv = httptest.NewServer(p.bus)
	pub := outbox.NewPublisher(eventBridgeClient(p.srv.URL), func(o *outbox.Options) {
		o.BusName, o.Logger = "oncetable-workload", slog.New(slog.NewTextHandler(&p.errs, &slog.HandlerOptions{Level: slog.LevelError}))
		o.Backoff = func(int) time.Duration { return 2 * time.Millisecond }
	})
	p.crash = &crashingConsumer{h: pub.Handle, rng: rand.New(rand.NewPCG(cfg.Seed, 8)), window: window,
		crashes: map[FaultKind]int{}, restarts: map[FaultKind]int{}}
	p.h = p.crash.handle
	if cfg.Consumer != nil {
		p.h = cfg.Consumer(p.h)
	}
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	go func() { defer close(p.done); _ = p.consume(pctx, false) }()
	return p, nil
}

// newPoller is a poller of a new consumer process, resuming from the
// checkpoints.
func (p *eventPipe) newPoller() *streampoll.Poller {
	return streampoll.New(p.eng.StreamsClient(), p.arn, p.h, func(o *streampoll.Options) {
		// an event source mapping's default: retry until the records expire
		o.MaxRetries, o.PollInterval, o.BatchSize = 1<<30, 20*time.Millisecond, 100
		o.Checkpoints = p.checkpoints
		o.OnFailure = func(recs []events.DynamoDBEventRecord, _ error) { p.givenUp += len(recs) }
	})
}

// consume runs one consumer process after another until ctx ends: a
// process runs a poller until the consumer-restart fault kills it, then
// the next one starts from the checkpoints. With toEnd, a process stops
// once the stream has nothing left to deliver, and so does consume.
func (p *eventPipe) consume(ctx context.Context, toEnd bool) error {
	for {
		pctx, kill := context.WithCancel(ctx)
		p.crash.setKill(kill)
		poller := p.newPoller()
		var err error
		if toEnd {
			err = pollToEnd(pctx, poller)
		} else {
			err = poller.Run(pctx)
		}
		killed := pctx.Err() != nil && ctx.Err() == nil
		kill()
		if !killed {
			return err
		}
	}
}

func pollToEnd(ctx context.Context, poller *streampoll.Poller) error {
	for {
		n, err := poller.Poll(ctx)
		if err != nil || n == 0 || ctx.Err() != nil {
			return err
		}
	}
}

// drain stops the background consumer and consumes until the stream has
// nothing left to deliver (the engine's faults must be cleared), then
// reads the stream itself for the commit order.
func (p *eventPipe) drain(ctx context.Context) (*EventLog, EventStats, error) {
	defer p.srv.Close()
	p.cancel()
	<-p.done
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var stalled string
	if err := p.consume(dctx, true); err != nil && dctx.Err() == nil {
		return nil, EventStats{}, fmt.Errorf("workload: drain the stream: %w", err)
	}
	if dctx.Err() != nil {
		stalled = fmt.Sprintf("not drained in a minute; the publisher's last error: %s", p.errs.lastLine())
	}
	commit, records, err := commitOrder(ctx, p.eng, p.arn)
	if err != nil {
		return nil, EventStats{}, err
	}
	arrivals, refused, calls := p.bus.snapshot()
	s := EventStats{Delivered: len(arrivals), GivenUp: p.givenUp, Records: records, Stalled: stalled}
	for k, n := range refused {
		s.Refused += n
		s.window(k).Refused = n
	}
	for k, n := range calls {
		s.Calls += n
		s.window(k).Calls = n
	}
	for k, n := range p.crash.crashes {
		s.Crashes += n
		s.window(k).Crashes = n
	}
	for k, n := range p.crash.restarts {
		s.Restarts += n
		s.window(k).Restarts = n
	}
	seen := map[string]bool{}
	for _, a := range arrivals {
		if seen[a.ID] {
			s.window(a.Window).Redelivered++
			continue
		}
		seen[a.ID] = true
		s.window(a.Window).First++
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

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 1<<20 {
		b.buf.Reset() // only the last lines are read
	}
	return b.buf.Write(p)
}

// lastLine is the last line written.
func (b *lockedBuffer) lastLine() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(b.buf.String()), "\n")
	return lines[len(lines)-1]
}
