package regionsim

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// Flag is an alarm of a Region's detector: a ledger entry of an epoch
// that reached the cell's home after the home claimed a later epoch, a
// money write made outside the owner at that epoch as seen where it
// lands.
type Flag struct {
	Region, Cell, Entry, Key string
	Epoch, Claimed           int64
	Amount                   int64
}

func (f Flag) String() string {
	return fmt.Sprintf("%s: cell %s: %s (key %s, %d) of epoch %d arrived after epoch %d was claimed here", f.Region, f.Cell, f.Entry, f.Key, f.Amount, f.Epoch, f.Claimed)
}

// Detector is the stream consumer of one Region's replica of the money
// table. It follows the cell's ownership item: once the Region claims an
// epoch (the item names it at that epoch), every ledger entry of an
// earlier epoch that arrives is flagged. A planned failover claims only
// after the drain proof, so it never flags there; a takeover flags each
// late write of the old home. Other Regions, which receive the claim and
// the old entries in any order, flag nothing.
type Detector struct {
	Region  string
	claimed map[string]int64 // by cell: the epoch this Region claimed last
	Flags   []Flag
}

// Handle is the detector's stream handler (a Lambda's, run by
// streampoll here).
func (d *Detector) Handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	for _, r := range ev.Records {
		img := r.Change.NewImage
		if img == nil {
			continue
		}
		cell := strings.TrimPrefix(img[schema.PartitionKey].String(), "CELL#")
		sk := img[schema.SortKey].String()
		switch {
		case sk == "OWNER":
			e := number(img["epoch"])
			if img["home"].String() == d.Region {
				d.claimed[cell] = max(d.claimed[cell], e)
			} else if e > d.claimed[cell] {
				delete(d.claimed, cell) // another Region's cell now
			}
		case strings.HasPrefix(sk, "LEDGER#") && r.EventName == "INSERT":
			if c, ok := d.claimed[cell]; ok && number(img["epoch"]) < c {
				d.Flags = append(d.Flags, Flag{Region: d.Region, Cell: cell, Entry: sk, Key: img["key"].String(),
					Epoch: number(img["epoch"]), Claimed: c, Amount: number(img["amount"])})
			}
		}
	}
	return events.DynamoDBEventResponse{}, nil
}

func number(v events.DynamoDBAttributeValue) int64 {
	if v.DataType() != events.DataTypeNumber {
		return 0
	}
	n, _ := strconv.ParseInt(v.Number(), 10, 64)
	return n
}

// Detectors starts a detector on every Region's stream of the money
// table; Poll delivers what each stream holds.
type Detectors struct {
	pollers  []*streampoll.Poller
	ByRegion map[string]*Detector
}

// Detectors opens the detectors of every Region.
func (c *Cluster) Detectors(ctx context.Context) (*Detectors, error) {
	ds := &Detectors{ByRegion: map[string]*Detector{}}
	for _, r := range c.cfg.Regions {
		out, err := c.DB[r].DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(Table)})
		if err != nil {
			return nil, err
		}
		if out.Table.LatestStreamArn == nil {
			return nil, fmt.Errorf("regionsim: the money table has no stream in %s", r)
		}
		d := &Detector{Region: r, claimed: map[string]int64{}}
		ds.ByRegion[r] = d
		ds.pollers = append(ds.pollers, streampoll.New(c.Eng.Region(r).StreamsClient(), aws.ToString(out.Table.LatestStreamArn), d.Handle))
	}
	return ds, nil
}

// Poll delivers every stream's records to its detector and returns every
// flag raised so far.
func (ds *Detectors) Poll(ctx context.Context) ([]Flag, error) {
	var flags []Flag
	for _, p := range ds.pollers {
		if _, err := p.Poll(ctx); err != nil {
			return nil, err
		}
	}
	for _, d := range ds.ByRegion {
		flags = append(flags, d.Flags...)
	}
	return flags, nil
}
