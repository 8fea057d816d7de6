package migratedemo_test

import (
	"context"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/test/workload/migratedemo"
)

// TestScaleFigure is the scale figure in miniature (make bench-migrate is
// the figure): orders offered at 2.5 times one partition's limit are
// throttled on GSI1's one partition in v1 and pass on v2's 8 shards.
func TestScaleFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("drives two engines for a few seconds")
	}
	rows, err := migratedemo.Scale(context.Background(), migratedemo.ScaleConfig{Rate: 40, Duration: 1500 * time.Millisecond, WriteUnits: 16, Users: 40})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", migratedemo.ScaleMarkdown(rows, "TestScaleFigure"))
	v1, v2 := rows[0], rows[1]
	if v1.Stage != schema.OrdersV1 || v2.Stage != schema.OrdersV2 {
		t.Fatalf("stages %s, %s; want v1 then v2", v1.Stage, v2.Stage)
	}
	hot1, hot2 := v1.Throttles[ddblocal.ReasonIndexWriteKeyRange], v2.Throttles[ddblocal.ReasonIndexWriteKeyRange]
	if hot1 == 0 || v1.Throttled == 0 {
		t.Errorf("v1: %d index throttles, %d requests throttled; want both above 0", hot1, v1.Throttled)
	}
	if hot2*4 > hot1 || v2.Created <= v1.Created {
		t.Errorf("v2: %d index throttles (v1 %d), %d created (v1 %d); want far fewer throttles and more orders", hot2, hot1, v2.Created, v1.Created)
	}
}
