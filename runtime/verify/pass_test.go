package verify_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/verify"
)

// tickingClock advances by step at every reading, so a Step's deadline
// falls after a page or two. The segments read it concurrently.
func tickingClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
}

// runPass runs a pass of one-item pages in steps that each end after a
// couple of pages, as invocations cut short by their time budget would,
// and checks the chunks.
func runPass(t *testing.T, db verify.DB, table string) (*verify.Report, verify.Cursor, int) {
	t.Helper()
	clock := tickingClock(time.Second)
	opts := func(o *verify.Options) { o.Table, o.MaxRCU, o.PageSize, o.Clock = table, -1, 1, clock }
	c := verify.NewCursor(3, time.Now())
	var chunks []verify.Chunk
	steps := 0
	for !c.Done() {
		chunk, next, err := verify.Step(context.Background(), db, c, clock().Add(2*time.Second), opts)
		if err != nil {
			t.Fatal(err)
		}
		chunks, c = append(chunks, chunk), next
		if steps++; steps > 10_000 {
			t.Fatal("the pass does not end")
		}
	}
	rep, err := verify.Check(c, chunks, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep, c, steps
}

// TestPassInStepsFindsWhatTableFinds: every broken case of
// testdata/cases.json, scanned in many short steps whose chunks are checked
// at the end, gives exactly the violations of its golden file.
func TestPassInStepsFindsWhatTableFinds(t *testing.T) {
	healthy := fixtureItems(t)
	for _, tc := range loadCases(t) {
		t.Run(tc.Name, func(t *testing.T) {
			items := apply(t, healthy, tc.Mutations)
			db, _ := ddbtest.Client(t, nil)
			table := ddbtest.TableName("pass-" + tc.Name)
			load(t, db, table, items)
			rep, c, steps := runPass(t, db, table)
			if steps < 2 {
				t.Errorf("the pass took %d step, want several", steps)
			}
			if rep.Items != int64(len(items)) || c.Tally.Items != rep.Items {
				t.Errorf("read %d items (cursor %d), the table holds %d", rep.Items, c.Tally.Items, len(items))
			}
			got := goldenOf(t, rep)
			want, err := os.ReadFile(filepath.Join("testdata", tc.Name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the stepped pass differs from the golden\ngot:\n%s\nwant:\n%s", tc.About, got, want)
			}
		})
	}
}

// TestConfirmKeepsWhatStaysAndDropsWhatWasInFlight: a balance that was off
// while the pass read it but is right when Confirm re-reads it (a
// transaction in flight) is dropped; one still off is confirmed.
func TestConfirmKeepsWhatStaysAndDropsWhatWasInFlight(t *testing.T) {
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName("pass-confirm")
	load(t, db, table, fixtureItems(t))
	setBalance := func(user, balance string) {
		t.Helper()
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
			Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#" + user}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}},
			UpdateExpression:          aws.String("SET balance = :b"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":b": &types.AttributeValueMemberN{Value: balance}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	get := func(user string) string {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#" + user}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}}})
		if err != nil || out.Item == nil {
			t.Fatalf("profile of %s: %v", user, err)
		}
		return out.Item["balance"].(*types.AttributeValueMemberN).Value
	}
	alice, bob := get("alice"), get("bob")
	setBalance("alice", "999999")
	setBalance("bob", "888888")
	rep, c, _ := runPass(t, db, table)
	if rep.Counts[verify.BalanceMismatch] != 2 {
		t.Fatalf("the pass found %v, want 2 balance mismatches", rep.Counts)
	}
	setBalance("bob", bob) // bob's was a transaction in flight
	confirmed, err := verify.Confirm(ctx, db, rep, c, func(o *verify.Options) { o.Table = table })
	if err != nil {
		t.Fatal(err)
	}
	if confirmed.Total() != 1 || len(confirmed.Violations) != 1 || confirmed.Violations[0].UserID != "alice" || confirmed.Violations[0].Kind != verify.BalanceMismatch {
		t.Errorf("confirmed %+v, want alice's balance mismatch only", confirmed.Violations)
	}
	if confirmed.ConsumedRCU <= 0 {
		t.Errorf("Confirm reports %v RCU, want the re-reads' capacity", confirmed.ConsumedRCU)
	}
	setBalance("alice", alice)
	again, err := verify.Confirm(ctx, db, rep, c, func(o *verify.Options) { o.Table = table })
	if err != nil {
		t.Fatal(err)
	}
	if !again.OK {
		t.Errorf("after the repair Confirm still finds %+v", again.Violations)
	}
}

// TestStepRefusesABadCursor: a cursor without segments is an error, not
// an empty pass.
func TestStepRefusesABadCursor(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	if _, _, err := verify.Step(context.Background(), db, verify.Cursor{}, time.Now(), func(o *verify.Options) { o.Table = "t" }); err == nil {
		t.Error("Step took a cursor without segments")
	}
	if _, _, err := verify.Step(context.Background(), db, verify.NewCursor(1, time.Now()), time.Now()); err != verify.ErrNoTable {
		t.Errorf("err = %v, want ErrNoTable", err)
	}
}
