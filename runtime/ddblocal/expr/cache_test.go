package expr

import (
	"fmt"
	"sync"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Parsed trees are shared between requests through the parse cache, so
// evaluating them must never write to them. Run with -race.
func TestCompiledConcurrentUse(t *testing.T) {
	cond := "attribute_exists(#pk) AND #bal >= :amt"
	upd := "SET #bal = #bal - :amt, l[0] = :amt REMOVE l[1] ADD tags :t"
	vals := values(t, `{":amt":{"N":"1"},":t":{"SS":["x"]}}`)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				c, err := Compile(Input{Condition: &cond, Update: &upd, Names: Names{"#pk": "PK", "#bal": "balance"}, Values: vals})
				if err != nil {
					t.Error(err)
					return
				}
				it := attr.Item{"PK": attr.Str(fmt.Sprint(g, i)), "balance": attr.Int(int64(i + 1)), "l": attr.List(attr.Int(1), attr.Int(2))}
				if ok, err := c.Check(it); !ok || err != nil {
					t.Errorf("Check = %v, %v", ok, err)
					return
				}
				next, err := c.Apply(it)
				if err != nil {
					t.Error(err)
					return
				}
				if next["balance"].S != fmt.Sprint(i) || len(next["l"].L) != 1 || len(it["l"].L) != 2 {
					t.Errorf("Apply gave %v from %v", next, it)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestParseCacheBounded(t *testing.T) {
	for i := range maxCached + 10 {
		src := fmt.Sprintf("a%d = :v", i)
		if _, err := cachedParse('C', src, ParseCondition); err != nil {
			t.Fatal(err)
		}
	}
	if n := cacheSize.Load(); n > maxCached {
		t.Errorf("cache holds %d entries, limit %d", n, maxCached)
	}
	// A cached parse error is returned again, unchanged.
	_, err1 := cachedParse('C', "a =", ParseCondition)
	_, err2 := cachedParse('C', "a =", ParseCondition)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("cached errors %v / %v", err1, err2)
	}
}
