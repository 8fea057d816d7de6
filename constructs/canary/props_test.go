package canary

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"

	"github.com/oncetable/oncetable/constructs/alarms"
)

type fakePolicy struct{ awsiam.IManagedPolicy }
type fakeMonitor struct{ alarms.Monitor }

func TestPropsValidate(t *testing.T) {
	url := "https://api.example"
	ok := Props{URL: &url, InvokePolicy: fakePolicy{}, Monitor: fakeMonitor{}}
	with := func(f func(*Props)) Props { p := ok; f(&p); return p }
	for _, c := range []struct {
		name    string
		props   Props
		wantErr string
	}{
		{"defaults", ok, ""},
		{"no URL", with(func(p *Props) { p.URL = nil }), "required"},
		{"no invoke policy", with(func(p *Props) { p.InvokePolicy = nil }), "required"},
		{"no monitor", with(func(p *Props) { p.Monitor = nil }), "required"},
		{"every 30 s", with(func(p *Props) { p.Every = 30 * time.Second }), "1m..15m"},
		{"every hour", with(func(p *Props) { p.Every = time.Hour }), "1m..15m"},
		{"every 2 minutes", with(func(p *Props) { p.Every = 2 * time.Minute }), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.props.withDefaults().validate()
			if (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("validate() = %v, want %q", err, c.wantErr)
			}
		})
	}
}
