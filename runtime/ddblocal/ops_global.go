package ddblocal

import (
	"context"
	"encoding/json"
	"sort"
	"time"
)

// The control plane of global tables, version 2019.11.21 (API Reference,
// UpdateTable: ReplicaUpdates, MultiRegionConsistency,
// GlobalTableWitnessUpdates; DescribeTable: Replicas, GlobalTableVersion,
// MultiRegionConsistency, GlobalTableWitnesses). A replica is a table of
// the same name in another Region of the engine, created from the table's
// definition and items, and linked to the others by a replicaLink.

const globalTableVersion = "2019.11.21"

// globalGroup is one global table: the Regions holding its replicas. It
// is guarded by regionSet.mu.
type globalGroup struct {
	name     string
	strong   bool                     // MultiRegionConsistency STRONG
	replicas map[string]*replicaState // by Region
	witness  string                   // the MRSC witness Region, or ""
}

type replicaState struct {
	activeAt time.Time // CREATING until then (Options.TransientStatusDelay)
	// seededFrom is the Region whose items the replica was created from,
	// which passes on the writes that reach it after (replicaLink.forwards).
	seededFrom string
}

func (g *globalGroup) regionNames() []string {
	names := make([]string, 0, len(g.replicas))
	for r := range g.replicas {
		names = append(names, r)
	}
	sort.Strings(names)
	return names
}

// replicaRegions lists the Regions other than from holding a replica of
// the named global table.
func (s *regionSet) replicaRegions(name, from string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[name]
	if g == nil {
		return nil
	}
	out := make([]string, 0, len(g.replicas))
	for r := range g.replicas {
		if r != from {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

type replicaUpdate struct {
	Create *struct {
		RegionName string
		KMSMasterKeyId,
		TableClassOverride string
	}
	Update *struct{ RegionName string }
	Delete *struct{ RegionName string }
}

type witnessUpdate struct {
	Create *struct{ RegionName string }
	Delete *struct{ RegionName string }
}

// globalChange reports whether an UpdateTable request changes the table's
// replicas or consistency.
func (in *updateTableInput) globalChange() bool {
	return len(in.ReplicaUpdates) > 0 || in.MultiRegionConsistency != "" || len(in.GlobalTableWitnessUpdates) > 0
}

// updateGlobal runs UpdateTable's ReplicaUpdates, MultiRegionConsistency
// and GlobalTableWitnessUpdates on t in e's Region.
func (e *Engine) updateGlobal(ctx context.Context, t *table, in *updateTableInput) (any, error) {
	if in.ProvisionedThroughput != nil || in.BillingMode != "" || in.StreamSpecification != nil ||
		len(in.GlobalSecondaryIndexUpdates) > 0 || in.DeletionProtectionEnabled != nil {
		return nil, validationf("One or more parameter values were invalid: ReplicaUpdates, MultiRegionConsistency and GlobalTableWitnessUpdates cannot be combined with other updates of the table")
	}
	set, here := e.global, e.opts.Region
	if in.MultiRegionConsistency != "" && in.MultiRegionConsistency != "EVENTUAL" && in.MultiRegionConsistency != "STRONG" {
		return nil, validationf("1 validation error detected: Value '%s' at 'multiRegionConsistency' failed to satisfy constraint: Member must satisfy enum value set: [EVENTUAL, STRONG]", in.MultiRegionConsistency)
	}
	var creates, deletes []string
	for _, u := range in.ReplicaUpdates {
		switch {
		case u.Create != nil:
			creates = append(creates, u.Create.RegionName)
		case u.Delete != nil:
			deletes = append(deletes, u.Delete.RegionName)
		case u.Update != nil:
			if u.Update.RegionName == here {
				return nil, validationf("Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
			}
			if err := set.checkMember(t.name, u.Update.RegionName); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range append(append([]string(nil), creates...), deletes...) {
		if set.engines[r] == nil {
			return nil, validationf("One or more parameter values were invalid: Region %s is not one of this engine's Regions", r)
		}
		if r == here {
			return nil, validationf("Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
		}
	}
	set.mu.Lock()
	g := set.groups[t.name]
	creatingRegion := ""
	if g != nil {
		for r, st := range g.replicas {
			if set.baseClock().Before(st.activeAt) {
				creatingRegion = r
			}
		}
	}
	set.mu.Unlock()
	if creatingRegion != "" {
		return nil, newError(CodeResourceInUse, "Attempt to change a resource which is still in use: Replica is being created in Region %s: %s", creatingRegion, t.name)
	}
	strong := in.MultiRegionConsistency == "STRONG"
	if g != nil && in.MultiRegionConsistency != "" && strong != g.strong {
		return nil, validationf("One or more parameter values were invalid: MultiRegionConsistency cannot be changed on an existing global table")
	}
	if strong || (g != nil && g.strong) {
		if err := e.checkStrong(t, g, creates, deletes, in.GlobalTableWitnessUpdates); err != nil {
			return nil, err
		}
	} else if len(in.GlobalTableWitnessUpdates) > 0 {
		return nil, validationf("One or more parameter values were invalid: A witness Region can only be added to a global table with MultiRegionConsistency STRONG")
	}
	if len(creates) > 0 && !strong && !(g != nil && g.strong) {
		if s := t.latestStream; t.stream == nil || s.viewType != viewNewAndOldImgs {
			return nil, validationf("One or more parameter values were invalid: Table %s must have DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES to add a replica", t.name)
		}
	}
	for _, r := range creates {
		if set.engines[r].anyStatus(t.name) != nil {
			return nil, validationf("Failed to create a the new replica of table with name: '%s' because one or more replicas already existed as tables.", t.name)
		}
	}
	for _, r := range deletes {
		if err := set.checkMember(t.name, r); err != nil {
			return nil, err
		}
	}
	for _, r := range creates {
		if err := e.createReplica(ctx, t, r, strong); err != nil {
			return nil, err
		}
	}
	defer set.saveGroup(t.name)
	for _, w := range in.GlobalTableWitnessUpdates {
		set.mu.Lock()
		if g := set.groups[t.name]; g != nil {
			if w.Create != nil {
				g.witness = w.Create.RegionName
			} else if w.Delete != nil {
				g.witness = ""
			}
		}
		set.mu.Unlock()
	}
	for _, r := range deletes {
		if _, err := set.engines[r].deleteTable(ctx, &tableNameInput{TableName: t.name}); err != nil {
			return nil, err
		}
	}
	return map[string]any{"TableDescription": e.describeWithStatus(t)}, nil
}

// eventual reports whether the named table is a global table of
// multi-Region eventual consistency with another replica than this one.
func (l *replicaLink) eventual(name string) bool {
	l.set.mu.Lock()
	defer l.set.mu.Unlock()
	g := l.set.groups[name]
	return g != nil && !g.strong && len(g.replicas) > 1
}

// checkMember refuses a Region holding no replica of the table.
func (s *regionSet) checkMember(name, region string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.groups[name]; g == nil || g.replicas[region] == nil {
		return validationf("One or more parameter values were invalid: Replica does not exist in Region %s for table %s", region, name)
	}
	return nil
}

// createReplica creates t's replica in Region to: a table of t's
// definition, TTL setting and items, linked to t. Writes to t wait while
// its items are copied, so every write after is replicated.
func (e *Engine) createReplica(ctx context.Context, t *table, to string, strong bool) error {
	set := e.global
	dst := set.engines[to]
	raw, err := json.Marshal(t.describe())
	if err != nil {
		return err
	}
	var cin createTableInput
	if err := json.Unmarshal(raw, &cin); err != nil {
		return err
	}
	cin.BillingMode = t.billing
	if t.billing == "PAY_PER_REQUEST" {
		cin.ProvisionedThroughput = nil
		for i := range cin.GlobalSecondaryIndexes {
			cin.GlobalSecondaryIndexes[i].ProvisionedThroughput = nil
		}
	}
	if _, err := dst.createTable(context.Background(), &cin); err != nil {
		return err
	}
	nt := dst.anyStatus(t.name)
	if nt == nil {
		return newError(CodeInternalServerError, "the replica of %s in %s vanished", t.name, to)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	nt.mu.Lock()
	defer nt.mu.Unlock()
	if t.ttlEnabled {
		nt.enableTTL(t.ttlAttr)
	}
	set.mu.Lock()
	g := set.groups[t.name]
	if g == nil {
		g = &globalGroup{name: t.name, strong: strong, replicas: map[string]*replicaState{e.opts.Region: {}}}
		set.groups[t.name] = g
	}
	// The replica's status is the service's, on the Regions' unskewed
	// clock (Replication.SetClockSkew skews what a Region writes).
	g.replicas[to] = &replicaState{activeAt: set.baseClock().Add(e.delay()), seededFrom: e.opts.Region}
	set.mu.Unlock()
	if t.replica == nil {
		t.replica = &replicaLink{set: set, region: e.opts.Region, versions: map[string]itemVersion{}}
	}
	link := &replicaLink{set: set, region: to, versions: make(map[string]itemVersion, len(t.replica.versions)), applying: true}
	for k, v := range t.replica.versions {
		link.versions[k] = v
	}
	nt.replica = link
	now := dst.now()
	var copyErr error
	t.items.Ascend(func(en entry) bool {
		it, err := decodeRaw(en.val())
		if err != nil {
			copyErr = err
			return false
		}
		nt.write(en.key(), nil, it, 0, now)
		return true
	})
	if copyErr == nil {
		copyErr = dst.commit([]*table{nt}, nil, false)
	}
	link.applying = false
	return copyErr
}

// checkStrong checks the documented requirements of multi-Region strong
// consistency ("Multi-Region strong consistency", Developer Guide).
func (e *Engine) checkStrong(t *table, g *globalGroup, creates, deletes []string, witnesses []witnessUpdate) error {
	if g != nil && len(creates) > 0 {
		return validationf("One or more parameter values were invalid: Replicas cannot be added to a global table with MultiRegionConsistency STRONG")
	}
	if g != nil {
		return nil
	}
	witness := ""
	for _, w := range witnesses {
		if w.Create != nil {
			witness = w.Create.RegionName
		}
	}
	if t.items.Len() > 0 {
		return validationf("One or more parameter values were invalid: Table %s must be empty to create a global table with MultiRegionConsistency STRONG", t.name)
	}
	if t.ttlEnabled {
		return validationf("One or more parameter values were invalid: Time to Live is not supported for tables with MultiRegionConsistency STRONG")
	}
	if len(t.lsis) > 0 {
		return validationf("One or more parameter values were invalid: Local secondary indexes are not supported for tables with MultiRegionConsistency STRONG")
	}
	regions := append([]string{e.opts.Region}, creates...)
	if witness != "" {
		regions = append(regions, witness)
	}
	if len(regions) != 3 || (witness != "" && len(creates) != 1) {
		return validationf("One or more parameter values were invalid: A global table with MultiRegionConsistency STRONG needs exactly three Regions: three replicas, or two replicas and a witness")
	}
	set := regionSetOf(regions[0])
	for _, r := range regions[1:] {
		if regionSetOf(r) != set || set == "" {
			return validationf("One or more parameter values were invalid: The Regions of a global table with MultiRegionConsistency STRONG must be in the same Region set (US, EU or AP)")
		}
	}
	return nil
}

// regionSetOf names the Region set a Region belongs to for MRSC ("Multi-
// Region strong consistency": US, EU and AP Region sets).
func regionSetOf(region string) string {
	switch region {
	case "us-east-1", "us-east-2", "us-west-2":
		return "US"
	case "eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1":
		return "EU"
	case "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-southeast-1", "ap-southeast-2", "ap-south-1":
		return "AP"
	}
	return ""
}

// describeGlobal adds a replica's global-table fields to its
// TableDescription: the other Regions' replicas, as DynamoDB lists them.
// The caller holds t.mu.
func (l *replicaLink) describeGlobal(t *table, d map[string]any) {
	s := l.set
	now := s.baseClock()
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[t.name]
	if g == nil {
		return
	}
	d["GlobalTableVersion"] = globalTableVersion
	mode := "EVENTUAL"
	if g.strong {
		mode = "STRONG"
	}
	d["MultiRegionConsistency"] = mode
	var replicas []map[string]any
	for _, r := range g.regionNames() {
		if r == l.region {
			continue
		}
		status := "ACTIVE"
		if now.Before(g.replicas[r].activeAt) {
			status = "CREATING"
		}
		replicas = append(replicas, map[string]any{"RegionName": r, "ReplicaStatus": status})
	}
	d["Replicas"] = replicas
	if g.witness != "" {
		d["GlobalTableWitnesses"] = []map[string]any{{"RegionName": g.witness, "WitnessStatus": "ACTIVE"}}
	}
}

// leaveGlobal takes a deleted table's Region out of its global table; the
// last replica left is an ordinary table again.
func (e *Engine) leaveGlobal(t *table) {
	set := e.global
	set.mu.Lock()
	g := set.groups[t.name]
	var last string
	if g != nil {
		delete(g.replicas, e.opts.Region)
		if len(g.replicas) == 1 {
			for r := range g.replicas {
				last = r
			}
			delete(set.groups, t.name)
		}
	}
	set.mu.Unlock()
	set.saveGroup(t.name)
	set.repl.dropTable(t.name, e.opts.Region)
	if last != "" {
		if lt := set.engines[last].anyStatus(t.name); lt != nil {
			lt.mu.Lock()
			lt.replica = nil
			lt.mu.Unlock()
		}
		set.repl.dropTable(t.name, "")
	}
}

// aligningKey marks the context of a change applied to a replica because
// another replica made it.
type aligningKey struct{}

// alignReplicas applies a settings change made to t to its replicas in
// the other Regions: DynamoDB keeps the replicas of a version 2019.11.21
// global table aligned in throughput, TTL settings and global secondary
// indexes ("Determining the version of a global table"). The replicas
// apply it as they would their own; a change one refuses is not retried.
func (e *Engine) alignReplicas(ctx context.Context, t *table, apply func(peer *Engine, ctx context.Context)) {
	if ctx.Value(aligningKey{}) != nil {
		return
	}
	var here string
	t.rlocked(func() {
		if t.replica != nil {
			here = t.replica.region
		}
	})
	if here == "" {
		return
	}
	ctx = context.WithValue(context.Background(), aligningKey{}, true)
	for _, r := range e.global.replicaRegions(t.name, here) {
		apply(e.global.engines[r], ctx)
	}
}

// forReplicas is the part of an UpdateTable request the other replicas
// follow: billing, throughput and index changes, not the stream or
// deletion protection, which are each replica's own.
func (in *updateTableInput) forReplicas() *updateTableInput {
	out := *in
	out.StreamSpecification, out.DeletionProtectionEnabled = nil, nil
	return &out
}
