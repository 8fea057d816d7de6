package config

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/schema"
)

// The environment variables, by function.
const (
	// Payments (api, charge, debit, settle).
	TableNameEnv         = schema.TableNameEnv               // required
	IdempotencyExpiryEnv = "IDEMPOTENCY_EXPIRY"              // Go duration > 0; default 24h
	SkipLegacyRecordsEnv = "IDEMPOTENCY_SKIP_LEGACY_RECORDS" // "true" or "false"; default false
	CursorSecretEnv      = "CURSOR_SECRET"                   // the key itself; local and tests only
	FreezeCacheTTLEnv    = "FREEZE_CACHE_TTL"                // Go duration 1ms..1m; default: the kill switch's 5s
	CursorSecretARNEnv   = "CURSOR_SECRET_ARN"               // the Secrets Manager secret of the key
	OrderIndexesEnv      = "ORDER_INDEXES"                   // v1 | both | v2; default v1
	OrderShardsEnv       = "ORDER_SHARDS"                    // 1..MaxOrderShards; default DefaultOrderShards
	AuthCustomerScopeEnv = "AUTH_CUSTOMER_SCOPE"
	AuthOperatorScopeEnv = "AUTH_OPERATOR_SCOPE"
	AuthServiceScopeEnv  = "AUTH_SERVICE_SCOPE"
	AuthUserClaimEnv     = "AUTH_USER_CLAIM"
	AuthIAMOperatorsEnv  = "AUTH_IAM_OPERATORS" // comma-separated
	HomeLeaseTableEnv    = "HOME_LEASE_TABLE"   // set: cells of users have home Regions (docs/multi-region.md)
	HomeRegionEnv        = "HOME_REGION"        // this function's Region; required with HOME_LEASE_TABLE
	HomeLeaseRegionEnv   = "HOME_LEASE_REGION"  // the Region whose lease table replica is read; default HOME_REGION
	HomeCellsEnv         = "HOME_CELLS"         // 1..MaxHomeCells; default DefaultHomeCells
	HomePeersEnv         = "HOME_PEERS"         // Region=API base URL, comma-separated
	HomeAssignEnv        = "HOME_ASSIGN"        // first homes: c000-c031=eu-west-1, comma-separated

	// Events.
	EventBusNameEnv = "EVENT_BUS_NAME" // required
	EventSourceEnv  = "EVENT_SOURCE"   // default: outbox's source

	// Totals (and TABLE_NAME).
	PlatformShardsEnv = "PLATFORM_SHARDS" // 1..MaxPlatformShards; default DefaultPlatformShards

	// RestoreValidation.
	SourceTableNameEnv       = "SOURCE_TABLE_NAME"
	RestoreTestingPlanARNEnv = "RESTORE_TESTING_PLAN_ARN"
	VerifySegmentsEnv        = "VERIFY_SEGMENTS" // >= 1; default 8
	VerifyMaxRCUEnv          = "VERIFY_MAX_RCU"  // != 0, negative: no cap; default 2000

	// Reconcile (and TABLE_NAME, IDEMPOTENCY_EXPIRY).
	ReconcileSegmentsEnv = "RECONCILE_SEGMENTS" // 1..MaxReconcileSegments; default DefaultReconcileSegments
	ReconcileMaxRCUEnv   = "RECONCILE_MAX_RCU"  // > 0; default DefaultReconcileMaxRCU
	ReconcileBudgetEnv   = "RECONCILE_BUDGET"   // Go duration 10s..14m; default DefaultReconcileBudget
)

// Defaults and limits.
const (
	DefaultIdempotencyExpiry = idempotency.DefaultExpiry
	DefaultOrderShards       = 4
	MaxOrderShards           = 100
	DefaultVerifySegments    = 8
	DefaultVerifyMaxRCU      = 2000
	// The live reconciliation reads a table that serves traffic: a low
	// cap, and a budget that leaves a 15-minute function time to check.
	DefaultReconcileSegments = 4
	MaxReconcileSegments     = 64
	DefaultReconcileMaxRCU   = 100
	DefaultReconcileBudget   = 10 * time.Minute
	// The platform totals' shards (runtime/platform): every writer and
	// reader of the totals must use the same count.
	DefaultPlatformShards = 16
	MaxPlatformShards     = 100
)

// ErrConfig is what every *VarError unwraps to.
var ErrConfig = errors.New("config: bad environment")

// VarError names the variable whose value is refused, and why.
type VarError struct {
	Name   string
	Value  string
	Reason string
}

func (e *VarError) Error() string {
	return fmt.Sprintf("config: %s=%q: %s", e.Name, e.Value, e.Reason)
}

// Unwrap makes errors.Is(err, ErrConfig) hold.
func (e *VarError) Unwrap() error { return ErrConfig }

// Orders is the order layout: the stage of the migration
// orders-by-status-v2 the table is deployed at, and v2's shard count.
type Orders struct {
	// Stage is schema.OrdersV1, OrdersBoth or OrdersV2. Default: v1.
	Stage schema.OrderIndexes
	// Shards is the shard count of OrdersByStatus, 1..MaxOrderShards; it
	// must equal the migration's. Default: DefaultOrderShards.
	Shards int
}

// WithDefaults fills the zero fields.
func (o Orders) WithDefaults() Orders {
	if o.Stage == "" {
		o.Stage = schema.OrdersV1
	}
	if o.Shards == 0 {
		o.Shards = DefaultOrderShards
	}
	return o
}

// Validate reports an unknown stage or a shard count outside its limits;
// zero fields take their defaults first.
func (o Orders) Validate() error {
	o = o.WithDefaults()
	if _, err := schema.ParseOrderIndexes(string(o.Stage)); err != nil {
		return &VarError{Name: OrderIndexesEnv, Value: string(o.Stage), Reason: "want v1, both or v2"}
	}
	if o.Shards < 1 || o.Shards > MaxOrderShards {
		return &VarError{Name: OrderShardsEnv, Value: strconv.Itoa(o.Shards), Reason: fmt.Sprintf("want an integer 1..%d", MaxOrderShards)}
	}
	return nil
}

// LoadOrders reads ORDER_INDEXES and ORDER_SHARDS.
func LoadOrders(getenv func(string) string) (Orders, error) {
	o := Orders{Stage: schema.OrderIndexes(getenv(OrderIndexesEnv))}
	if s := getenv(OrderShardsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxOrderShards {
			return Orders{}, &VarError{Name: OrderShardsEnv, Value: s, Reason: fmt.Sprintf("want an integer 1..%d", MaxOrderShards)}
		}
		o.Shards = n
	}
	if err := o.Validate(); err != nil {
		return Orders{}, err
	}
	return o.WithDefaults(), nil
}

// Environment is ORDER_INDEXES and ORDER_SHARDS, defaults filled.
func (o Orders) Environment() map[string]string {
	o = o.WithDefaults()
	return map[string]string{OrderIndexesEnv: string(o.Stage), OrderShardsEnv: strconv.Itoa(o.Shards)}
}

// Auth is who may call the payments functions, as the authorizer's context
// says (httpapi.Auth gives the empty fields their defaults).
type Auth struct {
	CustomerScope, OperatorScope, ServiceScope, UserClaim string
	// IAMOperators are the IAM principals that are operators.
	IAMOperators []string
}

// Payments is the configuration of the api, charge, debit and settle
// functions.
type Payments struct {
	// Table is the table name. Required.
	Table string
	// IdempotencyExpiry is how long an Idempotency-Key blocks. Default:
	// DefaultIdempotencyExpiry.
	IdempotencyExpiry time.Duration
	// SkipLegacyRecords stops looking for idempotency records at their
	// pre-upgrade place (payments.Options.SkipLegacyRecords). Default: false.
	SkipLegacyRecords bool
	// CursorSecret is the key that signs cursors, given as a value: for
	// local runs and tests. Deployed functions get CursorSecretARN.
	CursorSecret string
	// CursorSecretARN is the Secrets Manager secret holding the key (the
	// api function's; read at run time, never from the configuration).
	CursorSecretARN string
	// Orders is the order layout.
	Orders Orders
	// Auth maps the authorizer's context onto roles.
	Auth Auth
	// FreezeCacheTTL bounds how long a freeze or an unfreeze of the kill
	// switch (runtime/freeze) takes to reach the function, 1ms..1m.
	// Default: 0, the switch's own (5s); written only when set.
	FreezeCacheTTL time.Duration
	// Homes gives cells of users home Regions; the zero value is a
	// single-Region table.
	Homes Homes
}

// Homes is the multi-Region side of the payments functions: every cell of
// users has a home Region, kept in a lease table (runtime/home).
type Homes struct {
	// LeaseTable is the lease table's name; empty means no homes.
	LeaseTable string
	// Region is the Region the function runs in. Required with LeaseTable.
	Region string
	// LeaseRegion is the Region whose replica of the lease table the
	// function reads (the lease table is an MRSC table of three Regions).
	// Default: Region.
	LeaseRegion string
	// Cells is how many cells users are hashed into; fixed for a
	// deployment. Default: DefaultHomeCells.
	Cells int
	// Peers maps Regions to the base URL of their API, where a request
	// for a user homed there is forwarded.
	Peers map[string]string
	// Assign gives cells their first home: a cell with no lease yet, in
	// one of these ranges, is assigned to the range's Region by that
	// Region's writers on first use (home.Assign). Default: none (cells
	// are assigned by an operator).
	Assign []CellRange
}

// CellRange is a range of cells, From to To inclusive (0 is "c000"),
// with their first home.
type CellRange struct {
	From, To int
	Region   string
}

// String is the range as HOME_ASSIGN writes it: c000-c031=eu-west-1.
func (r CellRange) String() string { return fmt.Sprintf("c%03d-c%03d=%s", r.From, r.To, r.Region) }

// FirstHome is the Region that Assign gives cell ("c007"), or "".
func (h Homes) FirstHome(cell string) string {
	n, err := strconv.Atoi(strings.TrimPrefix(cell, "c"))
	if err != nil || !strings.HasPrefix(cell, "c") {
		return ""
	}
	for _, r := range h.Assign {
		if r.From <= n && n <= r.To {
			return r.Region
		}
	}
	return ""
}

// parseCellRanges reads HOME_ASSIGN's value for cells cells.
func parseCellRanges(s string, cells int) ([]CellRange, error) {
	var out []CellRange
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		span, region, ok := strings.Cut(kv, "=")
		from, to, ok2 := strings.Cut(span, "-")
		a, errA := strconv.Atoi(strings.TrimPrefix(from, "c"))
		b, errB := strconv.Atoi(strings.TrimPrefix(to, "c"))
		if !ok || !ok2 || region == "" || errA != nil || errB != nil || !strings.HasPrefix(from, "c") || !strings.HasPrefix(to, "c") ||
			a < 0 || b < a || b >= cells {
			return nil, &VarError{Name: HomeAssignEnv, Value: s, Reason: fmt.Sprintf("want ranges of cells below c%03d with their Region, such as c000-c031=eu-west-1,c032-c063=eu-west-2", cells)}
		}
		out = append(out, CellRange{From: a, To: b, Region: region})
	}
	return out, nil
}

// DefaultHomeCells and MaxHomeCells bound Homes.Cells.
const (
	DefaultHomeCells = 64
	MaxHomeCells     = 4096
)

// Enabled reports whether the table has homes.
func (h Homes) Enabled() bool { return h.LeaseTable != "" }

// WithDefaults fills the zero fields that have a default, when enabled.
func (h Homes) WithDefaults() Homes {
	if !h.Enabled() {
		return h
	}
	if h.LeaseRegion == "" {
		h.LeaseRegion = h.Region
	}
	if h.Cells == 0 {
		h.Cells = DefaultHomeCells
	}
	return h
}

// LoadHomes reads the homes of the payments functions.
func LoadHomes(getenv func(string) string) (Homes, error) {
	h := Homes{LeaseTable: getenv(HomeLeaseTableEnv), Region: getenv(HomeRegionEnv), LeaseRegion: getenv(HomeLeaseRegionEnv)}
	if !h.Enabled() {
		return Homes{}, nil
	}
	if h.Region == "" {
		return Homes{}, &VarError{Name: HomeRegionEnv, Reason: "must be set with " + HomeLeaseTableEnv}
	}
	if s := getenv(HomeCellsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxHomeCells {
			return Homes{}, &VarError{Name: HomeCellsEnv, Value: s, Reason: fmt.Sprintf("want an integer from 1 to %d", MaxHomeCells)}
		}
		h.Cells = n
	}
	for _, kv := range strings.Split(getenv(HomePeersEnv), ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		r, u, ok := strings.Cut(kv, "=")
		if !ok || r == "" || !(strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) {
			return Homes{}, &VarError{Name: HomePeersEnv, Value: getenv(HomePeersEnv), Reason: "want Region=URL pairs separated by commas, such as eu-west-1=https://api.eu.example.com"}
		}
		if h.Peers == nil {
			h.Peers = map[string]string{}
		}
		h.Peers[r] = u
	}
	h = h.WithDefaults()
	var err error
	if h.Assign, err = parseCellRanges(getenv(HomeAssignEnv), h.Cells); err != nil {
		return Homes{}, err
	}
	return h, nil
}

// Environment is what LoadHomes reads; nothing when homes are off.
func (h Homes) Environment() map[string]string {
	if !h.Enabled() {
		return map[string]string{}
	}
	h = h.WithDefaults()
	env := map[string]string{HomeLeaseTableEnv: h.LeaseTable, HomeRegionEnv: h.Region, HomeLeaseRegionEnv: h.LeaseRegion,
		HomeCellsEnv: strconv.Itoa(h.Cells)}
	var peers []string
	for r, u := range h.Peers {
		peers = append(peers, r+"="+u)
	}
	sort.Strings(peers)
	if len(peers) > 0 {
		env[HomePeersEnv] = strings.Join(peers, ",")
	}
	var ranges []string
	for _, r := range h.Assign {
		ranges = append(ranges, r.String())
	}
	if len(ranges) > 0 {
		env[HomeAssignEnv] = strings.Join(ranges, ",")
	}
	return env
}

// WithDefaults fills the zero fields that have a default.
func (p Payments) WithDefaults() Payments {
	if p.IdempotencyExpiry == 0 {
		p.IdempotencyExpiry = DefaultIdempotencyExpiry
	}
	p.Orders = p.Orders.WithDefaults()
	p.Homes = p.Homes.WithDefaults()
	return p
}

// LoadPayments reads the payments functions' configuration.
func LoadPayments(getenv func(string) string) (Payments, error) {
	p := Payments{Table: getenv(TableNameEnv), CursorSecret: getenv(CursorSecretEnv), CursorSecretARN: getenv(CursorSecretARNEnv),
		Auth: Auth{CustomerScope: getenv(AuthCustomerScopeEnv), OperatorScope: getenv(AuthOperatorScopeEnv),
			ServiceScope: getenv(AuthServiceScopeEnv), UserClaim: getenv(AuthUserClaimEnv)}}
	if p.Table == "" {
		return Payments{}, &VarError{Name: TableNameEnv, Reason: "must be set"}
	}
	if s := getenv(IdempotencyExpiryEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return Payments{}, &VarError{Name: IdempotencyExpiryEnv, Value: s, Reason: "want a positive Go duration such as 24h"}
		}
		p.IdempotencyExpiry = d
	}
	switch s := getenv(SkipLegacyRecordsEnv); s {
	case "", "false":
	case "true":
		p.SkipLegacyRecords = true
	default:
		return Payments{}, &VarError{Name: SkipLegacyRecordsEnv, Value: s, Reason: "want true or false"}
	}
	for _, op := range strings.Split(getenv(AuthIAMOperatorsEnv), ",") {
		if op = strings.TrimSpace(op); op != "" {
			p.Auth.IAMOperators = append(p.Auth.IAMOperators, op)
		}
	}
	if s := getenv(FreezeCacheTTLEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Millisecond || d > time.Minute {
			return Payments{}, &VarError{Name: FreezeCacheTTLEnv, Value: s, Reason: "want a Go duration from 1ms to 1m, such as 5s"}
		}
		p.FreezeCacheTTL = d
	}
	var err error
	if p.Orders, err = LoadOrders(getenv); err != nil {
		return Payments{}, err
	}
	if p.Homes, err = LoadHomes(getenv); err != nil {
		return Payments{}, err
	}
	return p.WithDefaults(), nil
}

// Environment is what LoadPayments reads, defaults filled; empty optional
// values are left out.
func (p Payments) Environment() map[string]string {
	p = p.WithDefaults()
	env := map[string]string{TableNameEnv: p.Table, IdempotencyExpiryEnv: p.IdempotencyExpiry.String()}
	maps.Copy(env, p.Orders.Environment())
	maps.Copy(env, p.Homes.Environment())
	if p.SkipLegacyRecords {
		env[SkipLegacyRecordsEnv] = "true"
	}
	set := func(k, v string) {
		if v != "" {
			env[k] = v
		}
	}
	set(CursorSecretEnv, p.CursorSecret)
	set(CursorSecretARNEnv, p.CursorSecretARN)
	if p.FreezeCacheTTL != 0 {
		env[FreezeCacheTTLEnv] = p.FreezeCacheTTL.String()
	}
	set(AuthCustomerScopeEnv, p.Auth.CustomerScope)
	set(AuthOperatorScopeEnv, p.Auth.OperatorScope)
	set(AuthServiceScopeEnv, p.Auth.ServiceScope)
	set(AuthUserClaimEnv, p.Auth.UserClaim)
	set(AuthIAMOperatorsEnv, strings.Join(p.Auth.IAMOperators, ","))
	return env
}

// Totals is the configuration of the totals function, which keeps the
// platform accounts' stored totals (runtime/platform).
type Totals struct {
	// Table is the single table. Required.
	Table string
	// Shards is the shard count of each account's total,
	// 1..MaxPlatformShards. Default: DefaultPlatformShards.
	Shards int
}

// LoadTotals reads the totals function's configuration.
func LoadTotals(getenv func(string) string) (Totals, error) {
	t := Totals{Table: getenv(TableNameEnv), Shards: DefaultPlatformShards}
	if t.Table == "" {
		return Totals{}, &VarError{Name: TableNameEnv, Reason: "must be set"}
	}
	if v := getenv(PlatformShardsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPlatformShards {
			return Totals{}, &VarError{Name: PlatformShardsEnv, Value: v, Reason: fmt.Sprintf("want an integer 1..%d", MaxPlatformShards)}
		}
		t.Shards = n
	}
	return t, nil
}

// Environment is what LoadTotals reads.
func (t Totals) Environment() map[string]string {
	if t.Shards == 0 {
		t.Shards = DefaultPlatformShards
	}
	return map[string]string{TableNameEnv: t.Table, PlatformShardsEnv: strconv.Itoa(t.Shards)}
}

// Events is the configuration of the events function.
type Events struct {
	// BusName is the event bus (name or ARN). Required.
	BusName string
	// Source overrides the entries' Source. Default: outbox's.
	Source string
}

// RegionWatch is the configuration of a Region's stream consumer of the
// money table (runtime/regionwatch): the table and the Region's homes.
type RegionWatch struct {
	Table string
	// Homes must be enabled: the consumer reads the cells' ownership in
	// its Region's replica (Homes.Region) and hashes users into
	// Homes.Cells cells.
	Homes Homes
}

// LoadRegionWatch reads the stream consumer's configuration.
func LoadRegionWatch(getenv func(string) string) (RegionWatch, error) {
	w := RegionWatch{Table: getenv(TableNameEnv)}
	if w.Table == "" {
		return RegionWatch{}, &VarError{Name: TableNameEnv, Reason: "must be set"}
	}
	h, err := LoadHomes(getenv)
	if err != nil {
		return RegionWatch{}, err
	}
	if !h.Enabled() {
		return RegionWatch{}, &VarError{Name: HomeLeaseTableEnv, Reason: "must be set: the consumer watches a table with homes"}
	}
	w.Homes = h
	return w, nil
}

// Environment is what LoadRegionWatch reads, defaults filled.
func (w RegionWatch) Environment() map[string]string {
	env := w.Homes.Environment()
	env[TableNameEnv] = w.Table
	return env
}

// LoadEvents reads the events function's configuration.
func LoadEvents(getenv func(string) string) (Events, error) {
	e := Events{BusName: getenv(EventBusNameEnv), Source: getenv(EventSourceEnv)}
	if e.BusName == "" {
		return Events{}, &VarError{Name: EventBusNameEnv, Reason: "must be set"}
	}
	return e, nil
}

// Environment is what LoadEvents reads.
func (e Events) Environment() map[string]string {
	env := map[string]string{EventBusNameEnv: e.BusName}
	if e.Source != "" {
		env[EventSourceEnv] = e.Source
	}
	return env
}

// RestoreValidation is the configuration of the restore validation
// function.
type RestoreValidation struct {
	// SourceTable is the protected table, the metric's dimension. Default:
	// the restored table's name.
	SourceTable string
	// PlanARN is the only restore testing plan whose jobs are validated.
	// Default: every plan's.
	PlanARN string
	// Segments is the verifier's parallel Scan segments, >= 1. Default:
	// DefaultVerifySegments.
	Segments int
	// MaxRCU caps the verifier's read units per second; negative: no cap.
	// Default: DefaultVerifyMaxRCU.
	MaxRCU float64
}

// WithDefaults fills the zero fields.
func (r RestoreValidation) WithDefaults() RestoreValidation {
	if r.Segments == 0 {
		r.Segments = DefaultVerifySegments
	}
	if r.MaxRCU == 0 {
		r.MaxRCU = DefaultVerifyMaxRCU
	}
	return r
}

// LoadRestoreValidation reads the restore validation function's
// configuration.
func LoadRestoreValidation(getenv func(string) string) (RestoreValidation, error) {
	r := RestoreValidation{SourceTable: getenv(SourceTableNameEnv), PlanARN: getenv(RestoreTestingPlanARNEnv)}
	if s := getenv(VerifySegmentsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return RestoreValidation{}, &VarError{Name: VerifySegmentsEnv, Value: s, Reason: "want a positive integer"}
		}
		r.Segments = n
	}
	if s := getenv(VerifyMaxRCUEnv); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f == 0 {
			return RestoreValidation{}, &VarError{Name: VerifyMaxRCUEnv, Value: s, Reason: "want a non-zero number (negative: no cap)"}
		}
		r.MaxRCU = f
	}
	return r.WithDefaults(), nil
}

// Environment is what LoadRestoreValidation reads, defaults filled.
func (r RestoreValidation) Environment() map[string]string {
	r = r.WithDefaults()
	env := map[string]string{VerifySegmentsEnv: strconv.Itoa(r.Segments),
		VerifyMaxRCUEnv: strconv.FormatFloat(r.MaxRCU, 'f', -1, 64)}
	if r.SourceTable != "" {
		env[SourceTableNameEnv] = r.SourceTable
	}
	if r.PlanARN != "" {
		env[RestoreTestingPlanARNEnv] = r.PlanARN
	}
	return env
}

// Migration is the configuration of the migrate command: the order layout
// whose shards the migration orders-by-status-v2 writes.
type Migration struct {
	Orders Orders
}

// LoadMigration reads the migrate command's configuration.
func LoadMigration(getenv func(string) string) (Migration, error) {
	o, err := LoadOrders(getenv)
	return Migration{Orders: o}, err
}

// Reconcile is the configuration of the reconcile function
// (runtime/reconcile).
type Reconcile struct {
	// Table is the live table. Required.
	Table string
	// Segments is a new pass's parallel Scan segments,
	// 1..MaxReconcileSegments. Default: DefaultReconcileSegments.
	Segments int
	// MaxRCU caps the read units per second the scan consumes, > 0.
	// Default: DefaultReconcileMaxRCU.
	MaxRCU float64
	// Budget is how long one invocation scans, 10s..14m. Default:
	// DefaultReconcileBudget.
	Budget time.Duration
	// IdempotencyExpiry is the payments functions' (the verifier's
	// RecordExpiry). Default: DefaultIdempotencyExpiry.
	IdempotencyExpiry time.Duration
}

// WithDefaults fills the zero fields.
func (r Reconcile) WithDefaults() Reconcile {
	if r.Segments == 0 {
		r.Segments = DefaultReconcileSegments
	}
	if r.MaxRCU == 0 {
		r.MaxRCU = DefaultReconcileMaxRCU
	}
	if r.Budget == 0 {
		r.Budget = DefaultReconcileBudget
	}
	if r.IdempotencyExpiry == 0 {
		r.IdempotencyExpiry = DefaultIdempotencyExpiry
	}
	return r
}

// LoadReconcile reads the reconcile function's configuration.
func LoadReconcile(getenv func(string) string) (Reconcile, error) {
	r := Reconcile{Table: getenv(TableNameEnv)}
	if r.Table == "" {
		return Reconcile{}, &VarError{Name: TableNameEnv, Reason: "must be set"}
	}
	if s := getenv(ReconcileSegmentsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxReconcileSegments {
			return Reconcile{}, &VarError{Name: ReconcileSegmentsEnv, Value: s, Reason: fmt.Sprintf("want an integer 1..%d", MaxReconcileSegments)}
		}
		r.Segments = n
	}
	if s := getenv(ReconcileMaxRCUEnv); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f > 0) || f > 1e9 {
			return Reconcile{}, &VarError{Name: ReconcileMaxRCUEnv, Value: s, Reason: "want a positive number of read units per second"}
		}
		r.MaxRCU = f
	}
	if s := getenv(ReconcileBudgetEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 10*time.Second || d > 14*time.Minute {
			return Reconcile{}, &VarError{Name: ReconcileBudgetEnv, Value: s, Reason: "want a Go duration from 10s to 14m, such as 10m"}
		}
		r.Budget = d
	}
	if s := getenv(IdempotencyExpiryEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return Reconcile{}, &VarError{Name: IdempotencyExpiryEnv, Value: s, Reason: "want a positive Go duration such as 24h"}
		}
		r.IdempotencyExpiry = d
	}
	return r.WithDefaults(), nil
}

// Environment is what LoadReconcile reads, defaults filled.
func (r Reconcile) Environment() map[string]string {
	r = r.WithDefaults()
	return map[string]string{TableNameEnv: r.Table, ReconcileSegmentsEnv: strconv.Itoa(r.Segments),
		ReconcileMaxRCUEnv: strconv.FormatFloat(r.MaxRCU, 'f', -1, 64), ReconcileBudgetEnv: r.Budget.String(),
		IdempotencyExpiryEnv: r.IdempotencyExpiry.String()}
}
