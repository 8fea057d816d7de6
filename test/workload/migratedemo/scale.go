package migratedemo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/test/machine"
)

// ScaleConfig is the scale figure's load. Every field has a default.
type ScaleConfig struct {
	// Rate is the offered load in order creations per second, open loop:
	// a request is sent every 1/Rate whatever the answers. Default: 125,
	// 2.5 times what one partition admits at the default WriteUnits.
	Rate float64
	// Duration is how long each stage is driven. Default: 10s.
	Duration time.Duration
	// WriteUnits is each partition-key value's write limit per second,
	// scaled down from DynamoDB's 1,000. Default: 50.
	WriteUnits float64
	// Shards is N in v2. Default: 8.
	Shards int
	// Users own the orders, spread so that no user partition is hot.
	// Default: 400.
	Users int
	// InFlight caps the requests waiting for an answer; an offered request
	// beyond it is counted as not sent. Default: 2,048.
	InFlight int
	// Out receives a line per stage. Default: discarded.
	Out io.Writer
}

func (c ScaleConfig) withDefaults() ScaleConfig {
	if c.Rate <= 0 {
		c.Rate = 125
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.WriteUnits <= 0 {
		c.WriteUnits = 50
	}
	if c.Shards <= 0 {
		c.Shards = 8
	}
	if c.Users <= 0 {
		c.Users = 400
	}
	if c.InFlight <= 0 {
		c.InFlight = 2048
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	return c
}

// ScaleRow is one stage driven at the offered rate.
type ScaleRow struct {
	Stage  schema.OrderIndexes
	Shards int
	Config ScaleConfig
	// Offered requests, of which NotSent found InFlight requests waiting.
	Offered, NotSent int
	// Created answered 201; Throttled 503 (the API's retries used up on
	// throttling); Other counts every other answer by status.
	Created, Throttled int
	Other              map[int]int
	// Throttles are the engine's partition throttles by reason (every
	// throttled call, the API's retries included).
	Throttles map[string]int64
	P50, P99  time.Duration
	// Elapsed runs from the first request to the last answer.
	Elapsed time.Duration
}

// Achieved is the created orders per second, over Elapsed.
func (r ScaleRow) Achieved() float64 { return float64(r.Created) / r.Elapsed.Seconds() }

// ThrottleRate is the share of offered requests answered 503 throttled.
func (r ScaleRow) ThrottleRate() float64 { return float64(r.Throttled) / float64(max(r.Offered, 1)) }

// Scale drives order creation at cfg.Rate with partition throughput on,
// first in v1 (every new order on GSI1's ORDERSTATUS#created partition),
// then in v2 (OrdersByStatus, cfg.Shards partitions per status), each on a
// fresh engine and table.
func Scale(ctx context.Context, cfg ScaleConfig) ([]ScaleRow, error) {
	cfg = cfg.withDefaults()
	var rows []ScaleRow
	for _, st := range []struct {
		stage  schema.OrderIndexes
		shards int
	}{{schema.OrdersV1, 1}, {schema.OrdersV2, cfg.Shards}} {
		row, err := scaleStage(ctx, cfg, st.stage, st.shards)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(cfg.Out, "%s: offered %.0f/s, achieved %.1f/s, throttled %.1f%%, engine throttles %v\n",
			row.Stage, cfg.Rate, row.Achieved(), 100*row.ThrottleRate(), row.Throttles)
		rows = append(rows, row)
	}
	return rows, nil
}

func scaleStage(ctx context.Context, cfg ScaleConfig, stage schema.OrderIndexes, shards int) (ScaleRow, error) {
	eng, err := ddblocal.Open(func(o *ddblocal.Options) {
		o.TTLSweepInterval = -1
		o.PartitionThroughput = ddblocal.PartitionThroughput{Enabled: true, WriteUnits: cfg.WriteUnits}
	})
	if err != nil {
		return ScaleRow{}, err
	}
	defer eng.Close()
	db := eng.Client()
	const table = "oncetable-scale"
	acfg := httpapi.Config{Table: table, Log: io.Discard, Metrics: io.Discard, CursorSecret: []byte("oncetable scale figure cursor secret, 32+ bytes"),
		Auth: localrun.OperatorAuth(httpapi.Auth{})}
	Stage(stage, cfg.Shards)(&acfg)
	if err := provision.EnsureTableFor(ctx, db, table, acfg.Schema); err != nil {
		return ScaleRow{}, err
	}
	srv := httptest.NewServer(localrun.Handler(httpapi.New(db, acfg).Handle, nil))
	defer srv.Close()
	d := &driver{url: srv.URL, cfg: cfg, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.InFlight}, Timeout: 30 * time.Second}}
	if err := d.users(ctx); err != nil {
		return ScaleRow{}, err
	}
	before := eng.ThrottleCounts()
	row := d.drive(ctx)
	row.Stage, row.Shards, row.Config = stage, shards, cfg
	row.Throttles = map[string]int64{}
	for r, n := range eng.ThrottleCounts() {
		if n-before[r] > 0 {
			row.Throttles[r] = n - before[r]
		}
	}
	return row, nil
}

// driver sends the requests of one stage.
type driver struct {
	url  string
	cfg  ScaleConfig
	http *http.Client
}

func (d *driver) post(ctx context.Context, path, key, body string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// users creates the users, a few at a time.
func (d *driver) users(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, d.cfg.Users)
	sem := make(chan struct{}, 8)
	for i := 0; i < d.cfg.Users; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			status, err := d.post(ctx, "/users", "", fmt.Sprintf(`{"userId":"su%d","name":"Scale %d","email":"su%d@example.com"}`, i, i, i))
			if err == nil && status != http.StatusCreated {
				err = fmt.Errorf("migratedemo: create user su%d: status %d", i, status)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// drive offers one order creation every 1/Rate for Duration.
func (d *driver) drive(ctx context.Context) ScaleRow {
	var (
		mu   sync.Mutex
		row  = ScaleRow{Other: map[int]int{}}
		lat  []time.Duration
		wg   sync.WaitGroup
		sem  = make(chan struct{}, d.cfg.InFlight)
		step = time.Duration(float64(time.Second) / d.cfg.Rate)
	)
	start := time.Now()
	for i := 0; ctx.Err() == nil; i++ {
		at := start.Add(time.Duration(i) * step)
		if at.Sub(start) >= d.cfg.Duration {
			break
		}
		time.Sleep(time.Until(at))
		row.Offered++
		select {
		case sem <- struct{}{}:
		default:
			row.NotSent++
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			t0 := time.Now()
			body := fmt.Sprintf(`{"orderId":"so%06d","currency":"EUR","items":[{"productId":"p%d","quantity":1,"unitPrice":%d}]}`, i, i%20, 100+i%900)
			status, _ := d.post(ctx, fmt.Sprintf("/users/su%d/orders", i%d.cfg.Users), fmt.Sprintf("scale-%06d", i), body)
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, time.Since(t0))
			switch status {
			case http.StatusCreated:
				row.Created++
			case http.StatusServiceUnavailable:
				row.Throttled++
			default:
				row.Other[status]++
			}
		}()
	}
	wg.Wait()
	row.Elapsed = time.Since(start)
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	if len(lat) > 0 {
		row.P50, row.P99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return row
}

// ScaleMarkdown is the scale figure's section of docs/migrations.md.
func ScaleMarkdown(rows []ScaleRow, command string) string {
	var b strings.Builder
	if len(rows) == 0 {
		return ""
	}
	c := rows[0].Config
	fmt.Fprintf(&b, "%s Settings: order creations (POST /users/{id}/orders over HTTP, one attempt each, %d users) offered open loop at %.0f/s for %s per stage, partition throughput on at %.0f write units per partition-key value per second (DynamoDB's 1,000 scaled down by %.0f).\n\n",
		machine.Measured(command, time.Now()), c.Users, c.Rate, c.Duration, c.WriteUnits, 1000/c.WriteUnits)
	b.WriteString("| stage | partitions per status | offered/s | achieved/s | created | throttled (503) | throttle rate | other answers | last answer after | p50 | p99 | engine throttles by reason |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		other := []string{}
		for s, n := range r.Other {
			other = append(other, fmt.Sprintf("%d: %d", s, n))
		}
		sort.Strings(other)
		if r.NotSent > 0 {
			other = append(other, fmt.Sprintf("not sent: %d", r.NotSent))
		}
		reasons := []string{}
		for k, n := range r.Throttles {
			reasons = append(reasons, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(reasons)
		if len(reasons) == 0 {
			reasons = []string{"none"}
		}
		fmt.Fprintf(&b, "| %s | %d | %.0f | %.1f | %d | %d | %.1f %% | %s | %s | %s | %s | %s |\n", r.Stage, r.Shards, float64(r.Offered)/c.Duration.Seconds(),
			r.Achieved(), r.Created, r.Throttled, 100*r.ThrottleRate(), strings.Join(other, ", "), r.Elapsed.Round(100*time.Millisecond),
			r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond), strings.Join(reasons, ", "))
	}
	return b.String()
}
