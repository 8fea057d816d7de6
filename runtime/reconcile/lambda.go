package reconcile

import (
	"context"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/retry"
)

// Retrying is db (built by retry.NewClient, whose calls are one send each)
// with its reads retried by runtime/retry. The conditional writes of the
// checkpoint are sent once: a failed one fails the invocation, and the
// next resumes from the checkpoint.
func Retrying(db *dynamodb.Client) DB {
	return retrying{Client: db, reads: retry.Client{API: db}}
}

type retrying struct {
	*dynamodb.Client
	reads retry.Client
}

func (r retrying) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return r.reads.GetItem(ctx, in, optFns...)
}

func (r retrying) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return r.reads.Query(ctx, in, optFns...)
}

func (r retrying) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return r.reads.Scan(ctx, in, optFns...)
}

func (r retrying) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return r.reads.DescribeTable(ctx, in, optFns...)
}

// Summary is what an invocation returns (Lambda's response, for a manual
// invoke): the pass, what the step read, and the verdict if it ended one.
type Summary struct {
	Pass        int64    `json:"pass"`
	Skipped     bool     `json:"skipped,omitempty"`
	Lost        bool     `json:"lost,omitempty"`
	Items       int64    `json:"items"`
	ConsumedRCU float64  `json:"consumedRCU"`
	Verdict     *Verdict `json:"verdict,omitempty"`
}

// Handler is the reconcile function's handler, for EventBridge Scheduler's
// invocations (their payload is ignored). Each invocation is a
// [Reconciler.Run] whose lease names the invocation's request id.
func Handler(db DB, cfg config.Reconcile, opts ...func(*Options)) func(ctx context.Context) (*Summary, error) {
	cfg = cfg.WithDefaults()
	return func(ctx context.Context) (*Summary, error) {
		r, err := New(db, func(o *Options) {
			o.Table, o.Segments, o.MaxRCU, o.Budget, o.RecordExpiry = cfg.Table, cfg.Segments, cfg.MaxRCU, cfg.Budget, cfg.IdempotencyExpiry
			if lc, ok := lambdacontext.FromContext(ctx); ok {
				o.Owner = lc.AwsRequestID
			}
			for _, f := range opts {
				f(o)
			}
		})
		if err != nil {
			return nil, err
		}
		out, err := r.Run(ctx)
		if err != nil {
			return nil, err
		}
		return &Summary{Pass: out.Pass, Skipped: out.Skipped, Lost: out.Lost, Items: out.Items, ConsumedRCU: out.ConsumedRCU, Verdict: out.Verdict}, nil
	}
}
