package reconciler

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
)

// fakeTable stands for a table in validate, which only checks it is set.
type fakeTable struct{ awsdynamodb.ITableV2 }

func TestPropsValidate(t *testing.T) {
	table := fakeTable{}
	tests := []struct {
		name    string
		props   Props
		wantErr string
	}{
		{name: "defaults", props: Props{Table: table}},
		{name: "no table", props: Props{}, wantErr: "props.Table is required"},
		{name: "every not whole minutes", props: Props{Table: table, Every: 90 * time.Second, Budget: time.Minute}, wantErr: "whole minutes"},
		{name: "every under the budget", props: Props{Table: table, Every: 10 * time.Minute}, wantErr: "plus 2m"},
		{name: "budget over 12m", props: Props{Table: table, Every: time.Hour, Budget: 13 * time.Minute, StallAfter: 4 * time.Hour}, wantErr: "10s..12m"},
		{name: "stall under 4 schedules", props: Props{Table: table, Every: 30 * time.Minute, StallAfter: time.Hour}, wantErr: "4 × Every"},
		{name: "stall not whole hours", props: Props{Table: table, StallAfter: 90 * time.Minute}, wantErr: "whole hours"},
		{name: "too many segments", props: Props{Table: table, Segments: 65}, wantErr: "props.Segments 65"},
		{name: "a short schedule and budget", props: Props{Table: table, Every: 5 * time.Minute, Budget: 3 * time.Minute, StallAfter: time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.props.withDefaults().validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
