package costbench_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/metadata"
)

const (
	metadataStart = "<!-- metadata: go test ./test/costbench -run TestMetadataCost -update -->"
	metadataEnd   = "<!-- end of metadata -->"
)

// fullMetadata is the largest metadata in bytes: MaxKeys keys of
// MaxKeyLength ASCII characters, each value MaxValueLength of them.
func fullMetadata() string {
	parts := make([]string, metadata.MaxKeys)
	for i := range parts {
		k := fmt.Sprintf("k%02d", i) + strings.Repeat("k", metadata.MaxKeyLength-3)
		parts[i] = fmt.Sprintf("%q:%q", k, strings.Repeat("v", metadata.MaxValueLength))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// measureMetadata runs a debit, a user's creation, an order's creation and
// a settle without metadata, with three short keys and with the largest
// metadata (ASCII, the most a body of 64 KiB holds at the bounds), and
// renders the section of docs/cost.md that shows what metadata costs.
func measureMetadata(t testing.TB) string {
	w := newWorld(t)
	u := w.user(t, 1_000_000)
	small, full := `{"invoice":"INV-2026-0001","cart":"c_8f3a","channel":"web"}`, fullMetadata()
	var b strings.Builder
	b.WriteString(metadataStart + `
## Metadata

A request's ` + "`metadata`" + ` is stored on what it writes and in its idempotency record's stored answer, so it
adds to both items' size, and DynamoDB charges a write per 1 KB of an item (two in a transaction). Its
size by DynamoDB's rule is 8 bytes for the name ` + "`metadata`" + `, 3 for the map and, per key, 1 byte plus the key's and
the value's UTF-8 bytes: three short keys add about 60 bytes, the largest ASCII metadata (` + fmt.Sprint(metadata.MaxKeys) + ` keys of ` + fmt.Sprint(metadata.MaxKeyLength) + `
characters, values of ` + fmt.Sprint(metadata.MaxValueLength) + `) adds 27,061 bytes to each item that carries it. A settle writes its metadata on
its ledger entry and the order's merged metadata on the order, so an order with large metadata makes every
later write of the order (settle, refund) pay for it again. A strongly consistent read costs 1 RCU per 4 KB,
so reading an item with the largest metadata costs 7 RCU where it cost 1. Measured by ` + "`go test ./test/costbench -run TestMetadataCost`" + `
(` + "`-update`" + ` rewrites this section) on the embedded engine, which counts capacity by the same rule.

| request | metadata | body bytes | requests | WCU | RCU |
|---|---|---:|---:|---:|---:|
`)
	for _, m := range []struct{ name, json string }{{"none", ""}, {"3 short keys", small}, {"largest", full}} {
		with := func(body string) string {
			if m.json == "" {
				return body + "}"
			}
			return body + `,"metadata":` + m.json + "}"
		}
		user := w.id("mu")
		order := w.id("mo")
		w.must(t, 201, "POST", "/users/"+u+"/orders", w.id("seed-"), fmt.Sprintf(`{"orderId":%q,"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":100}]}`, order))
		w.must(t, 201, "POST", "/orders/"+order+"/payments", w.id("seed-"), `{"amount":100,"currency":"EUR"}`)
		rows := []struct{ name, path, key, body string }{
			{"create a user", "/users", "", with(fmt.Sprintf(`{"userId":%q,"name":"U","email":"u@example.com"`, user))},
			{"debit", "/users/" + u + "/debits", w.id("md-"), with(`{"amount":10,"currency":"EUR"`)},
			{"create an order", "/users/" + u + "/orders", w.id("mo-"), with(`{"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":100}]`)},
			{"settle", "/orders/" + order + "/settle", w.id("ms-"), with(`{"amount":100,"currency":"EUR"`)},
		}
		for _, r := range rows {
			var use usage
			resp, _ := w.api.Handle(metered(context.Background(), &use), event("POST", r.path, r.key, r.body))
			if resp.StatusCode >= 300 {
				t.Fatalf("%s with %s metadata: %d %s", r.name, m.name, resp.StatusCode, resp.Body)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %g | %g |\n", r.name, m.name, len(r.body), use.Requests, use.WCU, use.RCU)
		}
	}
	b.WriteString("\n" + metadataEnd)
	return b.String()
}

// metadataCost is the section BenchmarkMetadata measured, for the report.
var metadataCost string

// BenchmarkMetadata measures the metadata section once for the report
// (make bench); its figures do not depend on b.N.
func BenchmarkMetadata(b *testing.B) { measureOnce(b, measureMetadata, &metadataCost) }

// TestMetadataCost pins what metadata costs and keeps the section of
// docs/cost.md that shows it true.
func TestMetadataCost(t *testing.T) {
	keepSection(t, measureMetadata(t), metadataStart, metadataEnd, "TestMetadataCost")
}

// TestMetadataSizeRule checks the figure the section states: the largest
// ASCII metadata's size by DynamoDB's item size rule.
func TestMetadataSizeRule(t *testing.T) {
	size := len("metadata") + 3
	for i := 0; i < metadata.MaxKeys; i++ {
		size += 1 + metadata.MaxKeyLength + metadata.MaxValueLength
	}
	if size != 27_061 {
		t.Errorf("the largest metadata is %d bytes by the item size rule, the section says 27,061", size)
	}
}
