package ddblocal

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// On-demand backups. A backup is the table's definition and a snapshot of
// its items taken under its lock: a copy-on-write clone of the item tree,
// so creating one costs O(1) and the memory of the rows the table replaces
// afterwards. With a data directory the snapshot is written to the store
// (bucket "backup/<arn>", one bbolt transaction) and its description to
// "backups"; they outlive the table, as in DynamoDB, until DeleteBackup.

var backupsBucket = []byte("backups")

func backupItemsBucket(arn string) []byte { return []byte("backup/" + arn) }

type backup struct {
	ARN, Name string
	Created   time.Time
	Size      int64
	Items     int
	Source    storedTable
	// Features is the source's SourceTableFeatureDetails.
	Features map[string]any
	items    *rows // nil when held in the store only
}

// summary is the BackupSummary of ListBackups.
func (b *backup) summary() map[string]any {
	return map[string]any{
		"TableName": b.Source.Name, "TableId": b.Source.ID, "TableArn": b.Source.ARN,
		"BackupArn": b.ARN, "BackupName": b.Name, "BackupCreationDateTime": epochSeconds(b.Created),
		"BackupStatus": "AVAILABLE", "BackupType": "USER", "BackupSizeBytes": b.Size,
	}
}

func (b *backup) details(status string) map[string]any {
	return map[string]any{
		"BackupArn": b.ARN, "BackupName": b.Name, "BackupSizeBytes": b.Size, "BackupStatus": status,
		"BackupType": "USER", "BackupCreationDateTime": epochSeconds(b.Created),
	}
}

func (b *backup) description(status string) map[string]any {
	st := b.Source
	src := map[string]any{
		"TableName": st.Name, "TableId": st.ID, "TableArn": st.ARN, "TableSizeBytes": b.Size,
		"KeySchema": st.Keys, "TableCreationDateTime": epochSeconds(st.Created), "ItemCount": b.Items,
		"ProvisionedThroughput": map[string]any{"ReadCapacityUnits": st.RCU, "WriteCapacityUnits": st.WCU},
		"BillingMode":           st.Billing,
	}
	return map[string]any{"BackupDetails": b.details(status), "SourceTableDetails": src, "SourceTableFeatureDetails": b.Features}
}

// stored is the table's definition as the store keeps it; the caller holds
// t.mu.
func (t *table) stored() storedTable {
	st := storedTable{
		Name: t.name, ID: t.id, ARN: t.arn, Created: t.created, Keys: keySchemaJSON(t.keys),
		Billing: t.billing, RCU: t.rcu, WCU: t.wcu, DeletionProtection: t.deletionProtection,
		TTLAttr: t.ttlAttr, TTLEnabled: t.ttlEnabled, PITR: t.pitr, PITRSince: t.pitrSince, PITRDays: t.pitrDays,
		Tags: t.tags, Policies: t.policies, Restore: t.restoreSummary,
	}
	if t.stream != nil {
		st.StreamARN = t.stream.arn
	}
	if t.latestStream != nil {
		st.LatestStreamARN = t.latestStream.arn
	}
	for _, d := range t.attrDefs {
		st.AttrDefs = append(st.AttrDefs, attributeDefinition{d.name, d.typ.String()})
	}
	for _, ix := range t.indexes() {
		st.Indexes = append(st.Indexes, storedIndex{Name: ix.name, Local: ix.local, Keys: keySchemaJSON(ix.keys),
			Projection: projectionJSON{ProjectionType: ix.proj.typ, NonKeyAttributes: ix.proj.nonKey}, RCU: ix.rcu, WCU: ix.wcu})
	}
	return st
}

type createBackupInput struct {
	TableName  string
	BackupName string
}

func (in *createBackupInput) tableNames() []string { return []string{in.TableName} }

// checkBackupName applies BackupName's constraints: 3 to 255 characters
// of [a-zA-Z0-9_.-].
func checkBackupName(name string) error {
	if len(name) < 3 || len(name) > 255 {
		return validationf("1 validation error detected: Value '%s' at 'backupName' failed to satisfy constraint: Member must have length between 3 and 255", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return validationf("1 validation error detected: Value '%s' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", name)
		}
	}
	return nil
}

func (e *Engine) createBackup(_ context.Context, in *createBackupInput) (any, error) {
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := checkBackupName(in.BackupName); err != nil {
		return nil, err
	}
	t, err := e.table(in.TableName)
	if err != nil {
		if e.stillCreating(in.TableName) {
			return nil, backupsUnavailable()
		}
		return nil, newError("TableNotFoundException", "Table not found: %s", in.TableName)
	}
	now := e.now()
	torn := e.faults.torn(t.name)
	// The write lock: a clone marks the tree copy-on-write, which two
	// clones must not do at once.
	t.mu.Lock()
	b := &backup{Name: in.BackupName, Created: now, Source: t.stored(), items: t.items.Clone(), Features: t.features()}
	if torn {
		tearTx(b.items, t.lastTx, func(c change) ([]byte, entry) { return c.key, c.prev })
	}
	t.mu.Unlock()
	b.items.Ascend(func(en entry) bool {
		b.Size += int64(en.size)
		b.Items++
		return true
	})
	b.ARN = fmt.Sprintf("%s/backup/%014d-%s", b.Source.ARN, now.UnixMilli(), tableID(in.BackupName, now)[:8])
	if err := e.saveBackup(b); err != nil {
		return nil, err
	}
	e.backupMu.Lock()
	if e.backups == nil {
		e.backups = map[string]*backup{}
	}
	e.backups[b.ARN] = b
	e.backupMu.Unlock()
	return map[string]any{"BackupDetails": b.details("AVAILABLE")}, nil
}

// features is the SourceTableFeatureDetails of a backup of t; the caller
// holds t.mu.
func (t *table) features() map[string]any {
	f := map[string]any{}
	var gs, ls []map[string]any
	for _, ix := range t.indexes() {
		m := map[string]any{"IndexName": ix.name, "KeySchema": keySchemaJSON(ix.keys),
			"Projection": projectionJSON{ProjectionType: ix.proj.typ, NonKeyAttributes: ix.proj.nonKey}}
		if ix.local {
			ls = append(ls, m)
		} else {
			m["ProvisionedThroughput"] = map[string]any{"ReadCapacityUnits": ix.rcu, "WriteCapacityUnits": ix.wcu}
			gs = append(gs, m)
		}
	}
	if gs != nil {
		f["GlobalSecondaryIndexes"] = gs
	}
	if ls != nil {
		f["LocalSecondaryIndexes"] = ls
	}
	if t.stream != nil {
		f["StreamDescription"] = map[string]any{"StreamEnabled": true, "StreamViewType": t.stream.viewType}
	}
	if t.ttlEnabled {
		f["TimeToLiveDescription"] = map[string]any{"TimeToLiveStatus": "ENABLED", "AttributeName": t.ttlAttr}
	}
	return f
}

// saveBackup writes a backup's description and items to the store.
func (e *Engine) saveBackup(b *backup) error {
	if e.db == nil {
		return nil
	}
	raw, err := json.Marshal(b)
	if err != nil {
		return err
	}
	err = e.db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(backupsBucket)
		if err != nil {
			return err
		}
		items, err := tx.CreateBucketIfNotExists(backupItemsBucket(b.ARN))
		if err != nil {
			return err
		}
		b.items.Ascend(func(en entry) bool {
			err = items.Put(en.key(), en.val())
			return err == nil
		})
		if err != nil {
			return err
		}
		return meta.Put([]byte(b.ARN), raw)
	})
	if err != nil {
		return newError(CodeInternalServerError, "cannot save backup %s: %v", b.Name, err)
	}
	b.items = nil // the store holds them now (b is not shared yet)
	return nil
}

// loadBackups reads the backups' descriptions at Open; their items stay
// in the store until a restore reads them.
func (e *Engine) loadBackups(tx *bolt.Tx) error {
	meta := tx.Bucket(backupsBucket)
	if meta == nil {
		return nil
	}
	e.backups = map[string]*backup{}
	return meta.ForEach(func(k, v []byte) error {
		b := &backup{}
		if err := json.Unmarshal(v, b); err != nil {
			return fmt.Errorf("backup %s: %w", k, err)
		}
		e.backups[b.ARN] = b
		return nil
	})
}

// backupItems returns a backup's items, read from the store when it holds
// them.
func (e *Engine) backupItems(b *backup) (*rows, error) {
	e.backupMu.Lock()
	items := b.items
	if items != nil {
		items = items.Clone()
	}
	e.backupMu.Unlock()
	if items != nil {
		return items, nil
	}
	items = newSnapshot()
	err := e.db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket(backupItemsBucket(b.ARN))
		if bk == nil {
			return fmt.Errorf("the items of backup %s are missing", b.ARN)
		}
		return bk.ForEach(func(k, v []byte) error {
			it, err := attr.DecodeItem(v)
			if err != nil {
				return err
			}
			items.ReplaceOrInsert(newEntry(append([]byte(nil), k...), it))
			return nil
		})
	})
	if err != nil {
		return nil, newError(CodeInternalServerError, "cannot read backup %s: %v", b.ARN, err)
	}
	return items, nil
}

type backupArnInput struct{ BackupArn string }

func (in *backupArnInput) tableNames() []string { return nil }

func (e *Engine) backupByARN(arn string) (*backup, error) {
	if arn == "" {
		return nil, validationf("1 validation error detected: Value null at 'backupArn' failed to satisfy constraint: Member must not be null")
	}
	if len(arn) < 37 || len(arn) > 1024 {
		return nil, validationf("1 validation error detected: Value '%s' at 'backupArn' failed to satisfy constraint: Member must have length between 37 and 1024", arn)
	}
	e.backupMu.Lock()
	b := e.backups[arn]
	e.backupMu.Unlock()
	if b == nil {
		return nil, newError("BackupNotFoundException", "Backup not found: %s", arn)
	}
	return b, nil
}

func (e *Engine) describeBackup(_ context.Context, in *backupArnInput) (any, error) {
	b, err := e.backupByARN(in.BackupArn)
	if err != nil {
		return nil, err
	}
	return map[string]any{"BackupDescription": b.description("AVAILABLE")}, nil
}

func (e *Engine) deleteBackup(_ context.Context, in *backupArnInput) (any, error) {
	b, err := e.backupByARN(in.BackupArn)
	if err != nil {
		return nil, err
	}
	if e.db != nil {
		err := e.db.Update(func(tx *bolt.Tx) error {
			if tx.Bucket(backupItemsBucket(b.ARN)) != nil {
				if err := tx.DeleteBucket(backupItemsBucket(b.ARN)); err != nil {
					return err
				}
			}
			return tx.Bucket(backupsBucket).Delete([]byte(b.ARN))
		})
		if err != nil {
			return nil, newError(CodeInternalServerError, "cannot delete backup %s: %v", b.ARN, err)
		}
	}
	e.backupMu.Lock()
	delete(e.backups, b.ARN)
	e.backupMu.Unlock()
	return map[string]any{"BackupDescription": b.description("DELETED")}, nil
}

type listBackupsInput struct {
	TableName               string
	Limit                   *int
	TimeRangeLowerBound     *float64
	TimeRangeUpperBound     *float64
	ExclusiveStartBackupArn string
	BackupType              string
}

func (in *listBackupsInput) tableNames() []string { return nil }

// listBackups lists the user backups, oldest first, of one table or all,
// created within [TimeRangeLowerBound, TimeRangeUpperBound).
func (e *Engine) listBackups(_ context.Context, in *listBackupsInput) (any, error) {
	if in.TableName != "" {
		if err := checkTableName(in.TableName); err != nil {
			return nil, err
		}
	}
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > 100) {
		return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
	}
	switch in.BackupType {
	case "", "USER", "SYSTEM", "AWS_BACKUP", "ALL":
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'backupType' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]", in.BackupType)
	}
	e.backupMu.Lock()
	var list []*backup
	for _, b := range e.backups {
		if in.TableName != "" && b.Source.Name != in.TableName {
			continue
		}
		at := epochSeconds(b.Created)
		if in.TimeRangeLowerBound != nil && at < *in.TimeRangeLowerBound || in.TimeRangeUpperBound != nil && at >= *in.TimeRangeUpperBound {
			continue
		}
		if in.BackupType == "SYSTEM" || in.BackupType == "AWS_BACKUP" {
			continue // the engine makes user backups only
		}
		list = append(list, b)
	}
	e.backupMu.Unlock()
	sort.Slice(list, func(i, j int) bool {
		if !list[i].Created.Equal(list[j].Created) {
			return list[i].Created.Before(list[j].Created)
		}
		return list[i].ARN < list[j].ARN
	})
	if in.ExclusiveStartBackupArn != "" {
		for i, b := range list {
			if b.ARN == in.ExclusiveStartBackupArn {
				list = list[i+1:]
				break
			}
		}
	}
	limit := len(list)
	if in.Limit != nil && *in.Limit < limit {
		limit = *in.Limit
	}
	out := map[string]any{}
	sums := make([]map[string]any, 0, limit)
	for _, b := range list[:limit] {
		sums = append(sums, b.summary())
	}
	out["BackupSummaries"] = sums
	if limit < len(list) {
		out["LastEvaluatedBackupArn"] = list[limit-1].ARN
	}
	return out, nil
}

type restoreTableFromBackupInput struct {
	BackupArn string
	restoreOverrides
}

func (in *restoreTableFromBackupInput) tableNames() []string { return []string{in.TargetTableName} }

func (e *Engine) restoreTableFromBackup(ctx context.Context, in *restoreTableFromBackupInput) (any, error) {
	if err := checkTableName(in.TargetTableName); err != nil {
		return nil, err
	}
	b, err := e.backupByARN(in.BackupArn)
	if err != nil {
		return nil, err
	}
	if err := e.checkRestoreTarget(in.TargetTableName); err != nil {
		return nil, err
	}
	items, err := e.backupItems(b)
	if err != nil {
		return nil, err
	}
	summary := map[string]any{"SourceBackupArn": b.ARN, "SourceTableArn": b.Source.ARN,
		"RestoreDateTime": epochSeconds(b.Created), "RestoreInProgress": false}
	t, err := e.restoreInto(ctx, b.Source, items, in.restoreOverrides, summary)
	if err != nil {
		return nil, err
	}
	return map[string]any{"TableDescription": e.describeWithStatus(t)}, nil
}

// checkRestoreTarget fails when the restore's target table exists, or is
// still being created (with Options.TransientStatusDelay).
func (e *Engine) checkRestoreTarget(name string) error {
	if _, err := e.table(name); err == nil {
		return newError("TableAlreadyExistsException", "Table already exists: %s", name)
	}
	if e.stillCreating(name) {
		return newError("TableInUseException", "Table is being created: %s", name)
	}
	return nil
}

// stillCreating reports whether the named table exists but is CREATING.
func (e *Engine) stillCreating(name string) bool {
	m := e.byName.Load()
	if m == nil {
		return false
	}
	t := (*m)[name]
	return t != nil && e.creating(t)
}

// backupsUnavailable is the error of CreateBackup and
// UpdateContinuousBackups on a table still being created: DynamoDB enables
// backups once the table is ACTIVE.
func backupsUnavailable() error {
	return newError("ContinuousBackupsUnavailableException", "Backups have not yet been enabled for this table")
}

// restoreInto creates the table a restore makes: the source's key schema,
// attribute definitions, billing mode, throughput and indexes (or the
// overrides), with none of what DynamoDB does not restore (stream, TTL,
// PITR, tags, resource policies, deletion protection), then items.
func (e *Engine) restoreInto(ctx context.Context, src storedTable, items *rows, o restoreOverrides, summary map[string]any) (*table, error) {
	now := e.now()
	st := storedTable{
		Name: o.TargetTableName, Created: now, Keys: src.Keys, AttrDefs: src.AttrDefs,
		Billing: src.Billing, RCU: src.RCU, WCU: src.WCU, Indexes: src.Indexes,
	}
	st.ID = tableID(st.Name, now)
	st.ARN = fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", e.region(ctx), e.opts.AccountID, st.Name)
	if err := applyOverrides(&st, o); err != nil {
		return nil, err
	}
	t, err := restoreTable(st)
	if err != nil {
		return nil, err
	}
	t.restoreSummary = summary
	t.items = items.live()
	items.Ascend(func(en entry) bool {
		t.size += int64(en.size)
		return true
	})
	for _, ix := range t.indexes() {
		if err := t.backfill(ix); err != nil {
			return nil, err
		}
	}
	t.persist = e.db != nil
	if e.db != nil {
		err := e.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(itemsBucket(st.Name))
			if err != nil {
				return err
			}
			items.Ascend(func(en entry) bool {
				err = b.Put(en.key(), en.val())
				return err == nil
			})
			return err
		})
		if err != nil {
			return nil, newError(CodeInternalServerError, "cannot save table %s: %v", st.Name, err)
		}
	}
	e.mu.Lock()
	if _, exists := e.tables[st.Name]; exists {
		e.mu.Unlock()
		return nil, newError("TableAlreadyExistsException", "Table already exists: %s", st.Name)
	}
	e.tables[st.Name] = t
	e.publishTables()
	e.mu.Unlock()
	if err := e.persistTable(t); err != nil {
		return nil, err
	}
	return t, nil
}

// applyOverrides applies a restore's BillingModeOverride,
// ProvisionedThroughputOverride and index overrides to the restored
// table's definition. An index override lists the indexes the restored
// table has (a subset of the source's, to leave some out); attribute
// definitions no key uses any more are dropped.
func applyOverrides(st *storedTable, o restoreOverrides) error {
	if o.BillingModeOverride != "" {
		if o.BillingModeOverride != "PROVISIONED" && o.BillingModeOverride != "PAY_PER_REQUEST" {
			return validationf("1 validation error detected: Value '%s' at 'billingModeOverride' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", o.BillingModeOverride)
		}
		st.Billing = o.BillingModeOverride
	}
	if st.Billing == "PAY_PER_REQUEST" {
		if o.ProvisionedThroughputOverride != nil {
			return validationf("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		st.RCU, st.WCU = 0, 0
	} else if pt := o.ProvisionedThroughputOverride; pt != nil {
		rcu, wcu, err := checkThroughput("PROVISIONED", pt, "")
		if err != nil {
			return err
		}
		st.RCU, st.WCU = rcu, wcu
	} else if st.RCU == 0 {
		return validationf("One or more parameter values were invalid: ProvisionedThroughputOverride must be specified when BillingModeOverride is PROVISIONED")
	}
	pick := func(local bool, over []indexJSON) error {
		if over == nil {
			return nil
		}
		kept := st.Indexes[:0:0]
		for _, ix := range st.Indexes {
			if ix.Local != local {
				kept = append(kept, ix)
			}
		}
		for _, ov := range over {
			found := false
			for _, ix := range st.Indexes {
				if ix.Local == local && ix.Name == ov.IndexName {
					found = true
					if !local && ov.ProvisionedThroughput != nil && st.Billing == "PROVISIONED" {
						ix.RCU, ix.WCU = derefInt(ov.ProvisionedThroughput.ReadCapacityUnits), derefInt(ov.ProvisionedThroughput.WriteCapacityUnits)
					}
					kept = append(kept, ix)
				}
			}
			if !found {
				return validationf("One or more parameter values were invalid: index %s is not an index of the backed up table", ov.IndexName)
			}
		}
		st.Indexes = kept
		return nil
	}
	if err := pick(false, o.GlobalSecondaryIndexOverride); err != nil {
		return err
	}
	if err := pick(true, o.LocalSecondaryIndexOverride); err != nil {
		return err
	}
	used := map[string]bool{}
	for _, k := range st.Keys {
		used[k.AttributeName] = true
	}
	for i := range st.Indexes {
		if st.Billing == "PAY_PER_REQUEST" {
			st.Indexes[i].RCU, st.Indexes[i].WCU = 0, 0
		}
		for _, k := range st.Indexes[i].Keys {
			used[k.AttributeName] = true
		}
	}
	defs := st.AttrDefs[:0:0]
	for _, d := range st.AttrDefs {
		if used[d.AttributeName] {
			defs = append(defs, d)
		}
	}
	st.AttrDefs = defs
	return nil
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
