package config_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/schema"
)

func lookup(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// TestRoundTrip: what a construct writes (Environment) is what a main reads
// back (Load), defaults filled, for every function's configuration.
func TestRoundTrip(t *testing.T) {
	payments := []config.Payments{
		{Table: "t"},
		{Table: "oncetable-prod", IdempotencyExpiry: 48 * time.Hour, SkipLegacyRecords: true,
			CursorSecretARN: "arn:aws:secretsmanager:eu-west-1:111122223333:secret:c", Orders: config.Orders{Stage: schema.OrdersBoth, Shards: 8},
			Auth: config.Auth{CustomerScope: "shop/buy", OperatorScope: "shop/ops", ServiceScope: "shop/svc", UserClaim: "username",
				IAMOperators: []string{"arn:aws:iam::1:role/A", "arn:aws:iam::1:role/B*"}}},
		{Table: "local", CursorSecret: "0123456789abcdef0123456789abcdef", Orders: config.Orders{Stage: schema.OrdersV2}},
		{Table: "frozen-fast", FreezeCacheTTL: 2 * time.Second},
		{Table: "global", Homes: config.Homes{LeaseTable: "leases", Region: "eu-west-1"}},
		{Table: "global", Homes: config.Homes{LeaseTable: "leases", Region: "eu-west-1", LeaseRegion: "us-east-2", Cells: 16,
			Peers: map[string]string{"us-east-1": "https://api.us.example.com", "eu-west-1": "https://api.eu.example.com/prod"}}},
		{Table: "global", Homes: config.Homes{LeaseTable: "leases", Region: "eu-west-2", LeaseRegion: "eu-west-1", Cells: 64,
			Assign: []config.CellRange{{From: 0, To: 31, Region: "eu-west-1"}, {From: 32, To: 63, Region: "eu-west-2"}}}},
	}
	for _, want := range payments {
		got, err := config.LoadPayments(lookup(want.Environment()))
		if err != nil || !reflect.DeepEqual(got, want.WithDefaults()) {
			t.Errorf("LoadPayments(%v) = %+v, %v; want %+v", want.Environment(), got, err, want.WithDefaults())
		}
	}
	for _, want := range []config.Events{{BusName: "b"}, {BusName: "arn:aws:events:eu-west-1:1:event-bus/b", Source: "shop.payments"}} {
		if got, err := config.LoadEvents(lookup(want.Environment())); err != nil || got != want {
			t.Errorf("LoadEvents = %+v, %v; want %+v", got, err, want)
		}
	}
	for _, want := range []config.Totals{{Table: "t", Shards: 16}, {Table: "oncetable-prod", Shards: 64}} {
		if got, err := config.LoadTotals(lookup(want.Environment())); err != nil || got != want {
			t.Errorf("LoadTotals = %+v, %v; want %+v", got, err, want)
		}
	}
	for _, want := range []config.RestoreValidation{{}, {SourceTable: "t", PlanARN: "arn:p", Segments: 16, MaxRCU: -1}, {MaxRCU: 2.5}} {
		if got, err := config.LoadRestoreValidation(lookup(want.Environment())); err != nil || got != want.WithDefaults() {
			t.Errorf("LoadRestoreValidation = %+v, %v; want %+v", got, err, want.WithDefaults())
		}
	}
	for _, want := range []config.Reconcile{{Table: "t"}, {Table: "oncetable-prod", Segments: 16, MaxRCU: 250.5, Budget: 12 * time.Minute, IdempotencyExpiry: 48 * time.Hour}} {
		if got, err := config.LoadReconcile(lookup(want.Environment())); err != nil || got != want.WithDefaults() {
			t.Errorf("LoadReconcile = %+v, %v; want %+v", got, err, want.WithDefaults())
		}
	}
	for _, want := range []config.RegionWatch{
		{Table: "t", Homes: config.Homes{LeaseTable: "leases", Region: "eu-west-1"}},
		{Table: "oncetable-prod", Homes: config.Homes{LeaseTable: "oncetable-prod-leases", Region: "eu-west-2", LeaseRegion: "eu-west-2", Cells: 128,
			Assign: []config.CellRange{{From: 0, To: 127, Region: "eu-west-1"}}}},
	} {
		want.Homes = want.Homes.WithDefaults()
		if got, err := config.LoadRegionWatch(lookup(want.Environment())); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("LoadRegionWatch = %+v, %v; want %+v", got, err, want)
		}
	}
	want := config.Migration{Orders: config.Orders{Stage: schema.OrdersBoth, Shards: 16}}
	if got, err := config.LoadMigration(lookup(want.Orders.Environment())); err != nil || got != want {
		t.Errorf("LoadMigration = %+v, %v; want %+v", got, err, want)
	}
}

// TestDefaults: an empty environment (the required variables aside) is
// every documented default.
func TestDefaults(t *testing.T) {
	p, err := config.LoadPayments(lookup(map[string]string{config.TableNameEnv: "t"}))
	want := config.Payments{Table: "t", IdempotencyExpiry: 24 * time.Hour, Orders: config.Orders{Stage: schema.OrdersV1, Shards: 4}}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("LoadPayments = %+v, %v; want %+v", p, err, want)
	}
	m, err := config.LoadMigration(lookup(nil))
	if err != nil || m.Orders.Shards != config.DefaultOrderShards {
		t.Errorf("LoadMigration of nothing = %+v, %v; want %d shards", m, err, config.DefaultOrderShards)
	}
	r, err := config.LoadRestoreValidation(lookup(nil))
	if err != nil || r.Segments != 8 || r.MaxRCU != 2000 {
		t.Errorf("LoadRestoreValidation of nothing = %+v, %v; want 8 segments, 2000 RCU", r, err)
	}
	if tt, err := config.LoadTotals(lookup(map[string]string{config.TableNameEnv: "t"})); err != nil || tt.Shards != config.DefaultPlatformShards {
		t.Errorf("LoadTotals = %+v, %v; want %d shards", tt, err, config.DefaultPlatformShards)
	}
	rc, err := config.LoadReconcile(lookup(map[string]string{config.TableNameEnv: "t"}))
	if wantRC := (config.Reconcile{Table: "t", Segments: 4, MaxRCU: 100, Budget: 10 * time.Minute, IdempotencyExpiry: 24 * time.Hour}); err != nil || rc != wantRC {
		t.Errorf("LoadReconcile = %+v, %v; want %+v", rc, err, wantRC)
	}
}

// TestRefused: each bad value is a *VarError naming its variable, never a
// silent default (the migrate command once read ORDER_SHARDS=abc as 4).
func TestRefused(t *testing.T) {
	table := map[string]string{config.TableNameEnv: "t"}
	with := func(k, v string) map[string]string {
		env := map[string]string{k: v}
		for a, b := range table {
			if a != k {
				env[a] = b
			}
		}
		return env
	}
	tests := []struct {
		name string
		load func(map[string]string) error
		env  map[string]string
		want string
	}{
		{"no table", payments, map[string]string{}, config.TableNameEnv},
		{"expiry not a duration", payments, with(config.IdempotencyExpiryEnv, "tomorrow"), config.IdempotencyExpiryEnv},
		{"negative expiry", payments, with(config.IdempotencyExpiryEnv, "-1h"), config.IdempotencyExpiryEnv},
		{"freeze cache not a duration", payments, with(config.FreezeCacheTTLEnv, "soon"), config.FreezeCacheTTLEnv},
		{"freeze cache over a minute", payments, with(config.FreezeCacheTTLEnv, "2m"), config.FreezeCacheTTLEnv},
		{"skip legacy not a bool", payments, with(config.SkipLegacyRecordsEnv, "yes"), config.SkipLegacyRecordsEnv},
		{"homes without the Region", payments, with(config.HomeLeaseTableEnv, "leases"), config.HomeRegionEnv},
		{"home cells not a number", payments, map[string]string{config.TableNameEnv: "t", config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1", config.HomeCellsEnv: "many"}, config.HomeCellsEnv},
		{"home cells above the maximum", payments, map[string]string{config.TableNameEnv: "t", config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1", config.HomeCellsEnv: "5000"}, config.HomeCellsEnv},
		{"home peer without a URL", payments, map[string]string{config.TableNameEnv: "t", config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1", config.HomePeersEnv: "us-east-1"}, config.HomePeersEnv},
		{"home assignment past the last cell", payments, map[string]string{config.TableNameEnv: "t", config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1", config.HomeCellsEnv: "64", config.HomeAssignEnv: "c000-c064=eu-west-1"}, config.HomeAssignEnv},
		{"home assignment without a Region", payments, map[string]string{config.TableNameEnv: "t", config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1", config.HomeAssignEnv: "c000-c010"}, config.HomeAssignEnv},
		{"home assignment backwards", payments, map[string]string{config.TableNameEnv: "t", config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1", config.HomeAssignEnv: "c010-c001=eu-west-1"}, config.HomeAssignEnv},
		{"region watch: no table", regionWatch, map[string]string{config.HomeLeaseTableEnv: "leases", config.HomeRegionEnv: "eu-west-1"}, config.TableNameEnv},
		{"region watch: no homes", regionWatch, map[string]string{config.TableNameEnv: "t"}, config.HomeLeaseTableEnv},
		{"unknown stage", payments, with(config.OrderIndexesEnv, "v3"), config.OrderIndexesEnv},
		{"shards not a number", payments, with(config.OrderShardsEnv, "abc"), config.OrderShardsEnv},
		{"zero shards", payments, with(config.OrderShardsEnv, "0"), config.OrderShardsEnv},
		{"too many shards", payments, with(config.OrderShardsEnv, "101"), config.OrderShardsEnv},
		{"migrate: shards not a number", migration, map[string]string{config.OrderShardsEnv: "abc"}, config.OrderShardsEnv},
		{"no bus", events, map[string]string{config.EventSourceEnv: "s"}, config.EventBusNameEnv},
		{"zero segments", restore, map[string]string{config.VerifySegmentsEnv: "0"}, config.VerifySegmentsEnv},
		{"zero RCU", restore, map[string]string{config.VerifyMaxRCUEnv: "0"}, config.VerifyMaxRCUEnv},
		{"totals: no table", totals, map[string]string{}, config.TableNameEnv},
		{"totals: 0 shards", totals, with(config.PlatformShardsEnv, "0"), config.PlatformShardsEnv},
		{"totals: 101 shards", totals, with(config.PlatformShardsEnv, "101"), config.PlatformShardsEnv},
		{"reconcile: no table", reconcileCfg, map[string]string{}, config.TableNameEnv},
		{"reconcile: 65 segments", reconcileCfg, with(config.ReconcileSegmentsEnv, "65"), config.ReconcileSegmentsEnv},
		{"reconcile: uncapped RCU", reconcileCfg, with(config.ReconcileMaxRCUEnv, "-1"), config.ReconcileMaxRCUEnv},
		{"reconcile: RCU not a number", reconcileCfg, with(config.ReconcileMaxRCUEnv, "NaN"), config.ReconcileMaxRCUEnv},
		{"reconcile: budget over 14m", reconcileCfg, with(config.ReconcileBudgetEnv, "15m"), config.ReconcileBudgetEnv},
		{"reconcile: budget not a duration", reconcileCfg, with(config.ReconcileBudgetEnv, "long"), config.ReconcileBudgetEnv},
		{"reconcile: negative expiry", reconcileCfg, with(config.IdempotencyExpiryEnv, "-1h"), config.IdempotencyExpiryEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.load(tt.env)
			var ve *config.VarError
			if !errors.As(err, &ve) || ve.Name != tt.want || !errors.Is(err, config.ErrConfig) {
				t.Errorf("got %v, want a *VarError naming %s", err, tt.want)
			}
		})
	}
}

func payments(env map[string]string) error {
	_, err := config.LoadPayments(lookup(env))
	return err
}

func migration(env map[string]string) error {
	_, err := config.LoadMigration(lookup(env))
	return err
}

func events(env map[string]string) error {
	_, err := config.LoadEvents(lookup(env))
	return err
}

func restore(env map[string]string) error {
	_, err := config.LoadRestoreValidation(lookup(env))
	return err
}

func totals(env map[string]string) error {
	_, err := config.LoadTotals(lookup(env))
	return err
}

func reconcileCfg(env map[string]string) error {
	_, err := config.LoadReconcile(lookup(env))
	return err
}

func regionWatch(env map[string]string) error {
	_, err := config.LoadRegionWatch(lookup(env))
	return err
}
