package ddblocal

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

type attributeDefinition struct {
	AttributeName string
	AttributeType string
}

type keySchemaElement struct {
	AttributeName string
	KeyType       string
}

type projectionJSON struct {
	ProjectionType   string   `json:",omitempty"`
	NonKeyAttributes []string `json:",omitempty"`
}

type provisionedThroughput struct {
	ReadCapacityUnits  *int64 `json:",omitempty"`
	WriteCapacityUnits *int64 `json:",omitempty"`
}

type indexJSON struct {
	IndexName             string
	KeySchema             []keySchemaElement
	Projection            projectionJSON
	ProvisionedThroughput *provisionedThroughput
}

// streamSpecification is the StreamSpecification of a request.
type streamSpecification struct {
	StreamEnabled  *bool
	StreamViewType string `json:",omitempty"`
}

// checkStreamSpec validates a StreamSpecification with DynamoDB's wording
// for CreateTable (creating) or UpdateTable.
func checkStreamSpec(spec *streamSpecification, creating bool) error {
	if spec == nil {
		return nil
	}
	if spec.StreamEnabled == nil {
		return validationf("1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null")
	}
	if spec.StreamViewType != "" && !validViewType(spec.StreamViewType) {
		return validationf("1 validation error detected: Value '%s' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]", spec.StreamViewType)
	}
	switch enabled := *spec.StreamEnabled; {
	case enabled && spec.StreamViewType == "" && creating:
		return validationf("One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required")
	case enabled && spec.StreamViewType == "":
		return validationf("One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required")
	case !enabled && spec.StreamViewType != "" && creating:
		return validationf("One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should not be specified")
	case !enabled && spec.StreamViewType != "":
		return validationf("One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified")
	}
	return nil
}

// checkStreamChange refuses enabling a second stream or disabling none;
// the caller holds t.mu.
func checkStreamChange(t *table, spec *streamSpecification) error {
	if *spec.StreamEnabled && t.stream != nil {
		return validationf("Table already has an enabled stream: TableName: %s", t.name)
	}
	if !*spec.StreamEnabled && t.stream == nil {
		return validationf("Table has no stream to disable: TableName: %s", t.name)
	}
	if !*spec.StreamEnabled && t.replica != nil && t.replica.eventual(t.name) {
		return validationf("One or more parameter values were invalid: Disabling Stream is not allowed for a Global Table replica.")
	}
	return nil
}

// changeStream applies UpdateTable's StreamSpecification, checked; the
// caller holds t.mu. Enabling always makes a new stream; a disabled one
// stays readable until its records expire.
func (e *Engine) changeStream(t *table, spec *streamSpecification) {
	if *spec.StreamEnabled {
		t.stream = e.newStream(t, spec.StreamViewType, e.now())
		t.latestStream = t.stream
		return
	}
	t.stream.disable(e.now())
	t.stream = nil
}

type createTableInput struct {
	TableName                 string
	AttributeDefinitions      []attributeDefinition
	KeySchema                 []keySchemaElement
	GlobalSecondaryIndexes    []indexJSON
	LocalSecondaryIndexes     []indexJSON
	BillingMode               string
	ProvisionedThroughput     *provisionedThroughput
	StreamSpecification       *streamSpecification
	DeletionProtectionEnabled bool
	Tags                      []tag
	SSESpecification          map[string]any
	TableClass                string
	// ResourcePolicy is attached to the table as PutResourcePolicy would.
	ResourcePolicy *string
}

func (in *createTableInput) tableNames() []string { return []string{in.TableName} }

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

func checkTableName(name string) error {
	if name == "" {
		return validationf("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}
	if !tableNameRE.MatchString(name) {
		if len(name) < 3 {
			return validationf("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3", name)
		}
		if len(name) > 255 {
			return validationf("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255", name)
		}
		return validationf("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", name)
	}
	return nil
}

func parseKeySchema(elems []keySchemaElement, defs map[string]attr.Type, what string) (keySchema, error) {
	var ks keySchema
	if len(elems) == 0 || len(elems) > 2 {
		return ks, validationf("1 validation error detected: Value '%v' at '%s' failed to satisfy constraint: Member must have length less than or equal to 2", elems, what)
	}
	if elems[0].KeyType != "HASH" {
		return ks, validationf("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(elems) == 2 {
		if elems[1].KeyType != "RANGE" {
			return ks, validationf("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		}
		if elems[0].AttributeName == elems[1].AttributeName {
			if len(defs) == 1 {
				// DynamoDB counts the repeated name as a second, undefined key.
				return ks, validationf("Invalid KeySchema: Some index key attribute have no definition")
			}
			return ks, validationf("Both the Hash Key and the Range Key element in the KeySchema have the same name")
		}
	}
	for i, el := range elems {
		typ, ok := defs[el.AttributeName]
		if !ok {
			return ks, validationf("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(elemNames(elems), ", "), strings.Join(sortedKeys(defs), ", "))
		}
		if i == 0 {
			ks.hash = keyAttr{el.AttributeName, typ}
		} else {
			ks.rng = keyAttr{el.AttributeName, typ}
		}
	}
	return ks.withAttrs(), nil
}

func elemNames(elems []keySchemaElement) []string {
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = e.AttributeName
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func parseProjection(p projectionJSON, ks keySchema, tableKeys keySchema, name string) (projection, error) {
	switch p.ProjectionType {
	case "ALL", "KEYS_ONLY":
		if len(p.NonKeyAttributes) > 0 {
			return projection{}, validationf("One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is specified", p.ProjectionType)
		}
		return projection{typ: p.ProjectionType}, nil
	case "INCLUDE":
		if len(p.NonKeyAttributes) == 0 {
			return projection{}, validationf("One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}
		return projection{typ: "INCLUDE", nonKey: append([]string(nil), p.NonKeyAttributes...)}, nil
	case "":
		return projection{}, validationf("One or more parameter values were invalid: Unknown ProjectionType: null")
	default:
		return projection{}, validationf("1 validation error detected: Value '%s' at 'projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [INCLUDE, ALL, KEYS_ONLY]", p.ProjectionType)
	}
}

func checkThroughput(billing string, pt *provisionedThroughput, what string) (rcu, wcu int64, err error) {
	switch billing {
	case "PAY_PER_REQUEST":
		if pt != nil && (pt.ReadCapacityUnits != nil || pt.WriteCapacityUnits != nil) {
			return 0, 0, validationf("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		return 0, 0, nil
	default:
		if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
			if what == "" {
				return 0, 0, validationf("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
			}
			return 0, 0, validationf("One or more parameter values were invalid: ProvisionedThroughput should not be null for index: %s", what)
		}
		if *pt.ReadCapacityUnits < 1 || *pt.WriteCapacityUnits < 1 {
			return 0, 0, validationf("One or more parameter values were invalid: Provisioned throughput must be at least 1")
		}
		return *pt.ReadCapacityUnits, *pt.WriteCapacityUnits, nil
	}
}

func (e *Engine) createTable(ctx context.Context, in *createTableInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	billing := in.BillingMode
	if billing == "" {
		billing = "PROVISIONED"
	}
	if billing != "PROVISIONED" && billing != "PAY_PER_REQUEST" {
		return nil, validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", billing)
	}
	rcu, wcu, err := checkThroughput(billing, in.ProvisionedThroughput, "")
	if err != nil {
		return nil, err
	}
	if err := checkStreamSpec(in.StreamSpecification, true); err != nil {
		return nil, err
	}
	defs := map[string]attr.Type{}
	var attrDefs []attrDef
	for _, d := range in.AttributeDefinitions {
		typ, ok := attr.ParseType(d.AttributeType)
		if !ok || (typ != attr.S && typ != attr.N && typ != attr.B) {
			return nil, validationf("1 validation error detected: Value '%s' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", d.AttributeType)
		}
		if _, dup := defs[d.AttributeName]; dup {
			return nil, validationf("Cannot have two attributes with the same name. Attribute name: %s", d.AttributeName)
		}
		defs[d.AttributeName] = typ
		attrDefs = append(attrDefs, attrDef{d.AttributeName, typ})
	}
	if len(in.KeySchema) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: Member must not be null")
	}
	ks, err := parseKeySchema(in.KeySchema, defs, "keySchema")
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, n := range ks.names() {
		used[n] = true
	}
	t := &table{
		name:               in.TableName,
		keys:               ks,
		attrDefs:           attrDefs,
		billing:            billing,
		rcu:                rcu,
		wcu:                wcu,
		created:            e.now(),
		items:              newRows(),
		deletionProtection: in.DeletionProtectionEnabled,
		// Set before the table is visible, so that no early write escapes
		// the store.
		persist: e.db != nil,
	}
	t.id = tableID(in.TableName, t.created)
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	for _, tg := range in.Tags {
		if t.tags == nil {
			t.tags = map[string]string{}
		}
		t.tags[tg.Key] = tg.Value
	}
	t.arn = fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", e.region(ctx), e.opts.AccountID, in.TableName)
	if len(in.GlobalSecondaryIndexes) > 20 {
		return nil, validationf("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20")
	}
	if len(in.LocalSecondaryIndexes) > 5 {
		return nil, validationf("One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5")
	}
	names := map[string]bool{}
	for _, g := range in.GlobalSecondaryIndexes {
		ix, err := newIndex(g, defs, ks, false, billing)
		if err != nil {
			return nil, err
		}
		if names[ix.name] {
			return nil, validationf("One or more parameter values were invalid: Duplicate index name: %s", ix.name)
		}
		names[ix.name] = true
		for _, n := range ix.keys.names() {
			used[n] = true
		}
		t.gsis = append(t.gsis, ix)
	}
	for _, l := range in.LocalSecondaryIndexes {
		if ks.rng.name == "" {
			return nil, validationf("One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		ix, err := newIndex(l, defs, ks, true, billing)
		if err != nil {
			return nil, err
		}
		if ix.keys.hash.name != ks.hash.name {
			return nil, validationf("One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s", ix.name, ix.keys.hash.name, ks.hash.name)
		}
		if ix.keys.rng.name == "" {
			return nil, validationf("One or more parameter values were invalid: Index KeySchema does not have a range key for index: %s", ix.name)
		}
		if names[ix.name] {
			return nil, validationf("One or more parameter values were invalid: Duplicate index name: %s", ix.name)
		}
		names[ix.name] = true
		for _, n := range ix.keys.names() {
			used[n] = true
		}
		t.lsis = append(t.lsis, ix)
	}
	if len(used) != len(defs) {
		return nil, validationf("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	if err := t.attachCreatePolicy(in.ResourcePolicy, e.nextRevision("")); err != nil {
		return nil, err
	}
	e.markCreating(t)
	e.mu.Lock()
	if _, exists := e.tables[in.TableName]; exists {
		e.mu.Unlock()
		return nil, newError(CodeResourceInUse, "Table already exists: %s", in.TableName)
	}
	if _, deleting := e.stillDeleting(in.TableName); deleting {
		e.mu.Unlock()
		return nil, inUse("deleted", in.TableName)
	}
	if spec := in.StreamSpecification; spec != nil && *spec.StreamEnabled {
		t.stream = e.newStream(t, spec.StreamViewType, t.created)
		t.latestStream = t.stream
	}
	e.tables[in.TableName] = t
	e.publishTables()
	e.mu.Unlock()
	if err := e.persistTable(t); err != nil {
		return nil, err
	}
	return map[string]any{"TableDescription": e.describeWithStatus(t)}, nil
}

func newIndex(in indexJSON, defs map[string]attr.Type, tableKeys keySchema, local bool, billing string) (*index, error) {
	if len(in.IndexName) < 3 {
		return nil, validationf("1 validation error detected: Value '%s' at 'indexName' failed to satisfy constraint: Member must have length greater than or equal to 3", in.IndexName)
	}
	if len(in.IndexName) > 255 {
		return nil, validationf("1 validation error detected: Value '%s' at 'indexName' failed to satisfy constraint: Member must have length less than or equal to 255", in.IndexName)
	}
	if !tableNameRE.MatchString(in.IndexName) {
		return nil, validationf("1 validation error detected: Value '%s' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", in.IndexName)
	}
	ks, err := parseIndexKeySchema(in.KeySchema, defs, local)
	if err != nil {
		return nil, err
	}
	proj, err := parseProjection(in.Projection, ks, tableKeys, in.IndexName)
	if err != nil {
		return nil, err
	}
	ix := &index{name: in.IndexName, local: local, keys: ks, proj: proj, tree: newTree(), status: "ACTIVE"}
	if !local {
		ix.rcu, ix.wcu, err = checkThroughput(billing, in.ProvisionedThroughput, in.IndexName)
		if err != nil {
			return nil, err
		}
	}
	return ix, nil
}

func tableID(name string, at time.Time) string {
	h := uint64(14695981039346656037)
	for _, s := range [2]string{name, at.String()} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	// %08x-%04x-%04x-%04x-%012x of the hash's parts, without fmt.
	var b [36]byte
	hexField := func(off int, v uint64, width int) {
		for i := width - 1; i >= 0; i-- {
			b[off+i] = hexDigits[v&0xF]
			v >>= 4
		}
	}
	hexField(0, h>>32&0xFFFFFFFF, 8)
	b[8] = '-'
	hexField(9, h>>16&0xFFFF, 4)
	b[13] = '-'
	hexField(14, h&0xFFFF, 4)
	b[18] = '-'
	hexField(19, h>>48&0xFFFF, 4)
	b[23] = '-'
	hexField(24, h&0xFFFFFFFFFFFF, 12)
	return string(b[:])
}

func epochSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func throughputJSON(rcu, wcu int64) map[string]any {
	return map[string]any{"NumberOfDecreasesToday": 0, "ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
}

// describe returns the TableDescription. The caller must not hold t.mu.
func (t *table) describe() map[string]any {
	t.mu.RLock()
	defer t.mu.RUnlock()
	defs := make([]attributeDefinition, len(t.attrDefs))
	for i, d := range t.attrDefs {
		defs[i] = attributeDefinition{d.name, d.typ.String()}
	}
	d := map[string]any{
		"AttributeDefinitions":      defs,
		"TableName":                 t.name,
		"KeySchema":                 keySchemaJSON(t.keys),
		"TableStatus":               "ACTIVE",
		"CreationDateTime":          epochSeconds(t.created),
		"ProvisionedThroughput":     throughputJSON(t.rcu, t.wcu),
		"TableSizeBytes":            t.size,
		"ItemCount":                 t.items.Len(),
		"TableArn":                  t.arn,
		"TableId":                   t.id,
		"DeletionProtectionEnabled": t.deletionProtection,
	}
	if t.billing == "PAY_PER_REQUEST" {
		d["BillingModeSummary"] = map[string]any{"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": epochSeconds(t.created)}
	} else {
		d["BillingModeSummary"] = map[string]any{"BillingMode": "PROVISIONED"}
	}
	if t.restoreSummary != nil {
		d["RestoreSummary"] = t.restoreSummary
	}
	if s := t.stream; s != nil {
		d["StreamSpecification"] = map[string]any{"StreamEnabled": true, "StreamViewType": s.viewType}
	}
	if s := t.latestStream; s != nil {
		d["LatestStreamLabel"] = s.label
		d["LatestStreamArn"] = s.arn
	}
	describeIndex := func(ix *index) map[string]any {
		m := map[string]any{
			"IndexName":      ix.name,
			"KeySchema":      keySchemaJSON(ix.keys),
			"Projection":     projectionJSON{ProjectionType: ix.proj.typ, NonKeyAttributes: ix.proj.nonKey},
			"IndexSizeBytes": ix.size,
			"ItemCount":      ix.tree.Len(),
			"IndexArn":       t.arn + "/index/" + ix.name,
		}
		if !ix.local {
			m["IndexStatus"] = ix.status
			m["ProvisionedThroughput"] = throughputJSON(ix.rcu, ix.wcu)
			if ix.status == "ACTIVE" {
				m["Backfilling"] = false
			}
		}
		return m
	}
	if len(t.gsis) > 0 {
		var gs []map[string]any
		for _, ix := range t.gsis {
			gs = append(gs, describeIndex(ix))
		}
		d["GlobalSecondaryIndexes"] = gs
	}
	if len(t.lsis) > 0 {
		var ls []map[string]any
		for _, ix := range t.lsis {
			ls = append(ls, describeIndex(ix))
		}
		d["LocalSecondaryIndexes"] = ls
	}
	if t.replica != nil {
		t.replica.describeGlobal(t, d)
	}
	return d
}

type tableNameInput struct{ TableName string }

func (in *tableNameInput) tableNames() []string { return []string{in.TableName} }

func (e *Engine) describeTable(_ context.Context, in *tableNameInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	t := e.anyStatus(in.TableName) // a CREATING table is described too
	if t == nil {
		if desc, ok := e.stillDeleting(in.TableName); ok {
			return map[string]any{"Table": desc}, nil
		}
		return nil, newError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", in.TableName)
	}
	return map[string]any{"Table": e.describeWithStatus(t)}, nil
}

func (e *Engine) deleteTable(_ context.Context, in *tableNameInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	e.mu.Lock()
	t := e.tables[in.TableName]
	if t == nil {
		e.mu.Unlock()
		return nil, newError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", in.TableName)
	}
	if t.deletionProtection {
		e.mu.Unlock()
		return nil, validationf("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	if e.creating(t) {
		e.mu.Unlock()
		return nil, inUse("created", in.TableName)
	}
	delete(e.tables, in.TableName)
	e.publishTables()
	e.mu.Unlock()
	var closed *stream
	_ = t.locked(func() error {
		t.deleted = true
		// The stream outlives the table until its records expire.
		if closed = t.stream; closed != nil {
			closed.disable(e.now())
		}
		return nil
	})
	if closed != nil {
		e.persistStream(closed)
	}
	desc := t.describe()
	desc["TableStatus"] = "DELETING"
	if e.global != nil {
		e.leaveGlobal(t)
	}
	if err := e.dropStoredTable(t.name); err != nil {
		return nil, err
	}
	e.markDeleting(t.name, desc)
	return map[string]any{"TableDescription": desc}, nil
}

type listTablesInput struct {
	ExclusiveStartTableName string
	Limit                   *int
}

func (in *listTablesInput) tableNames() []string { return nil }

func (e *Engine) listTables(_ context.Context, in *listTablesInput) (any, error) {
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100", *in.Limit)
		}
		limit = *in.Limit
	}
	names := e.tableNames()
	start := 0
	if in.ExclusiveStartTableName != "" {
		start = sort.SearchStrings(names, in.ExclusiveStartTableName)
		if start < len(names) && names[start] == in.ExclusiveStartTableName {
			start++
		}
	}
	out := map[string]any{}
	page := names[start:]
	if len(page) > limit {
		page = page[:limit]
		out["LastEvaluatedTableName"] = page[len(page)-1]
	}
	out["TableNames"] = append([]string{}, page...)
	return out, nil
}

type updateTableInput struct {
	TableName                   string
	AttributeDefinitions        []attributeDefinition
	BillingMode                 string
	ProvisionedThroughput       *provisionedThroughput
	GlobalSecondaryIndexUpdates []struct {
		Create *indexJSON
		Delete *struct{ IndexName string }
		Update *struct {
			IndexName             string
			ProvisionedThroughput *provisionedThroughput
		}
	}
	DeletionProtectionEnabled *bool
	StreamSpecification       *streamSpecification
	// Global tables (ops_global.go), with Options.Regions.
	ReplicaUpdates            []replicaUpdate
	MultiRegionConsistency    string
	GlobalTableWitnessUpdates []witnessUpdate
}

func (in *updateTableInput) tableNames() []string { return []string{in.TableName} }

// updateTable changes billing, deletion protection and streams, and adds
// (with a synchronous backfill) or deletes global secondary indexes.
func (e *Engine) updateTable(ctx context.Context, in *updateTableInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := checkStreamSpec(in.StreamSpecification, false); err != nil {
		return nil, err
	}
	if len(in.GlobalSecondaryIndexUpdates) > 1 {
		creates := 0
		for _, u := range in.GlobalSecondaryIndexUpdates {
			if u.Create != nil {
				creates++
			}
		}
		if creates > 1 {
			return nil, newError(CodeLimitExceeded, "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
		}
	}
	// The request is checked on its own before the table is looked up.
	t := e.anyStatus(in.TableName)
	if t == nil {
		return nil, newError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", in.TableName)
	}
	if e.creating(t) {
		return nil, inUse("created", in.TableName)
	}
	if e.global != nil && in.globalChange() {
		return e.updateGlobal(ctx, t, in)
	}
	var before *stream
	err := t.locked(func() error {
		before = t.stream
		if err := e.updateTableLocked(t, in); err != nil {
			return err
		}
		e.markUpdating(t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := e.persistTable(t); err != nil {
		return nil, err
	}
	if in.StreamSpecification != nil {
		for _, s := range []*stream{before, t.latestStream} {
			if s != nil {
				e.persistStream(s)
			}
		}
	}
	if e.global != nil && (in.ProvisionedThroughput != nil || in.BillingMode != "" || len(in.GlobalSecondaryIndexUpdates) > 0) {
		e.alignReplicas(ctx, t, func(peer *Engine, ctx context.Context) { _, _ = peer.updateTable(ctx, in.forReplicas()) })
	}
	return map[string]any{"TableDescription": e.describeWithStatus(t)}, nil
}

func (e *Engine) updateTableLocked(t *table, in *updateTableInput) error {
	if err := checkThroughputChange(t, in); err != nil {
		return err
	}
	spec := in.StreamSpecification
	// Checked first: a refused stream change leaves the table as it was.
	if spec != nil {
		if err := checkStreamChange(t, spec); err != nil {
			return err
		}
	}
	if err := e.updateTableSettings(t, in); err != nil {
		return err
	}
	if spec != nil {
		e.changeStream(t, spec)
	}
	return nil
}

// updateTableSettings applies UpdateTable's billing, deletion protection,
// attribute definitions and index changes; the caller holds t.mu.
func (e *Engine) updateTableSettings(t *table, in *updateTableInput) error {
	billing := t.billing
	if in.BillingMode != "" {
		if in.BillingMode != "PROVISIONED" && in.BillingMode != "PAY_PER_REQUEST" {
			return validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
		}
		billing = in.BillingMode
	}
	if in.BillingMode != "" || in.ProvisionedThroughput != nil {
		rcu, wcu, err := checkThroughput(billing, in.ProvisionedThroughput, "")
		if err != nil {
			return err
		}
		t.billing, t.rcu, t.wcu = billing, rcu, wcu
	}
	if in.DeletionProtectionEnabled != nil {
		t.deletionProtection = *in.DeletionProtectionEnabled
	}
	defs := map[string]attr.Type{}
	for _, d := range t.attrDefs {
		defs[d.name] = d.typ
	}
	var newDefs []attrDef
	for _, d := range in.AttributeDefinitions {
		typ, ok := attr.ParseType(d.AttributeType)
		if !ok || (typ != attr.S && typ != attr.N && typ != attr.B) {
			return validationf("1 validation error detected: Value '%s' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", d.AttributeType)
		}
		if old, ok := defs[d.AttributeName]; ok {
			if old != typ {
				return validationf("One or more parameter values were invalid: Cannot change the type of attribute %s", d.AttributeName)
			}
			continue
		}
		defs[d.AttributeName] = typ
		newDefs = append(newDefs, attrDef{d.AttributeName, typ})
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Create != nil:
			if t.index(u.Create.IndexName) != nil {
				return validationf("One or more parameter values were invalid: Index with name: %s already exists", u.Create.IndexName)
			}
			if len(t.gsis) >= 20 {
				return newError(CodeLimitExceeded, "Subscriber limit exceeded: The number of global secondary indexes per table cannot exceed 20")
			}
			ix, err := newIndex(*u.Create, defs, t.keys, false, t.billing)
			if err != nil {
				return err
			}
			if err := t.backfill(ix); err != nil {
				return err
			}
			t.gsis = append(t.gsis, ix)
		case u.Delete != nil:
			found := false
			for i, ix := range t.gsis {
				if ix.name == u.Delete.IndexName {
					t.gsis = append(t.gsis[:i:i], t.gsis[i+1:]...)
					found = true
					break
				}
			}
			if !found {
				return newError(CodeResourceNotFound, "Requested resource not found: Requested index %s not found", u.Delete.IndexName)
			}
		case u.Update != nil:
			ix := t.index(u.Update.IndexName)
			if ix == nil || ix.local {
				return newError(CodeResourceNotFound, "Requested resource not found: Requested index %s not found", u.Update.IndexName)
			}
			rcu, wcu, err := checkThroughput(t.billing, u.Update.ProvisionedThroughput, ix.name)
			if err != nil {
				return err
			}
			ix.rcu, ix.wcu = rcu, wcu
		}
	}
	t.attrDefs = append(t.attrDefs, newDefs...)
	// Keep only the definitions a key still uses, as DynamoDB does.
	used := map[string]bool{}
	for _, n := range t.keys.names() {
		used[n] = true
	}
	for _, ix := range t.indexes() {
		for _, n := range ix.keys.names() {
			used[n] = true
		}
	}
	kept := t.attrDefs[:0:0]
	for _, d := range t.attrDefs {
		if used[d.name] {
			kept = append(kept, d)
		}
	}
	t.attrDefs = kept
	return nil
}

// backfill fills a new index from the table's items. Items whose index key
// has the wrong type are left out, as DynamoDB's backfill does.
func (t *table) backfill(ix *index) error {
	var err error
	t.items.Ascend(func(en entry) bool {
		var it attr.Item
		it, err = decodeItem(en.val())
		if err != nil {
			return false
		}
		row, rerr := ix.rowKey(it, en.key())
		if rerr != nil || row == nil {
			return true
		}
		p := t.project(ix, it)
		ix.tree.ReplaceOrInsert(newEntry(row, p))
		ix.size += int64(attr.ItemSize(p))
		return true
	})
	return err
}

type describeEndpointsInput struct{}

func (in *describeEndpointsInput) tableNames() []string { return nil }

func (e *Engine) describeEndpoints(_ context.Context, _ *describeEndpointsInput) (any, error) {
	return map[string]any{"Endpoints": []map[string]any{{"Address": "dynamodb." + e.opts.Region + ".amazonaws.com", "CachePeriodInMinutes": 1440}}}, nil
}

func (e *Engine) describeLimits(_ context.Context, _ *describeEndpointsInput) (any, error) {
	return map[string]any{
		"AccountMaxReadCapacityUnits":  80000,
		"AccountMaxWriteCapacityUnits": 80000,
		"TableMaxReadCapacityUnits":    40000,
		"TableMaxWriteCapacityUnits":   40000,
	}, nil
}
