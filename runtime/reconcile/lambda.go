package reconcile

import (
	"context"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/oncetable/oncetable/runtime/config"
)

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
