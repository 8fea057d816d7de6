package envconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/schema"
)

// ContextKey is the cdk.json context key that holds every environment.
const ContextKey = "oncetable:environments"

// SelectKey is the context key that selects one environment: cdk deploy -c env=prod.
const SelectKey = "env"

// Sentinel errors; match them with errors.Is, or the typed errors with errors.As.
var (
	ErrUnknownEnvironment = errors.New("unknown environment")
	ErrInvalidConfig      = errors.New("invalid environment configuration")
)

// UnknownEnvironmentError names an environment that cdk.json does not define.
type UnknownEnvironmentError struct {
	Name  string
	Known []string
}

func (e *UnknownEnvironmentError) Error() string {
	return fmt.Sprintf("unknown environment %q (cdk.json %s defines: %s)", e.Name, ContextKey, strings.Join(e.Known, ", "))
}

// Unwrap makes errors.Is(err, ErrUnknownEnvironment) hold.
func (e *UnknownEnvironmentError) Unwrap() error { return ErrUnknownEnvironment }

// FieldError reports a missing or invalid value of one environment.
type FieldError struct {
	Env    string // environment name, such as "prod"
	Field  string // JSON path inside the environment, such as "backup.vaultLock.mode"
	Reason string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("environment %q: %s", e.Env, e.Reason)
	}
	return fmt.Sprintf("environment %q: %s: %s", e.Env, e.Field, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidConfig) hold.
func (e *FieldError) Unwrap() error { return ErrInvalidConfig }

// RemovalPolicy says what CloudFormation does with stateful resources when
// they leave the stack.
type RemovalPolicy string

// Removal policies.
const (
	Retain  RemovalPolicy = "retain"
	Destroy RemovalPolicy = "destroy"
)

// CapacityMode is the table's billing mode.
type CapacityMode string

// Capacity modes.
const (
	OnDemand    CapacityMode = "on-demand"
	Provisioned CapacityMode = "provisioned"
)

// LockMode is the AWS Backup Vault Lock mode.
type LockMode string

// Vault lock modes. Governance can be removed by privileged users; compliance
// becomes immutable once its changeableFor cooling-off period has passed.
const (
	Governance LockMode = "governance"
	Compliance LockMode = "compliance"
)

// Config is one environment's settings. JSON names are the cdk.json names.
type Config struct {
	// Name is the environment name (the key in cdk.json), filled by Parse.
	Name string `json:"-"`
	// Account is the AWS account ID the stacks deploy into. Leave it out
	// of cdk.json and pass it at deploy time (ApplyDeployTime); empty
	// synthesizes account-agnostic templates, which `make deploy` refuses.
	Account string `json:"account"`
	// Region is required.
	Region string `json:"region"`

	RemovalPolicy          RemovalPolicy `json:"removalPolicy"`
	DeletionProtection     bool          `json:"deletionProtection"`
	PITRRecoveryPeriodDays int           `json:"pitrRecoveryPeriodDays"`
	ContributorInsights    bool          `json:"contributorInsights"`
	Stream                 bool          `json:"stream"`
	// CustomerManagedKey encrypts the table with a KMS key the stack owns
	// instead of the AWS-owned key; the cursor secret and every log group
	// use the same key.
	CustomerManagedKey bool `json:"customerManagedKey"`
	// Production turns on the checks that only production must pass
	// (deletion protection on the table). Default: false.
	Production bool `json:"production"`

	// OrderIndexes is the stage of the orders-by-status migration the table
	// is deployed at: "v1" (GSI1), "both" (GSI1 and OrdersByStatus, the
	// order writers fenced) or "v2" (OrdersByStatus). Move one stage per
	// deploy (docs/migrations.md). Default: "v1".
	OrderIndexes schema.OrderIndexes `json:"orderIndexes"`
	// OrderShards is the number of shards of OrdersByStatus, 1..100; it
	// must equal the migration's N (ORDER_SHARDS of the migrate command).
	// Default: 4.
	OrderShards int `json:"orderShards"`

	Capacity      Capacity      `json:"capacity"`
	Backup        Backup        `json:"backup"`
	Alarms        Alarms        `json:"alarms"`
	Slack         Slack         `json:"slack"`
	Notifications Notifications `json:"notifications"`
	API           API           `json:"api"`
	Events        Events        `json:"events"`
	// Regions, when set, replicates the table into other Regions with
	// homes (docs/multi-region.md). Default: one Region.
	Regions *Regions `json:"regions"`
}

// Events configures the outbox: the table's stream mapping to the events
// function and the payment events bus. Absent values are the defaults of
// constructs/paymentevents; batchingWindowSeconds, retryAttempts and
// archiveRetentionDays may be an explicit 0 (no window, no retry, keep
// indefinitely).
type Events struct {
	// BatchSize (1..10000) and BatchingWindowSeconds (0..300) shape the
	// stream mapping's batches.
	BatchSize             int  `json:"batchSize"`
	BatchingWindowSeconds *int `json:"batchingWindowSeconds"`
	// RetryAttempts and MaxRecordAgeSeconds bound retries of a failing record.
	RetryAttempts       *int `json:"retryAttempts"`
	MaxRecordAgeSeconds int  `json:"maxRecordAgeSeconds"`
	// ArchiveRetentionDays keeps the bus's events for replay.
	ArchiveRetentionDays *int `json:"archiveRetentionDays"`
	// IteratorAgeAlarmSeconds alarms when the oldest unprocessed stream
	// record is older: the outbox is stuck or behind.
	IteratorAgeAlarmSeconds int `json:"iteratorAgeAlarmSeconds"`
}

// Notifications are the subscribers of the page and ticket topics besides
// Slack: a pager's events URL for pages, a ticket queue's address for
// tickets. A severity with no subscriber at all synthesizes with a warning.
type Notifications struct {
	Page   Subscribers `json:"page"`
	Ticket Subscribers `json:"ticket"`
}

// Subscribers of one topic.
type Subscribers struct {
	// Emails each get an email subscription (confirmed by the recipient).
	Emails []string `json:"emails"`
	// HTTPSEndpoints each get an HTTPS subscription, such as a pager's
	// events URL.
	HTTPSEndpoints []string `json:"httpsEndpoints"`
}

// Capacity is the table's capacity mode and, when provisioned, the auto
// scaling bounds of reads and writes; when on-demand, optionally the
// maximum request units per second of the table and of each index, a cost
// guard against a runaway client.
type Capacity struct {
	Mode                 CapacityMode `json:"mode"`
	MaxReadRequestUnits  int          `json:"maxReadRequestUnits"`
	MaxWriteRequestUnits int          `json:"maxWriteRequestUnits"`
	MinRead              int          `json:"minRead"`
	MaxRead              int          `json:"maxRead"`
	MinWrite             int          `json:"minWrite"`
	MaxWrite             int          `json:"maxWrite"`
	TargetUtilization    int          `json:"targetUtilizationPercent"`
}

// Backup is the AWS Backup plan. A retention of 0 turns its rule off.
type Backup struct {
	DailyRetentionDays   int       `json:"dailyRetentionDays"`
	WeeklyRetentionDays  int       `json:"weeklyRetentionDays"`
	MonthlyRetentionDays int       `json:"monthlyRetentionDays"`
	VaultLock            VaultLock `json:"vaultLock"`
	// CopyVaultARN, when set, copies every recovery point to that vault
	// (usually in a second region) and keeps the copy CopyRetentionDays.
	CopyVaultARN      string `json:"copyVaultArn"`
	CopyRetentionDays int    `json:"copyRetentionDays"`
	// DR, when set, adds a disaster-recovery stack in another region with
	// a vault locked like the primary one, and copies recovery points there.
	DR *DR `json:"dr"`
	// RestoreTest, when set, restores the latest recovery point on a
	// schedule and validates it (AWS Backup restore testing).
	RestoreTest *RestoreTest `json:"restoreTest"`
}

// DR is the disaster-recovery copy: the region of its vault and how long
// the copies of the daily, weekly and monthly recovery points are kept
// there. Every rule of the primary plan is copied: each needs its DR
// retention.
type DR struct {
	Region               string `json:"region"`
	DailyRetentionDays   int    `json:"dailyRetentionDays"`
	WeeklyRetentionDays  int    `json:"weeklyRetentionDays"`
	MonthlyRetentionDays int    `json:"monthlyRetentionDays"`
}

// RestoreTest schedules AWS Backup restore testing of the table.
type RestoreTest struct {
	// Schedule is "weekly" (Sundays) or "monthly" (the 2nd).
	Schedule string `json:"schedule"`
	// ValidationWindowHours keeps the restored table this long before
	// AWS Backup deletes it; 0 deletes it as soon as it is restored.
	// Default (absent): 1.
	ValidationWindowHours *int `json:"validationWindowHours"`
}

// VaultLock is the Vault Lock configuration of the backup vault.
type VaultLock struct {
	Mode             LockMode `json:"mode"`
	MinRetentionDays int      `json:"minRetentionDays"`
	MaxRetentionDays int      `json:"maxRetentionDays"`
	// ChangeableForDays is the compliance-mode cooling-off period (>= 3);
	// it must be 0 in governance mode.
	ChangeableForDays int `json:"changeableForDays"`
}

// Alarms holds the alarm thresholds of the table.
type Alarms struct {
	// ThrottleEvents is the number of read or write throttle events in five
	// minutes, per table or index, above which an alarm fires.
	ThrottleEvents int `json:"throttleEvents"`
	// SystemErrors is the number of DynamoDB 5xx errors in five minutes.
	SystemErrors int `json:"systemErrors"`
	// TransactionConflicts is the number of transaction conflicts in five minutes.
	TransactionConflicts int `json:"transactionConflicts"`
	// ReadUnitsPerSecond and WriteUnitsPerSecond are the capacity budget:
	// average consumed units per second over fifteen minutes.
	ReadUnitsPerSecond  int `json:"readUnitsPerSecond"`
	WriteUnitsPerSecond int `json:"writeUnitsPerSecond"`

	// Routing moves alarm kinds (the section names of docs/runbook.md,
	// such as "api-latency") to "page" or "ticket". Default: each kind's
	// own severity (constructs/oncall).
	Routing oncall.Routing `json:"routing"`
	// RunbookURL is the runbook every alarm description links to.
	// Default: the repository's docs/runbook.md.
	RunbookURL string `json:"runbookUrl"`
	// ErrorRatePercent is the share of 5xx answers (the API's and each
	// money route's) and of failed invocations (each API function's) that
	// pages when it lasts 2 of 3 periods of 5 minutes. Default: 2.
	ErrorRatePercent int `json:"errorRatePercent"`
	// ClientErrorPercent and ThrottledPercent are the shares of 4xx and of
	// 429 answers that page the same way. Defaults: 25 and 5.
	ClientErrorPercent int `json:"clientErrorPercent"`
	ThrottledPercent   int `json:"throttledPercent"`
	// MinRequests is the rates' traffic guard: a 5-minute period with fewer
	// requests never breaches. Default: 20.
	MinRequests int `json:"minRequests"`
	// SettledPaymentEveryMinutes declares that the environment always has
	// traffic: no successful settle for that long pages (5..1440), and a
	// period without stream batches breaches the consumer-lag alarm.
	// Default: 0, no such promise.
	SettledPaymentEveryMinutes int `json:"settledPaymentEveryMinutes"`
}

// Slack routes the page topic (ChannelID) and the ticket topic
// (TicketChannelID) to Slack channels through AWS Chatbot. WorkspaceID is
// required with either channel and refused without one, and so is a
// placeholder or malformed ID. Pass real IDs at deploy time
// (ApplyDeployTime) rather than committing them.
type Slack struct {
	WorkspaceID     string `json:"workspaceId"`
	ChannelID       string `json:"channelId"`
	TicketChannelID string `json:"ticketChannelId"`
}

// API configures the HTTP API and its Lambda functions.
type API struct {
	// ThrottleRatePerSecond and ThrottleBurst limit the API's stage: steady
	// requests per second and the bucket size for bursts. Required.
	ThrottleRatePerSecond int `json:"throttleRatePerSecond"`
	ThrottleBurst         int `json:"throttleBurst"`
	// LogRetentionDays keeps the access log and the function logs; one of
	// CloudWatch Logs' periods (1, 3, 5, 7, 14, 30, 60, 90, ..., 3653). Required.
	LogRetentionDays int `json:"logRetentionDays"`
	// JWT, when set, authorizes requests with a JWT authorizer instead of
	// IAM (SigV4). Default: IAM.
	JWT *JWT `json:"jwt"`
	// IAMOperators are the IAM principals the functions treat as
	// operators (role ARNs cover their sessions; an ARN ending in * is a
	// prefix); every other IAM caller is a service. Default: none.
	IAMOperators []string `json:"iamOperators"`
	// LatencyP99Ms alarms when the API's p99 latency reaches it. Default: 3000.
	LatencyP99Ms int `json:"latencyP99Ms"`
	// ReservedConcurrency reserves (and caps) concurrent executions per
	// function: "api", "charge", "debit", "settle". Default: unreserved.
	ReservedConcurrency map[string]int `json:"reservedConcurrency"`
	// MoneyRouteThrottleRatePerSecond and MoneyRouteThrottleBurst limit each
	// money route (charge, debit, settle) below the stage's limits.
	// Default: half the stage's.
	MoneyRouteThrottleRatePerSecond int `json:"moneyRouteThrottleRatePerSecond"`
	MoneyRouteThrottleBurst         int `json:"moneyRouteThrottleBurst"`
}

// JWT is the issuer and the accepted audiences of the JWT authorizer, the
// scopes that grant the roles and the claim that names a customer's user.
type JWT struct {
	Issuer   string   `json:"issuer"`
	Audience []string `json:"audience"`
	// Scopes name the scope of each role. Default: payments/customer,
	// payments/operator, payments/service.
	Scopes JWTScopes `json:"scopes"`
	// UserClaim is the claim whose value is a customer's userId.
	// Default: "sub".
	UserClaim string `json:"userClaim"`
}

// JWTScopes are the scopes that grant the customer, operator and service
// roles; an empty one is the default.
type JWTScopes struct {
	Customer string `json:"customer"`
	Operator string `json:"operator"`
	Service  string `json:"service"`
}

// iamPrincipal is an IAM role or user ARN, or an STS assumed-role ARN,
// possibly a prefix ending in *.
var iamPrincipal = regexp.MustCompile(`^arn:aws[a-z-]*:(iam::[0-9]{12}:(role|user)/|sts::[0-9]{12}:assumed-role/)[\w+=,.@/*-]+$`)

// checkScopes: the role scopes are single scope tokens, each distinct
// (an empty one is its default, which differs from the others').
func checkScopes(s JWTScopes, bad func(field, format string, args ...any) error) error {
	defaults := []string{"payments/customer", "payments/operator", "payments/service"}
	scopes := []string{s.Customer, s.Operator, s.Service}
	for i, sc := range scopes {
		if sc == "" {
			scopes[i] = defaults[i]
		} else if strings.ContainsAny(sc, " \t\n,") {
			return bad("api.jwt.scopes", "%q is not one scope (no spaces or commas)", sc)
		}
	}
	for i, sc := range scopes {
		if slices.Contains(scopes[i+1:], sc) {
			return bad("api.jwt.scopes", "%q grants two roles; each role needs a scope of its own", sc)
		}
	}
	return nil
}

// logRetentions are the retention periods CloudWatch Logs offers, in days.
var logRetentions = map[int]bool{1: true, 3: true, 5: true, 7: true, 14: true, 30: true, 60: true, 90: true,
	120: true, 150: true, 180: true, 365: true, 400: true, 545: true, 731: true, 1096: true, 1827: true,
	2192: true, 2557: true, 2922: true, 3288: true, 3653: true}

// functions are the Lambda functions ReservedConcurrency may name.
var functions = map[string]bool{"api": true, "charge": true, "debit": true, "settle": true}

// Parse decodes the value of the ContextKey context (a JSON object of
// environment name to settings) and validates every environment.
func Parse(data []byte) (map[string]Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: context %s is not a JSON object of environments: %v", ErrInvalidConfig, ContextKey, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: context %s defines no environment", ErrInvalidConfig, ContextKey)
	}
	out := make(map[string]Config, len(raw))
	for name, body := range raw {
		c, err := parseOne(name, body)
		if err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

// FromContext is Parse for a context value as the CDK returns it (decoded
// JSON). A nil value means the context is missing.
func FromContext(v any) (map[string]Config, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: context %s is missing: run the app through the CDK CLI (make synth), which passes the context of cdk.json", ErrInvalidConfig, ContextKey)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: context %s: %v", ErrInvalidConfig, ContextKey, err)
	}
	return Parse(data)
}

// ReadCDKJSON reads the environments from a cdk.json file; tests and tools
// that synthesize without the CDK CLI use it.
func ReadCDKJSON(path string) (map[string]Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Context map[string]json.RawMessage `json:"context"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidConfig, path, err)
	}
	envs, ok := file.Context[ContextKey]
	if !ok {
		return nil, fmt.Errorf("%w: %s has no context %s", ErrInvalidConfig, path, ContextKey)
	}
	return Parse(envs)
}

// Select returns the named environments: all of them, sorted by name, when
// name is empty, otherwise just the one.
func Select(all map[string]Config, name string) ([]Config, error) {
	names := Names(all)
	if name == "" {
		out := make([]Config, 0, len(names))
		for _, n := range names {
			out = append(out, all[n])
		}
		return out, nil
	}
	c, ok := all[name]
	if !ok {
		return nil, &UnknownEnvironmentError{Name: name, Known: names}
	}
	return []Config{c}, nil
}

// Names lists the environment names in sorted order.
func Names(all map[string]Config) []string {
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// required lists the fields every environment must set explicitly, because
// a zero value would silently weaken protection.
var required = []string{
	"region", "removalPolicy", "deletionProtection", "pitrRecoveryPeriodDays",
	"capacity", "backup", "alarms", "api",
}

func parseOne(name string, body json.RawMessage) (Config, error) {
	var present map[string]json.RawMessage
	if err := json.Unmarshal(body, &present); err != nil {
		return Config{}, &FieldError{Env: name, Reason: "settings must be a JSON object"}
	}
	for _, f := range required {
		if _, ok := present[f]; !ok {
			return Config{}, &FieldError{Env: name, Field: f, Reason: "required value is missing"}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, &FieldError{Env: name, Reason: strings.TrimPrefix(err.Error(), "json: ")}
	}
	c.Name = name
	if c.OrderIndexes == "" {
		c.OrderIndexes = schema.OrdersV1
	}
	if _, ok := present["orderShards"]; !ok {
		c.OrderShards = DefaultOrderShards
	}
	if r := c.Regions; r != nil {
		if r.Cells == 0 {
			r.Cells = config.DefaultHomeCells
		}
		if r.Unplanned == "" {
			r.Unplanned = Freeze
		}
		if r.ReplicationLatencyAlarmMs == 0 {
			r.ReplicationLatencyAlarmMs = DefaultReplicationLatencyAlarmMs
		}
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func (c Config) validate() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Env: c.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if c.Region == "" {
		return bad("region", "required value is empty")
	}
	if c.Account != "" && !isDigits(c.Account, 12) {
		return bad("account", "%q is not a 12-digit AWS account ID", c.Account)
	}
	if c.RemovalPolicy != Retain && c.RemovalPolicy != Destroy {
		return bad("removalPolicy", "%q is not %q or %q", c.RemovalPolicy, Retain, Destroy)
	}
	if c.PITRRecoveryPeriodDays < 1 || c.PITRRecoveryPeriodDays > 35 {
		return bad("pitrRecoveryPeriodDays", "%d is outside 1..35", c.PITRRecoveryPeriodDays)
	}
	switch c.Capacity.Mode {
	case OnDemand:
		cp := c.Capacity
		if cp != (Capacity{Mode: OnDemand, MaxReadRequestUnits: cp.MaxReadRequestUnits, MaxWriteRequestUnits: cp.MaxWriteRequestUnits}) {
			return bad("capacity", "on-demand takes no read/write bounds, only maxReadRequestUnits and maxWriteRequestUnits")
		}
		if cp.MaxReadRequestUnits < 0 || cp.MaxWriteRequestUnits < 0 {
			return bad("capacity", "maxReadRequestUnits and maxWriteRequestUnits must not be negative")
		}
	case Provisioned:
		cp := c.Capacity
		if cp.MaxReadRequestUnits != 0 || cp.MaxWriteRequestUnits != 0 {
			return bad("capacity", "maxReadRequestUnits and maxWriteRequestUnits apply to on-demand only")
		}
		if cp.MinRead < 1 || cp.MaxRead < cp.MinRead {
			return bad("capacity", "provisioned needs 1 <= minRead <= maxRead, got %d..%d", cp.MinRead, cp.MaxRead)
		}
		if cp.MinWrite < 1 || cp.MaxWrite < cp.MinWrite {
			return bad("capacity", "provisioned needs 1 <= minWrite <= maxWrite, got %d..%d", cp.MinWrite, cp.MaxWrite)
		}
		if cp.TargetUtilization < 20 || cp.TargetUtilization > 90 {
			return bad("capacity.targetUtilizationPercent", "%d is outside 20..90", cp.TargetUtilization)
		}
	default:
		return bad("capacity.mode", "%q is not %q or %q", c.Capacity.Mode, OnDemand, Provisioned)
	}
	if err := c.validateBackup(bad); err != nil {
		return err
	}
	a := c.Alarms
	for _, t := range []struct {
		field string
		v     int
	}{
		{"alarms.throttleEvents", a.ThrottleEvents},
		{"alarms.systemErrors", a.SystemErrors},
		{"alarms.transactionConflicts", a.TransactionConflicts},
		{"alarms.readUnitsPerSecond", a.ReadUnitsPerSecond},
		{"alarms.writeUnitsPerSecond", a.WriteUnitsPerSecond},
	} {
		if t.v < 1 {
			return bad(t.field, "must be at least 1, got %d", t.v)
		}
	}
	if err := c.validateSlack(bad); err != nil {
		return err
	}
	if err := c.validateRouting(bad); err != nil {
		return err
	}
	if err := c.validateEvents(bad); err != nil {
		return err
	}
	if err := c.validateOrders(bad); err != nil {
		return err
	}
	if err := c.validateRegions(bad); err != nil {
		return err
	}
	return c.validateAPI(bad)
}

// DefaultOrderShards and MaxOrderShards bound orderShards: the runtime's
// (runtime/config).
const (
	DefaultOrderShards = config.DefaultOrderShards
	MaxOrderShards     = config.MaxOrderShards
)

// validateOrders checks orderIndexes and orderShards; parseOne has filled
// their defaults ("v1" for an absent or empty stage, 4 for absent shards),
// so an explicit orderShards 0 fails.
func (c Config) validateOrders(bad func(field, format string, args ...any) error) error {
	if _, err := schema.ParseOrderIndexes(string(c.OrderIndexes)); err != nil {
		return bad("orderIndexes", "%q is not \"v1\", \"both\" or \"v2\" (the stages of the orders-by-status migration, one per deploy: see docs/migrations.md)", c.OrderIndexes)
	}
	if c.OrderShards < 1 || c.OrderShards > MaxOrderShards {
		return bad("orderShards", "%d is outside 1..%d", c.OrderShards, MaxOrderShards)
	}
	return nil
}

// validateRouting checks who is paged and ticketed besides Slack, and the
// alarm routing and rates.
func (c Config) validateRouting(bad func(field, format string, args ...any) error) error {
	for _, n := range []struct {
		field string
		subs  Subscribers
	}{{"notifications.page", c.Notifications.Page}, {"notifications.ticket", c.Notifications.Ticket}} {
		for _, e := range n.subs.Emails {
			if at := strings.LastIndex(e, "@"); at < 1 || !strings.Contains(e[at:], ".") {
				return bad(n.field+".emails", "%q is not an email address", e)
			}
			if placeholderEmail(e) {
				return bad(n.field+".emails", "%q is at a domain reserved for examples, so it reaches nobody", e)
			}
		}
		for _, u := range n.subs.HTTPSEndpoints {
			if !strings.HasPrefix(u, "https://") || len(u) <= len("https://") {
				return bad(n.field+".httpsEndpoints", "%q is not an https URL", u)
			}
		}
	}
	a := c.Alarms
	if err := a.Routing.Validate(); err != nil {
		return bad("alarms.routing", "%v", err)
	}
	if a.RunbookURL != "" && !strings.HasPrefix(a.RunbookURL, "https://") {
		return bad("alarms.runbookUrl", "%q is not an https URL", a.RunbookURL)
	}
	for _, p := range []struct {
		field string
		v     int
	}{{"alarms.errorRatePercent", a.ErrorRatePercent}, {"alarms.clientErrorPercent", a.ClientErrorPercent}, {"alarms.throttledPercent", a.ThrottledPercent}} {
		if p.v < 0 || p.v > 100 {
			return bad(p.field, "%d is outside 0..100 (0: the default)", p.v)
		}
	}
	if a.MinRequests < 0 || a.MinRequests == 1 {
		return bad("alarms.minRequests", "%d must be 0 (the default) or at least 2", a.MinRequests)
	}
	if m := a.SettledPaymentEveryMinutes; m != 0 && (m < 5 || m > 1440) {
		return bad("alarms.settledPaymentEveryMinutes", "%d is outside 5..1440 (0: no heartbeat)", m)
	}
	return nil
}

func (c Config) validateEvents(bad func(field, format string, args ...any) error) error {
	e := c.Events
	for _, r := range []struct {
		field  string
		v, max int
	}{
		{"events.batchSize", e.BatchSize, 10000},
		{"events.batchingWindowSeconds", deref(e.BatchingWindowSeconds), 300},
		{"events.retryAttempts", deref(e.RetryAttempts), 10000},
		{"events.maxRecordAgeSeconds", e.MaxRecordAgeSeconds, 7 * 24 * 3600},
		{"events.archiveRetentionDays", deref(e.ArchiveRetentionDays), 3650},
		{"events.iteratorAgeAlarmSeconds", e.IteratorAgeAlarmSeconds, 7 * 24 * 3600},
	} {
		if r.v < 0 || r.v > r.max {
			return bad(r.field, "%d is outside 0..%d", r.v, r.max)
		}
	}
	if e.MaxRecordAgeSeconds != 0 && e.MaxRecordAgeSeconds < 60 {
		return bad("events.maxRecordAgeSeconds", "%d is below 60", e.MaxRecordAgeSeconds)
	}
	return nil
}

func (c Config) validateAPI(bad func(field, format string, args ...any) error) error {
	a := c.API
	if a.ThrottleRatePerSecond < 1 {
		return bad("api.throttleRatePerSecond", "must be at least 1, got %d", a.ThrottleRatePerSecond)
	}
	if a.ThrottleBurst < 1 {
		return bad("api.throttleBurst", "must be at least 1, got %d", a.ThrottleBurst)
	}
	if !logRetentions[a.LogRetentionDays] {
		return bad("api.logRetentionDays", "%d is not a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653)", a.LogRetentionDays)
	}
	if a.LatencyP99Ms < 0 {
		return bad("api.latencyP99Ms", "must not be negative, got %d", a.LatencyP99Ms)
	}
	if j := a.JWT; j != nil {
		if !strings.HasPrefix(j.Issuer, "https://") {
			return bad("api.jwt.issuer", "%q is not an https issuer URL", j.Issuer)
		}
		if len(j.Audience) == 0 {
			return bad("api.jwt.audience", "at least one audience is required")
		}
		if err := checkScopes(j.Scopes, bad); err != nil {
			return err
		}
	}
	for _, arn := range a.IAMOperators {
		if !iamPrincipal.MatchString(arn) {
			return bad("api.iamOperators", "%q is not an IAM principal ARN (arn:aws:iam::<account>:role/<name>, or ...:user/..., or ending in *)", arn)
		}
	}
	if a.MoneyRouteThrottleRatePerSecond < 0 || a.MoneyRouteThrottleRatePerSecond > a.ThrottleRatePerSecond {
		return bad("api.moneyRouteThrottleRatePerSecond", "%d is outside 0..%d (the stage's rate)", a.MoneyRouteThrottleRatePerSecond, a.ThrottleRatePerSecond)
	}
	if a.MoneyRouteThrottleBurst < 0 || a.MoneyRouteThrottleBurst > a.ThrottleBurst {
		return bad("api.moneyRouteThrottleBurst", "%d is outside 0..%d (the stage's burst)", a.MoneyRouteThrottleBurst, a.ThrottleBurst)
	}
	for fn, n := range a.ReservedConcurrency {
		if !functions[fn] {
			return bad("api.reservedConcurrency", "%q is not a function (api, charge, debit, settle)", fn)
		}
		if n < 1 {
			return bad("api.reservedConcurrency."+fn, "must be at least 1, got %d", n)
		}
	}
	return nil
}

func (c Config) validateBackup(bad func(field, format string, args ...any) error) error {
	b := c.Backup
	l := b.VaultLock
	switch l.Mode {
	case Governance:
		if l.ChangeableForDays != 0 {
			return bad("backup.vaultLock.changeableForDays", "governance mode takes no changeableForDays")
		}
	case Compliance:
		if l.ChangeableForDays < 3 {
			return bad("backup.vaultLock.changeableForDays", "compliance mode needs a cooling-off period of at least 3 days, got %d", l.ChangeableForDays)
		}
	default:
		return bad("backup.vaultLock.mode", "%q is not %q or %q", l.Mode, Governance, Compliance)
	}
	if l.MinRetentionDays < 1 {
		return bad("backup.vaultLock.minRetentionDays", "must be at least 1, got %d", l.MinRetentionDays)
	}
	if l.MaxRetentionDays < l.MinRetentionDays {
		return bad("backup.vaultLock.maxRetentionDays", "%d is below minRetentionDays %d", l.MaxRetentionDays, l.MinRetentionDays)
	}
	rules := []struct {
		field string
		days  int
	}{
		{"backup.dailyRetentionDays", b.DailyRetentionDays},
		{"backup.weeklyRetentionDays", b.WeeklyRetentionDays},
		{"backup.monthlyRetentionDays", b.MonthlyRetentionDays},
	}
	if b.CopyVaultARN != "" {
		if !strings.HasPrefix(b.CopyVaultARN, "arn:") || !strings.Contains(b.CopyVaultARN, ":backup-vault:") {
			return bad("backup.copyVaultArn", "%q is not a backup vault ARN", b.CopyVaultARN)
		}
		if b.CopyRetentionDays < 1 {
			return bad("backup.copyRetentionDays", "must be at least 1 when copyVaultArn is set")
		}
	} else if b.CopyRetentionDays != 0 {
		return bad("backup.copyRetentionDays", "set without copyVaultArn")
	}
	active := 0
	for _, r := range rules {
		if r.days == 0 {
			continue
		}
		active++
		if r.days < l.MinRetentionDays || r.days > l.MaxRetentionDays {
			return bad(r.field, "%d days is outside the vault lock's %d..%d, so AWS Backup would reject the job", r.days, l.MinRetentionDays, l.MaxRetentionDays)
		}
	}
	if active == 0 {
		return bad("backup", "at least one of dailyRetentionDays, weeklyRetentionDays, monthlyRetentionDays must be set")
	}
	if err := c.validateDR(bad); err != nil {
		return err
	}
	if rt := b.RestoreTest; rt != nil {
		if rt.Schedule != "weekly" && rt.Schedule != "monthly" {
			return bad("backup.restoreTest.schedule", "%q is not \"weekly\" or \"monthly\"", rt.Schedule)
		}
		if h := deref(rt.ValidationWindowHours); h < 0 || h > 168 {
			return bad("backup.restoreTest.validationWindowHours", "%d is outside 0..168", h)
		}
	}
	return nil
}

func (c Config) validateDR(bad func(field, format string, args ...any) error) error {
	dr, b := c.Backup.DR, c.Backup
	if dr == nil {
		return nil
	}
	if dr.Region == "" || dr.Region == c.Region {
		return bad("backup.dr.region", "must name a region other than the environment's %q", c.Region)
	}
	if dr.DailyRetentionDays == 0 && dr.WeeklyRetentionDays == 0 && dr.MonthlyRetentionDays == 0 {
		return bad("backup.dr", "set dailyRetentionDays, weeklyRetentionDays or monthlyRetentionDays, or there is nothing to copy")
	}
	l := b.VaultLock
	for _, r := range []struct {
		field        string
		days, source int
	}{
		{"backup.dr.dailyRetentionDays", dr.DailyRetentionDays, b.DailyRetentionDays},
		{"backup.dr.weeklyRetentionDays", dr.WeeklyRetentionDays, b.WeeklyRetentionDays},
		{"backup.dr.monthlyRetentionDays", dr.MonthlyRetentionDays, b.MonthlyRetentionDays},
	} {
		if r.days == 0 && r.source != 0 {
			return bad(r.field, "missing: the primary plan has this rule, and with a DR copy every rule must reach DR (a recovery point the DR region lacks)")
		}
		if r.days == 0 {
			continue
		}
		if r.source == 0 {
			return bad(r.field, "set, but the primary plan has no such rule to copy")
		}
		if r.days < l.MinRetentionDays || r.days > l.MaxRetentionDays {
			return bad(r.field, "%d days is outside the vault lock's %d..%d, which the DR vault shares", r.days, l.MinRetentionDays, l.MaxRetentionDays)
		}
	}
	if b.CopyVaultARN != "" {
		return bad("backup.dr", "set dr or copyVaultArn, not both")
	}
	return nil
}

// deref is *p, or 0 for nil.
func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
