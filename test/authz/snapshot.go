package authz

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Snapshot is the whole table, canonically encoded (a strongly consistent
// Scan, items as sorted JSON lines): two snapshots are equal exactly when
// nothing was written in between. For the catalogues' "the table is
// unchanged after a refusal".
func Snapshot(ctx context.Context, db dynamodb.ScanAPIClient, table string) (string, error) {
	var rows []string
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return "", fmt.Errorf("scan: %w", err)
		}
		for _, item := range page.Items {
			var m map[string]any
			if err := attributevalue.UnmarshalMap(item, &m); err != nil {
				return "", fmt.Errorf("decode item: %w", err)
			}
			b, _ := json.Marshal(m)
			rows = append(rows, string(b))
		}
	}
	sort.Strings(rows)
	return fmt.Sprintf("%d items\n%s", len(rows), strings.Join(rows, "\n")), nil
}
