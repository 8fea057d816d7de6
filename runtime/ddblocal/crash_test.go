package ddblocal_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// The crash test kills a real engine process (this test binary, re-run as
// TestCrashChild) with SIGKILL at random points of a mixed load, restarts
// it on the same data directory and checks what a client was promised:
//
//   - nothing acknowledged is lost: every acknowledged PutItem and ledger
//     entry is there, every ADD counter holds at least its acknowledged
//     increments (and at most its attempted ones);
//   - nothing is half-applied: transfers between accounts, some across two
//     tables, keep the total balance, and every account's count of
//     transfers matches the ledger entries exactly;
//   - tokens are kept: an acknowledged transaction replayed with its
//     ClientRequestToken after the restart succeeds without applying
//     again, and the token with other parameters fails with
//     IdempotentParameterMismatchException.
//
// make test runs a few cycles; make crash-test runs -crash.cycles of them
// in both durability modes.
var crashCycles = flag.Int("crash.cycles", 0, "kill-and-restart cycles of TestCrash (0: the short form)")

const (
	crashTableA   = "crash-accounts"
	crashTableB   = "crash-remote"
	crashAccounts = 8 // per table
	crashBalance  = 1000
)

// TestCrashChild is the engine process of TestCrash; it does nothing
// unless run by it.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("DDBLOCAL_CRASH_DIR")
	if dir == "" {
		t.Skip("run by TestCrash")
	}
	e, err := ddblocal.Open(func(o *ddblocal.Options) {
		o.Dir = dir
		o.Durable = os.Getenv("DDBLOCAL_CRASH_DURABLE") == "1"
	})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(3)
	}
	fmt.Println("ADDR", ln.Addr().String(), "RECOVERY", e.Recovery())
	_ = http.Serve(ln, e.Handler()) // until killed
}

func TestCrash(t *testing.T) {
	if os.Getenv("DDBLOCAL_CRASH_DIR") != "" {
		t.Skip("in the child")
	}
	cycles := *crashCycles
	if cycles == 0 {
		cycles = 4
	}
	c := &crashRun{t: t, dir: t.TempDir(), acked: map[string]bool{}, counters: map[string]*crashCounter{}}
	c.start(false)
	c.createTables()
	for i := range cycles {
		durable := i%2 == 1
		c.cycle = i
		stop := c.load(time.Duration(50+rand.IntN(300)) * time.Millisecond)
		c.kill()
		stop()
		c.start(durable)
		c.verify(fmt.Sprintf("cycle %d (durable %v)", i+1, durable))
	}
	c.kill()
	t.Logf("%d cycles: %d acknowledged writes checked, %d token replays", cycles, c.ackCount, c.replays)
}

type crashRun struct {
	t     *testing.T
	dir   string
	cmd   *exec.Cmd
	db    *dynamodb.Client
	seq   int
	cycle int
	mu    sync.Mutex
	wait  chan error

	acked    map[string]bool // ledger and put ids acknowledged
	tokens   []crashTx       // acknowledged or in doubt, with a token
	counters map[string]*crashCounter
	ackCount int
	replays  int
}

type crashCounter struct{ acked, attempted int }

// crashTx is a transfer: from and to are account keys ("table/pk").
type crashTx struct {
	id, token, from, to string
	acked               bool
	cycle               int
}

func (c *crashRun) start(durable bool) {
	c.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), "DDBLOCAL_CRASH_DIR="+c.dir, "DDBLOCAL_CRASH_DURABLE="+map[bool]string{true: "1"}[durable])
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = cmd.Process.Kill() }) // when a check fails
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) >= 2 && f[0] == "ADDR" {
			if len(f) > 3 {
				c.t.Fatalf("engine recovered after a process kill: %s", strings.Join(f[3:], " "))
			}
			c.db = ddblocal.EndpointClient("http://"+f[1], func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
			break
		}
		if len(f) >= 1 && f[0] == "ERROR" {
			c.t.Fatalf("engine did not open its data directory: %s", lines.Text())
		}
	}
	if c.db == nil {
		c.t.Fatal("engine process ended without serving")
	}
	c.cmd = cmd
	c.wait = make(chan error, 1)
	go func() {
		for lines.Scan() {
		}
		c.wait <- cmd.Wait()
	}()
}

func (c *crashRun) kill() {
	_ = c.cmd.Process.Kill() // SIGKILL
	<-c.wait
}

func (c *crashRun) createTables() {
	ctx := context.Background()
	for _, name := range []string{crashTableA, crashTableB} {
		_, err := c.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
		if err != nil {
			c.t.Fatal(err)
		}
		for i := range crashAccounts {
			_, err := c.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "acct-" + strconv.Itoa(i)}, "bal": num(crashBalance), "n": num(0)}})
			if err != nil {
				c.t.Fatal(err)
			}
		}
	}
}

func num(v int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }

func (c *crashRun) next(prefix string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return fmt.Sprintf("%s-%d", prefix, c.seq)
}

// load starts four writers, returns after d with them still running (the
// caller kills the engine mid-load, with requests in flight), and gives
// the function that stops them.
func (c *crashRun) load(d time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				switch rand.IntN(4) {
				case 0:
					c.transfer(ctx, true, w%2 == 0)
				case 1:
					c.transfer(ctx, false, w%2 == 0)
				case 2:
					c.put(ctx)
				default:
					c.add(ctx, fmt.Sprintf("counter-%d", w))
				}
			}
		}()
	}
	time.Sleep(d)
	return func() { cancel(); wg.Wait() }
}

func account(cross bool) (string, string) {
	i, j := rand.IntN(crashAccounts), rand.IntN(crashAccounts)
	if !cross && i == j {
		j = (i + 1) % crashAccounts
	}
	to := crashTableA
	if cross {
		to = crashTableB
	}
	return crashTableA + "/acct-" + strconv.Itoa(i), to + "/acct-" + strconv.Itoa(j)
}

func (c *crashRun) transfer(ctx context.Context, cross, withToken bool) {
	from, to := account(cross)
	tx := crashTx{id: c.next("ledger"), from: from, to: to, cycle: c.cycle}
	if withToken {
		tx.token = c.next("tok")
		c.mu.Lock()
		c.tokens = append(c.tokens, tx)
		c.mu.Unlock()
	}
	_, err := c.db.TransactWriteItems(ctx, tx.input(1))
	if err == nil {
		c.ack(tx.id)
		if withToken {
			c.mu.Lock()
			for i := range c.tokens {
				if c.tokens[i].token == tx.token {
					c.tokens[i].acked = true
				}
			}
			c.mu.Unlock()
		}
	}
}

// input is the transfer of amount from one account to the other, with
// its ledger entry in the receiving table.
func (tx crashTx) input(amount int) *dynamodb.TransactWriteItemsInput {
	upd := func(acct string, delta int) types.TransactWriteItem {
		table, pk, _ := strings.Cut(acct, "/")
		return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table),
			Key:              map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
			UpdateExpression: aws.String("ADD bal :d, n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(delta), ":one": num(1)}}}
	}
	toTable, _, _ := strings.Cut(tx.to, "/")
	in := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		upd(tx.from, -amount), upd(tx.to, amount),
		{Put: &types.Put{TableName: aws.String(toTable), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: tx.id}, "from": &types.AttributeValueMemberS{Value: tx.from}}}},
	}}
	if tx.token != "" {
		in.ClientRequestToken = aws.String(tx.token)
	}
	return in
}

func (c *crashRun) put(ctx context.Context) {
	id := c.next("put")
	_, err := c.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(crashTableB),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}, "payload": &types.AttributeValueMemberS{Value: strings.Repeat("x", 200)}}})
	if err == nil {
		c.ack(id)
	}
}

func (c *crashRun) add(ctx context.Context, name string) {
	c.mu.Lock()
	cnt := c.counters[name]
	if cnt == nil {
		cnt = &crashCounter{}
		c.counters[name] = cnt
	}
	cnt.attempted++
	c.mu.Unlock()
	_, err := c.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(crashTableA),
		Key:              map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}},
		UpdateExpression: aws.String("ADD v :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1)}})
	if err == nil {
		c.mu.Lock()
		cnt.acked++
		c.ackCount++
		c.mu.Unlock()
	}
}

func (c *crashRun) ack(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acked[id] = true
	c.ackCount++
}

// verify checks the restarted engine's data against what was acknowledged.
func (c *crashRun) verify(when string) {
	t := c.t
	t.Helper()
	ctx := context.Background()
	items := c.scan(ctx)

	// Token replays first: an acknowledged one must answer without
	// applying; one in doubt applies now if it had not, exactly once.
	for _, tx := range c.tokens {
		if _, err := c.db.TransactWriteItems(ctx, tx.input(1)); err != nil {
			t.Fatalf("%s: replay of %s (acknowledged %v): %v", when, tx.token, tx.acked, err)
		}
		c.replays++
		var mismatch *types.IdempotentParameterMismatchException
		if _, err := c.db.TransactWriteItems(ctx, tx.input(2)); !errors.As(err, &mismatch) {
			t.Fatalf("%s: token %s with other parameters: %v, want IdempotentParameterMismatchException", when, tx.token, err)
		}
		if tx.acked && !c.has(items, tx.id) {
			t.Fatalf("%s: acknowledged transfer %s lost", when, tx.id)
		}
	}
	after := c.scan(ctx)
	for _, tx := range c.tokens {
		if tx.acked {
			continue // unchanged by its replay, checked below
		}
		c.ack(tx.id) // applied now, by its replay if not before
	}
	// Tokens are kept for 10 minutes: replay those of the last two cycles.
	kept := c.tokens[:0]
	for _, tx := range c.tokens {
		if tx.cycle >= c.cycle-1 {
			tx.acked = true
			kept = append(kept, tx)
		}
	}
	c.tokens = kept
	c.checkInvariants(when+", before the replays", items)
	c.checkInvariants(when+", after the replays", after)
	for id := range c.acked {
		if !c.has(after, id) {
			t.Fatalf("%s: acknowledged write %s lost", when, id)
		}
	}
	for name, cnt := range c.counters {
		v := 0
		if it, ok := after[crashTableA+"/"+name]; ok {
			v, _ = strconv.Atoi(it["v"].(*types.AttributeValueMemberN).Value)
		}
		if v < cnt.acked || v > cnt.attempted {
			t.Fatalf("%s: counter %s = %d, acknowledged %d, attempted %d", when, name, v, cnt.acked, cnt.attempted)
		}
		cnt.acked, cnt.attempted = v, v // the engine's value is now known
	}
}

func (c *crashRun) has(items map[string]map[string]types.AttributeValue, id string) bool {
	for _, table := range []string{crashTableA, crashTableB} {
		if _, ok := items[table+"/"+id]; ok {
			return true
		}
	}
	return false
}

// checkInvariants checks that no transfer is half-applied: the balances
// keep their total, and the accounts' transfer counts add up to twice the
// ledger entries.
func (c *crashRun) checkInvariants(when string, items map[string]map[string]types.AttributeValue) {
	total, touches, ledger := 0, 0, 0
	for key, it := range items {
		_, pk, _ := strings.Cut(key, "/")
		switch {
		case strings.HasPrefix(pk, "acct-"):
			b, _ := strconv.Atoi(it["bal"].(*types.AttributeValueMemberN).Value)
			k, _ := strconv.Atoi(it["n"].(*types.AttributeValueMemberN).Value)
			total += b
			touches += k
		case strings.HasPrefix(pk, "ledger-"):
			ledger++
		}
	}
	if want := 2 * crashAccounts * crashBalance; total != want {
		c.t.Fatalf("%s: balances total %d, want %d: a transfer is half-applied", when, total, want)
	}
	if touches != 2*ledger {
		c.t.Fatalf("%s: accounts count %d transfer legs, ledger has %d entries (want %d legs): a transfer is half-applied", when, touches, ledger, 2*ledger)
	}
}

// scan reads both tables, keyed "table/pk".
func (c *crashRun) scan(ctx context.Context) map[string]map[string]types.AttributeValue {
	out := map[string]map[string]types.AttributeValue{}
	for _, table := range []string{crashTableA, crashTableB} {
		p := dynamodb.NewScanPaginator(c.db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				c.t.Fatal(err)
			}
			for _, it := range page.Items {
				out[table+"/"+it["pk"].(*types.AttributeValueMemberS).Value] = it
			}
		}
	}
	return out
}
