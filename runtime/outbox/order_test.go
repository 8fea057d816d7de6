package outbox_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/outbox"
)

// randomCredits is n credits of users drawn from a pool of users, seeded.
func randomCredits(n, users int, seed uint64) events.DynamoDBEvent {
	rng := rand.New(rand.NewPCG(seed, 1))
	return creditsOf(n, func(int) string { return fmt.Sprintf("u%03d", rng.IntN(users)) })
}

// TestPublisherKeepsEachUsersStreamOrder publishes batches whose entries
// EventBridge refuses at random, with so few attempts that some batches
// give up, and redelivers from the record the response names, as the
// event source mapping does, until everything is published. Per user, the
// first arrivals must be in stream order, whatever was refused.
func TestPublisherKeepsEachUsersStreamOrder(t *testing.T) {
	for _, c := range []struct {
		users    int
		failRate float64
	}{{1, 0.3}, {3, 0.3}, {10, 0.2}, {40, 0.5}} {
		t.Run(fmt.Sprintf("%d users, %.0f%% refused", c.users, 100*c.failRate), func(t *testing.T) {
			fake, client := newFakeEventBridge(t)
			rng := rand.New(rand.NewPCG(uint64(c.users), 2))
			fake.fail = func(string, int) string {
				if rng.Float64() < c.failRate {
					return "InternalFailure"
				}
				return ""
			}
			pub := outbox.NewPublisher(client, quiet, func(o *outbox.Options) { o.MaxAttempts = 2 })
			all := randomCredits(200, c.users, uint64(c.users))
			retries := redeliverUntilDone(t, pub, all)
			userOf, pos := map[string]string{}, map[string]int{}
			for i, r := range all.Records {
				id := "CreditPosted:" + r.Change.NewImage["entryId"].String()
				userOf[id], pos[id] = r.Change.NewImage["userId"].String(), i
			}
			seen, last := map[string]bool{}, map[string]int{}
			for _, id := range fake.published {
				if seen[id] {
					continue
				}
				seen[id] = true
				u := userOf[id]
				if p, ok := last[u]; ok && p > pos[id] {
					t.Errorf("user %s: %s (record %d) arrived after record %d", u, id, pos[id], p)
				}
				last[u] = pos[id]
			}
			if len(seen) != len(all.Records) {
				t.Errorf("%d distinct events published, want %d", len(seen), len(all.Records))
			}
			t.Logf("%d redeliveries, %d entries sent for %d events", retries, len(fake.published), len(seen))
		})
	}
}

// redeliverUntilDone hands batch to pub, then again from the record each
// response names, and returns how many redeliveries that took.
func redeliverUntilDone(t *testing.T, pub *outbox.Publisher, batch events.DynamoDBEvent) int {
	t.Helper()
	recs := batch.Records
	for n := 0; ; n++ {
		resp, err := pub.Handle(context.Background(), events.DynamoDBEvent{Records: recs})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.BatchItemFailures) == 0 {
			return n
		}
		if n > 1000 {
			t.Fatal("still failing after 1000 redeliveries")
		}
		for i, r := range recs {
			if r.Change.SequenceNumber == resp.BatchItemFailures[0].ItemIdentifier {
				recs = recs[i:]
				break
			}
		}
	}
}

// BenchmarkPutEventsCallsPerEvent measures what keeping each user's order
// costs: the PutEvents calls per event of a batch of 100 records whose
// users are drawn from pools of different sizes (calls/event; 0.1 is the
// floor of 10 entries a call, 1 is one user's batch).
func BenchmarkPutEventsCallsPerEvent(b *testing.B) {
	for _, users := range []int{1, 2, 5, 10, 25, 100, 1000} {
		b.Run(fmt.Sprintf("users=%d", users), func(b *testing.B) {
			fake, client := newFakeEventBridge(b)
			pub := outbox.NewPublisher(client, quiet)
			batch := randomCredits(100, users, 7)
			for b.Loop() {
				if _, err := pub.Handle(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(fake.calls))/float64(len(fake.published)), "calls/event")
		})
	}
}
