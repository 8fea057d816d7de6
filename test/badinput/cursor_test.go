package badinput_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// forge signs a cursor for binding with the API's secret, as anyone who
// knows the secret can: a signature says who made a cursor, not that it
// belongs to the query it is sent to.
func forge(binding string, key map[string]string) string {
	av := map[string]types.AttributeValue{}
	for k, v := range key {
		av[k] = &types.AttributeValueMemberS{Value: v}
	}
	c, err := cursor.New([]byte(cursorSecret)).Encode(binding, av)
	if err != nil {
		panic(err)
	}
	return url.QueryEscape(c)
}

// TestSignedCursorOutsideItsQuery sends, to every list route, cursors
// signed for that very route with the API's secret whose key lies outside
// the query (another partition, a sort key outside its prefix, a key
// attribute missing or added, an empty or non-key value): each is 400
// invalid-cursor, never a 5xx, and writes nothing.
func TestSignedCursorOutsideItsQuery(t *testing.T) {
	e := newEnv(t)
	before := e.snapshot(t)
	type forged struct {
		name    string
		binding string
		key     map[string]string
	}
	routes := []struct {
		path    string
		binding string
		valid   map[string]string // a key inside the query, to be bent
		pk, sk  string            // the partition and sort attributes the query constrains
	}{
		{"/users/alice/ledger", "ledger", map[string]string{"PK": "USER#alice", "SK": "LEDGER#2026-01-01T00:00:00.000000000Z#cr_1"}, "PK", "SK"},
		{"/users/alice/orders", "userOrders", map[string]string{"PK": "USER#alice", "SK": "ORDER#2026-01-01T00:00:00.000000000Z#o-1"}, "PK", "SK"},
		{"/orders?status=created", "ordersByStatus", map[string]string{"PK": "ORDER#o-1", "SK": "ORDER#o-1", "GSI1PK": "ORDERSTATUS#created", "GSI1SK": "2026-01-01T00:00:00.000000000Z#o-1"}, "GSI1PK", ""},
		{"/payments/unprocessed", "unprocessed", map[string]string{"PK": "ORDER#o-1", "SK": "PAYMENT#p-1", "UnprocessedPK": "PAYMENT#UNPROCESSED", "UnprocessedSK": "2026-01-01T00:00:00.000000000Z#p-1"}, "UnprocessedPK", ""},
		{"/products?featured=true", "featured", map[string]string{"PK": "PROD#mug", "SK": "PROD#mug", "FeaturedPK": "PROD#FEATURED", "FeaturedSK": "Mug#mug"}, "FeaturedPK", ""},
	}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range m {
			out[a] = b
		}
		if v == "-" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	for _, r := range routes {
		cases := []forged{
			{"another partition", r.binding, with(r.valid, r.pk, "USER#bob")},
			{"the partition key missing", r.binding, with(r.valid, r.pk, "-")},
			{"the table's sort key missing", r.binding, with(r.valid, "SK", "-")},
			{"an extra attribute", r.binding, with(r.valid, "balance", "1")},
			{"an empty key value", r.binding, with(r.valid, "SK", "")},
			{"nothing but an unknown attribute", r.binding, map[string]string{"x": "y"}},
		}
		if r.sk == "SK" {
			cases = append(cases,
				forged{"a sort key outside the query's prefix (the profile)", r.binding, with(r.valid, "SK", "PROFILE")},
				forged{"a sort key outside the query's prefix (an address)", r.binding, with(r.valid, "SK", "PROFILE#ADDR#home")})
		}
		for _, c := range cases {
			t.Run(r.binding+"/"+c.name, func(t *testing.T) {
				sep := "?"
				if strings.Contains(r.path, "?") {
					sep = "&"
				}
				got := e.do("GET", r.path+sep+"limit=1&cursor="+forge(c.binding, c.key), nil, nil)
				if typ := strings.TrimPrefix(got.typ, httpapi.ProblemTypeBase); got.status != 400 || typ != "invalid-cursor" {
					t.Errorf("GET %s with %v: got %d %q, want 400 invalid-cursor; body %s", r.path, c.key, got.status, typ, truncate(got.body, 300))
				}
				if after := e.snapshot(t); after != before {
					t.Errorf("GET %s wrote to the table", r.path)
				}
			})
		}
	}
}
