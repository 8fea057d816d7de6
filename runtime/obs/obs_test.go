package obs_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/obs"
)

func TestEMFLine(t *testing.T) {
	var buf bytes.Buffer
	m := obs.NewMetrics(&buf)
	m.Business("charge", obs.Replayed)
	m.Fault("settle", obs.ConflictRetried)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), buf.String())
	}
	tests := []struct{ namespace, flow, metric string }{
		{obs.BusinessNamespace, "charge", obs.Replayed},
		{obs.FaultNamespace, "settle", obs.ConflictRetried},
	}
	for i, tt := range tests {
		var got struct {
			AWS struct {
				Timestamp         int64
				CloudWatchMetrics []struct {
					Namespace  string
					Dimensions [][]string
					Metrics    []struct{ Name, Unit string }
				}
			} `json:"_aws"`
			Flow string
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(lines[i]), &raw)
		cw := got.AWS.CloudWatchMetrics
		if got.AWS.Timestamp == 0 || len(cw) != 1 || cw[0].Namespace != tt.namespace || cw[0].Metrics[0].Name != tt.metric ||
			got.Flow != tt.flow || raw[tt.metric] != float64(1) ||
			len(cw[0].Dimensions) != 2 || cw[0].Dimensions[0][0] != "Flow" || len(cw[0].Dimensions[1]) != 0 {
			t.Errorf("line %d = %s, want namespace %s flow %s metric %s=1, dimension sets [Flow] and []", i, lines[i], tt.namespace, tt.flow, tt.metric)
		}
	}
}

func TestKeyHashHidesKey(t *testing.T) {
	h := obs.KeyHash("secret-key-123")
	if len(h) != 16 || strings.Contains(h, "secret") || h != obs.KeyHash("secret-key-123") || obs.KeyHash("") != "" {
		t.Errorf("KeyHash = %q", h)
	}
}
