package ddblocal

import "github.com/oncetable/oncetable/runtime/ddblocal/attr"

// consumed accumulates the capacity one request uses on one table, in the
// units DynamoDB reports: one write unit per started KB written, one read
// unit per started 4 KB read (half for eventually consistent reads).
type consumed struct {
	table   string
	read    float64
	write   float64
	gsis    map[string]float64
	lsis    map[string]float64
	indexRW map[string]bool // index name -> counted as write
}

func (c *consumed) addWrite(t *table, r writeResult, factor float64) {
	c.table = t.name
	c.write += r.table * factor
	for _, iu := range r.indexes {
		c.addIndex(iu.ix, iu.units*factor, true)
	}
}

// addIndex counts units on an index. The caller holds the table's lock or
// knows ix (whose name and kind never change).
func (c *consumed) addIndex(ix *index, units float64, write bool) {
	name := ix.name
	m := &c.gsis
	if ix.local {
		m = &c.lsis
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[name] += units
	if c.indexRW == nil {
		c.indexRW = map[string]bool{}
	}
	c.indexRW[name] = write
}

func capacityUnits(units float64, write bool) map[string]any {
	m := map[string]any{"CapacityUnits": units}
	if write {
		m["WriteCapacityUnits"] = units
	} else {
		m["ReadCapacityUnits"] = units
	}
	return m
}

// reportsCapacity reports whether ReturnConsumedCapacity asks for a report;
// single-item writes skip the index accounting otherwise.
func reportsCapacity(mode string) bool { return mode == "TOTAL" || mode == "INDEXES" }

// report returns the ConsumedCapacity object for mode TOTAL or INDEXES, or
// nil for NONE.
func (c *consumed) report(mode string) map[string]any {
	if !reportsCapacity(mode) {
		return nil
	}
	write := c.write > 0
	total := c.read + c.write
	for n, u := range c.gsis {
		total += u
		write = write || c.indexRW[n]
	}
	for n, u := range c.lsis {
		total += u
		write = write || c.indexRW[n]
	}
	out := capacityUnits(total, write)
	out["TableName"] = c.table
	if mode == "INDEXES" {
		out["Table"] = capacityUnits(c.read+c.write, write)
		if len(c.gsis) > 0 {
			g := map[string]any{}
			for n, u := range c.gsis {
				g[n] = capacityUnits(u, c.indexRW[n])
			}
			out["GlobalSecondaryIndexes"] = g
		}
		if len(c.lsis) > 0 {
			l := map[string]any{}
			for n, u := range c.lsis {
				l[n] = capacityUnits(u, c.indexRW[n])
			}
			out["LocalSecondaryIndexes"] = l
		}
	}
	return out
}

func checkReturnConsumedCapacity(mode string) error {
	switch mode {
	case "", "NONE", "TOTAL", "INDEXES":
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", mode)
}

// maxItemSize is DynamoDB's 400 KB item limit.
const maxItemSize = 400 * 1024

// maxItemDepth is how deeply an item may nest: 32 levels, the attribute
// itself being level 1 (Developer Guide, "Service, account, and table
// quotas": nested attributes up to 32 levels deep).
const maxItemDepth = 32

// checkItemDepth refuses an item nested deeper than maxItemDepth with
// DynamoDB's message.
func checkItemDepth(it attr.Item) error {
	if attr.Depth(it) > maxItemDepth {
		return validationf("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")
	}
	return nil
}

// checkItemSize refuses an item over maxItemSize, or nested deeper than
// maxItemDepth.
func checkItemSize(it attr.Item, update bool) error {
	if err := checkItemDepth(it); err != nil {
		return err
	}
	if attr.ItemSize(it) > maxItemSize {
		if update {
			return validationf("Item size to update has exceeded the maximum allowed size")
		}
		return validationf("Item size has exceeded the maximum allowed size")
	}
	return nil
}
