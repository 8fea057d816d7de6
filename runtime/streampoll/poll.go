package streampoll

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Handler is a Lambda handler for DynamoDB stream batches.
type Handler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// Options configures a Poller, like an event source mapping.
type Options struct {
	// BatchSize is the most records per invocation. Default: 100.
	BatchSize int
	// BatchWindow is how long records are gathered before a batch smaller
	// than BatchSize is delivered. Default: 0 (deliver what is there).
	BatchWindow time.Duration
	// MaxRetries is how many times a failing record or batch is retried
	// before it goes to OnFailure. Default: 2.
	MaxRetries int
	// PollInterval is the wait between reads of an idle stream.
	// Default: 250 ms.
	PollInterval time.Duration
	// OnFailure receives what was given up, with the reason. Default:
	// nothing.
	OnFailure func(records []events.DynamoDBEventRecord, reason error)
	// Checkpoints keeps each shard's position: the last record finished
	// with (handled or given up), saved after each batch. A Poller starts
	// after its shards' checkpoints and from TRIM_HORIZON where there are
	// none, so a new Poller with the Checkpoints of one that crashed
	// redelivers what that one had not finished. Default: a new
	// MemoryCheckpoints of its own (every Poller starts at TRIM_HORIZON).
	Checkpoints Checkpoints
}

// Poller reads one stream and drives one handler.
type Poller struct {
	client *dynamodbstreams.Client
	arn    string
	h      Handler
	opts   Options

	shards  []*shard
	pending []events.DynamoDBEventRecord // read, not yet handled
	from    []*shard                     // the shard of each pending record
	retries int                          // of pending's first batch
}

type shard struct {
	id       string
	iterator *string // nil once a closed shard is read to its end
	last     string  // sequence number of the last record read
}

// errTrimmed is TrimmedDataAccessException, matched with errors.As.
type errTrimmed = st.TrimmedDataAccessException

// New returns a Poller of the stream streamARN.
func New(client *dynamodbstreams.Client, streamARN string, h Handler, opts ...func(*Options)) *Poller {
	o := Options{BatchSize: 100, MaxRetries: 2, PollInterval: 250 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	o.BatchSize = max(1, o.BatchSize)
	if o.OnFailure == nil {
		o.OnFailure = func([]events.DynamoDBEventRecord, error) {}
	}
	if o.Checkpoints == nil {
		o.Checkpoints = &MemoryCheckpoints{}
	}
	return &Poller{client: client, arn: streamARN, h: h, opts: o}
}

// Run polls until ctx ends.
func (p *Poller) Run(ctx context.Context) error {
	for {
		n, err := p.Poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil || n == 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(p.opts.PollInterval):
			}
		}
	}
}

// Poll reads what the stream has and delivers it in batches; it returns
// how many records were handled or given up.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	if p.shards == nil {
		if err := p.openShards(ctx); err != nil {
			return 0, err
		}
	}
	if err := p.read(ctx); err != nil {
		return 0, err
	}
	if p.opts.BatchWindow > 0 && len(p.pending) > 0 && len(p.pending) < p.opts.BatchSize {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(p.opts.BatchWindow):
		}
		if err := p.read(ctx); err != nil {
			return 0, err
		}
	}
	done := 0
	for len(p.pending) > 0 && ctx.Err() == nil {
		n, err := p.deliver(ctx)
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func (p *Poller) openShards(ctx context.Context) error {
	desc, err := p.client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(p.arn)})
	if err != nil {
		return fmt.Errorf("streampoll: describe %s: %w", p.arn, err)
	}
	var shards []*shard
	for _, d := range desc.StreamDescription.Shards {
		s := &shard{id: aws.ToString(d.ShardId)}
		if s.last, err = p.opts.Checkpoints.Load(ctx, p.arn, s.id); err != nil {
			return fmt.Errorf("streampoll: checkpoint of %s: %w", s.id, err)
		}
		if err := p.start(ctx, s); err != nil {
			return err
		}
		shards = append(shards, s)
	}
	p.shards = shards
	return nil
}

// start opens a shard's iterator after its checkpoint, or at TRIM_HORIZON
// without one or when the checkpointed record was trimmed (the records in
// between are gone, as for an event source mapping that fell 24 hours
// behind).
func (p *Poller) start(ctx context.Context, s *shard) error {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(p.arn), ShardId: aws.String(s.id),
		ShardIteratorType: st.ShardIteratorTypeTrimHorizon}
	if s.last != "" {
		in.ShardIteratorType, in.SequenceNumber = st.ShardIteratorTypeAfterSequenceNumber, aws.String(s.last)
	}
	it, err := p.client.GetShardIterator(ctx, in)
	var trimmed *errTrimmed
	if errors.As(err, &trimmed) && s.last != "" {
		s.last = ""
		return p.start(ctx, s)
	}
	if err != nil {
		return fmt.Errorf("streampoll: iterator of %s: %w", s.id, err)
	}
	s.iterator = it.ShardIterator
	return nil
}

// read appends what every shard has to pending.
func (p *Poller) read(ctx context.Context) error {
	for _, s := range p.shards {
		for s.iterator != nil {
			out, err := p.client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iterator})
			var expired *st.ExpiredIteratorException
			if errors.As(err, &expired) && s.last != "" {
				if err := p.resume(ctx, s); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("streampoll: read shard %s: %w", s.id, err)
			}
			for _, r := range out.Records {
				p.pending = append(p.pending, lambdaRecord(r, p.arn))
				p.from = append(p.from, s)
				s.last = aws.ToString(r.Dynamodb.SequenceNumber)
			}
			s.iterator = out.NextShardIterator
			if len(out.Records) == 0 {
				break
			}
		}
	}
	return nil
}

// resume replaces an expired iterator by one after the last record read.
func (p *Poller) resume(ctx context.Context, s *shard) error {
	it, err := p.client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(p.arn),
		ShardId: aws.String(s.id), ShardIteratorType: st.ShardIteratorTypeAfterSequenceNumber, SequenceNumber: aws.String(s.last)})
	if err != nil {
		return fmt.Errorf("streampoll: resume shard %s: %w", s.id, err)
	}
	s.iterator = it.ShardIterator
	return nil
}

// deliver hands the first batch of pending to the handler and applies its
// answer; it returns how many records left pending. When ctx ends while
// the handler runs, the answer is dropped, as when the consumer's process
// dies: nothing of the batch is checkpointed, and a new Poller with the
// same Checkpoints delivers it again.
func (p *Poller) deliver(ctx context.Context) (int, error) {
	batch := p.pending[:min(len(p.pending), p.opts.BatchSize)]
	resp, err := p.h(ctx, events.DynamoDBEvent{Records: batch})
	if ctx.Err() != nil {
		return 0, nil
	}
	// failed is the first record to retry, give how many records are given
	// up once the retries are spent: the record a failure names, or the
	// whole batch after an error.
	var failed, give int
	switch {
	case err != nil:
		failed, give = 0, len(batch)
	case len(resp.BatchItemFailures) > 0:
		failed, give = indexOf(batch, resp.BatchItemFailures), 1
		err = fmt.Errorf("streampoll: the handler reported record %s as failed", resp.BatchItemFailures[0].ItemIdentifier)
	default:
		p.retries = 0
		return len(batch), p.finish(ctx, len(batch))
	}
	if failed > 0 {
		p.retries = 0 // the records before it are done: a new failure
	}
	if p.retries < p.opts.MaxRetries {
		p.retries++
		return failed, p.finish(ctx, failed)
	}
	p.retries = 0
	p.opts.OnFailure(append([]events.DynamoDBEventRecord(nil), p.pending[failed:failed+give]...), err)
	return failed + give, p.finish(ctx, failed+give)
}

// finish drops the first n pending records, which are done, and saves
// the checkpoint of each shard they came from: its last record among them.
func (p *Poller) finish(ctx context.Context, n int) error {
	last := map[*shard]string{}
	var order []*shard
	for i := range n {
		s := p.from[i]
		if _, ok := last[s]; !ok {
			order = append(order, s)
		}
		last[s] = p.pending[i].Change.SequenceNumber
	}
	p.pending, p.from = p.pending[n:], p.from[n:]
	for _, s := range order {
		if err := p.opts.Checkpoints.Save(ctx, p.arn, s.id, last[s]); err != nil {
			return fmt.Errorf("streampoll: checkpoint of %s: %w", s.id, err)
		}
	}
	return nil
}

// indexOf finds the earliest record a failure names; an unknown identifier
// fails the whole batch, as Lambda treats it.
func indexOf(batch []events.DynamoDBEventRecord, failures []events.DynamoDBBatchItemFailure) int {
	first := len(batch)
	for _, f := range failures {
		found := false
		for i, r := range batch {
			if r.Change.SequenceNumber == f.ItemIdentifier {
				first, found = min(first, i), true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return first
}
