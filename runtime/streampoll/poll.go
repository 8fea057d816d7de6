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
}

// Poller reads one stream and drives one handler.
type Poller struct {
	client *dynamodbstreams.Client
	arn    string
	h      Handler
	opts   Options

	shards  []*shard
	pending []events.DynamoDBEventRecord // read, not yet handled
	retries int                          // of pending's first batch
}

type shard struct {
	id       string
	iterator *string // nil once a closed shard is read to its end
	last     string  // sequence number of the last record read
}

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
		done += p.deliver(ctx)
	}
	return done, nil
}

func (p *Poller) openShards(ctx context.Context) error {
	desc, err := p.client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(p.arn)})
	if err != nil {
		return fmt.Errorf("streampoll: describe %s: %w", p.arn, err)
	}
	var shards []*shard
	for _, s := range desc.StreamDescription.Shards {
		it, err := p.client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(p.arn),
			ShardId: s.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
		if err != nil {
			return fmt.Errorf("streampoll: iterator of %s: %w", aws.ToString(s.ShardId), err)
		}
		shards = append(shards, &shard{id: aws.ToString(s.ShardId), iterator: it.ShardIterator})
	}
	p.shards = shards
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
// answer; it returns how many records left pending.
func (p *Poller) deliver(ctx context.Context) int {
	batch := p.pending[:min(len(p.pending), p.opts.BatchSize)]
	resp, err := p.h(ctx, events.DynamoDBEvent{Records: batch})
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
		p.pending, p.retries = p.pending[len(batch):], 0
		return len(batch)
	}
	if failed > 0 {
		p.retries = 0 // the records before it are done: a new failure
	}
	p.pending = p.pending[failed:]
	if p.retries < p.opts.MaxRetries {
		p.retries++
		return failed
	}
	given := append([]events.DynamoDBEventRecord(nil), p.pending[:give]...)
	p.pending, p.retries = p.pending[give:], 0
	p.opts.OnFailure(given, err)
	return failed + give
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
