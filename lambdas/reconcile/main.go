// Command reconcile is the live reconciliation: EventBridge Scheduler
// invokes it every few minutes; each invocation scans the next part of the
// table under a lease, and the one that ends a pass checks the money
// invariants, confirms the violations and publishes them (runtime/reconcile).
// It reads TABLE_NAME, RECONCILE_SEGMENTS, RECONCILE_MAX_RCU,
// RECONCILE_BUDGET and IDEMPOTENCY_EXPIRY (runtime/config).
package main

import (
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/reconcile"
	"github.com/oncetable/oncetable/runtime/retry"
)

func main() {
	cfg, err := config.LoadReconcile(os.Getenv)
	if err != nil {
		log.Fatalf("reconcile: %v", err)
	}
	aws, err := lambdaenv.Config()
	if err != nil {
		log.Fatalf("reconcile: %v", err)
	}
	metrics := obs.NewMetrics(obs.Sync(os.Stdout))
	lambda.Start(reconcile.Handler(reconcile.Retrying(retry.NewClient(aws)), cfg, func(o *reconcile.Options) { o.Metrics = metrics }))
}
