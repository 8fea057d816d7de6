package envconfig

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/oncetable/oncetable/runtime/config"
)

// Regions makes the environment's table a global table: replicas in other
// Regions, a lease store every Region agrees on, and every cell of users
// homed in one Region (docs/multi-region.md). Absent: one Region.
type Regions struct {
	// Replicas are the table's other Regions, besides the environment's
	// region. Required, at least one.
	Replicas []string `json:"replicas"`
	// Leases is the lease store: an MRSC table of three Regions, or of
	// two and a witness, from one multi-Region strong consistency Region
	// set, the environment's region among them.
	Leases LeaseStore `json:"leases"`
	// Cells is how many cells users are hashed into, 1..4096; fixed for
	// the environment's life (a change moves users). Default: 64.
	Cells int `json:"cells"`
	// Homes gives every cell its first home: a Region of the table to a
	// range of cells, such as "eu-west-1": "c000-c031". Every cell must be
	// in exactly one range.
	Homes map[string]string `json:"homes"`
	// Unplanned is what a cell whose home is unreachable does: "freeze"
	// (503 until the home returns) or "takeover" (make failover MODE=takeover
	// is allowed). Default: "freeze".
	Unplanned string `json:"unplanned"`
	// Peers are the base URLs of each Region's API (a custom domain's),
	// where a request for a user homed there is forwarded. Default: none,
	// such a request gets 421 naming the home Region.
	Peers map[string]string `json:"peers"`
	// ReplicationLatencyAlarmMs alarms when a replica's ReplicationLatency
	// stays above it. Default: 5000.
	ReplicationLatencyAlarmMs int `json:"replicationLatencyAlarmMs"`
}

// DefaultReplicationLatencyAlarmMs is Regions.ReplicationLatencyAlarmMs's
// default.
const DefaultReplicationLatencyAlarmMs = 5000

// LeaseStore is where the leases live: Regions hold full replicas, Witness
// (with two Regions) only the witness's copy.
type LeaseStore struct {
	Regions []string `json:"regions"`
	Witness string   `json:"witness"`
}

// Unplanned failover modes.
const (
	Freeze   = "freeze"
	Takeover = "takeover"
)

// mrscSets are the Region sets of multi-Region strong consistency: an
// MRSC table's Regions (and witness) all come from one of them.
var mrscSets = [][]string{
	{"us-east-1", "us-east-2", "us-west-2"},
	{"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
	{"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"},
}

// TableRegions are the table's Regions: the environment's first, then its
// replicas.
func (c Config) TableRegions() []string {
	if c.Regions == nil {
		return []string{c.Region}
	}
	return append([]string{c.Region}, c.Regions.Replicas...)
}

// Homes is the runtime configuration (config.Homes) of the functions of
// region, a Region of the table, over the lease table leaseTable.
func (c Config) Homes(region, leaseTable string) config.Homes {
	r := c.Regions
	if r == nil {
		return config.Homes{}
	}
	h := config.Homes{LeaseTable: leaseTable, Region: region, LeaseRegion: c.Region, Cells: r.Cells, Peers: r.Peers}
	if slices.Contains(r.Leases.Regions, region) {
		h.LeaseRegion = region
	}
	ranges := make([]string, 0, len(r.Homes))
	for reg := range r.Homes {
		ranges = append(ranges, reg)
	}
	sort.Strings(ranges)
	for _, reg := range ranges {
		cr, _ := parseRange(r.Homes[reg])
		cr.Region = reg
		h.Assign = append(h.Assign, cr)
	}
	sort.Slice(h.Assign, func(i, j int) bool { return h.Assign[i].From < h.Assign[j].From })
	return h
}

func parseRange(s string) (config.CellRange, error) {
	var cr config.CellRange
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "c%d-c%d", &cr.From, &cr.To); err != nil {
		return cr, err
	}
	return cr, nil
}

func (c Config) validateRegions(bad func(field, format string, args ...any) error) error {
	r := c.Regions
	if r == nil {
		return nil
	}
	if r.Cells == 0 {
		r.Cells = config.DefaultHomeCells
	}
	if r.Cells < 1 || r.Cells > config.MaxHomeCells {
		return bad("regions.cells", "%d is outside 1..%d", r.Cells, config.MaxHomeCells)
	}
	if len(r.Replicas) == 0 {
		return bad("regions.replicas", "name at least one Region besides %q", c.Region)
	}
	all := c.TableRegions()
	for i, reg := range all {
		if reg == "" || slices.Contains(all[:i], reg) {
			return bad("regions.replicas", "%q is empty or named twice (the environment's region is %q)", reg, c.Region)
		}
	}
	if err := c.validateLeases(bad); err != nil {
		return err
	}
	owner := make([]string, r.Cells)
	for reg, span := range r.Homes {
		if !slices.Contains(all, reg) {
			return bad("regions.homes", "%q is not a Region of the table (%s)", reg, strings.Join(all, ", "))
		}
		cr, err := parseRange(span)
		if err != nil || cr.From < 0 || cr.To < cr.From || cr.To >= r.Cells {
			return bad("regions.homes."+reg, "%q is not a range of cells below c%03d, such as \"c000-c031\"", span, r.Cells)
		}
		for i := cr.From; i <= cr.To; i++ {
			if owner[i] != "" {
				return bad("regions.homes", "cell c%03d is in the ranges of %s and %s", i, owner[i], reg)
			}
			owner[i] = reg
		}
	}
	for i, o := range owner {
		if o == "" {
			return bad("regions.homes", "cell c%03d has no first home: cover c000-c%03d", i, r.Cells-1)
		}
	}
	if r.Unplanned != "" && r.Unplanned != Freeze && r.Unplanned != Takeover {
		return bad("regions.unplanned", "%q is not %q or %q", r.Unplanned, Freeze, Takeover)
	}
	for reg, u := range r.Peers {
		if !slices.Contains(all, reg) || !strings.HasPrefix(u, "https://") {
			return bad("regions.peers."+reg, "want a Region of the table and an https:// base URL, got %q", u)
		}
	}
	if r.ReplicationLatencyAlarmMs < 0 {
		return bad("regions.replicationLatencyAlarmMs", "must not be negative, got %d", r.ReplicationLatencyAlarmMs)
	}
	return nil
}

// validateLeases: three Regions, or two and a witness, of one MRSC Region
// set, the environment's region among them (the lease table's stack is
// deployed there).
func (c Config) validateLeases(bad func(field, format string, args ...any) error) error {
	l := c.Regions.Leases
	n := len(l.Regions)
	if !(n == 3 && l.Witness == "") && !(n == 2 && l.Witness != "") {
		return bad("regions.leases", "an MRSC lease store needs three regions, or two and a witness; got %d and witness %q", n, l.Witness)
	}
	if !slices.Contains(l.Regions, c.Region) {
		return bad("regions.leases.regions", "must include the environment's region %q, where the lease table is deployed", c.Region)
	}
	members := append(slices.Clone(l.Regions), l.Witness)
	if l.Witness == "" {
		members = members[:n]
	}
	for _, set := range mrscSets {
		if !slices.Contains(set, c.Region) {
			continue
		}
		for i, m := range members {
			if !slices.Contains(set, m) || slices.Contains(members[:i], m) {
				return bad("regions.leases", "%q is named twice or is outside the MRSC Region set of %s (%s)", m, c.Region, strings.Join(set, ", "))
			}
		}
		return nil
	}
	return bad("regions.leases", "%q is in no MRSC Region set (%v)", c.Region, mrscSets)
}
