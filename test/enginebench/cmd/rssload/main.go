// Command rssload loads items of about 200 bytes into an in-memory engine
// through its in-process client and prints, as JSON, its own resident set
// size read from /proc/self/status. It runs as a process of its own so that
// nothing else (the benchmark, other peers) shares the figure.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/test/enginebench"
)

func main() {
	items := flag.Int("items", 1_000_000, "items to load")
	flag.Parse()

	ctx := context.Background()
	e := ddblocal.New()
	defer e.Close()
	client := e.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	if _, err := client.CreateTable(ctx, enginebench.TableInput("rss")); err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	if err := enginebench.Load(ctx, client, "rss", *items, enginebench.UserPartition); err != nil {
		log.Fatal(err)
	}
	load := time.Since(start)
	d, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("rss")})
	if err != nil {
		log.Fatal(err)
	}
	if got := aws.ToInt64(d.Table.ItemCount); got != int64(*items) {
		log.Fatalf("table holds %d items, want %d", got, *items)
	}
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, hwm, err := status()
	if err != nil {
		log.Fatal(err)
	}
	out := enginebench.Memory{
		Items:       *items,
		ItemBytes:   int(aws.ToInt64(d.Table.TableSizeBytes) / int64(max(*items, 1))),
		LoadSeconds: load.Seconds(),
		RSSBytes:    rss,
		HWMBytes:    hwm,
		HeapBytes:   ms.HeapInuse,
	}
	runtime.KeepAlive(e)
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}

// status reads VmRSS and VmHWM (in kB) from /proc/self/status.
func status() (rss, hwm int64, err error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		v, perr := strconv.ParseInt(fields[1], 10, 64)
		if perr != nil {
			continue
		}
		switch fields[0] {
		case "VmRSS:":
			rss = v * 1024
		case "VmHWM:":
			hwm = v * 1024
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/self/status")
	}
	return rss, hwm, sc.Err()
}
