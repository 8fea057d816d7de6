// Command canary is the payments API's synthetic probe: EventBridge
// Scheduler invokes it every few minutes; each invocation moves money on
// the canary user through the API, signed with the function's role
// (SigV4), and records Success 1 or 0 (runtime/canary). It reads
// CANARY_API_URL and CANARY_USER.
package main

import (
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/oncetable/oncetable/runtime/canary"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/obs"
)

func main() {
	cfg, err := lambdaenv.Config()
	if err != nil {
		log.Fatalf("canary: %v", err)
	}
	env, err := canary.LoadConfig(os.Getenv)
	if err != nil {
		log.Fatalf("canary: %v", err)
	}
	c := canary.New(func(o *canary.Options) {
		o.BaseURL, o.Sign, o.Metrics = env.URL, canary.SigV4(cfg), obs.NewMetrics(obs.Sync(os.Stdout))
		if env.UserID != "" {
			o.UserID = env.UserID
		}
	})
	lambda.Start(canary.Handler(c, obs.NewLogger(os.Stdout)))
}
