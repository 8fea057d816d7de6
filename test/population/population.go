package population

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// Config sizes and skews a population. Zero fields take the defaults.
type Config struct {
	// Users, Merchants and ProductsPerMerchant size the population.
	// Defaults: 1,000, 20 and 10.
	Users, Merchants, ProductsPerMerchant int
	// Orders is how many orders the users placed. Default: 5 per user.
	Orders int
	// UserSkew, MerchantSkew and ProductSkew are the Zipf exponents s of
	// the activity of the ordinary users (see TailOffset), of merchants,
	// and of the products within a merchant (0 < s; 1 is classic Zipf).
	// Defaults: 1.0, 1.2, 1.0.
	UserSkew, MerchantSkew, ProductSkew float64
	// HotUsers is how many very hot users there are, and HotShare the share
	// of all user activity they take together, on top of the Zipf
	// distribution of the others. Defaults: 3 and 0.15 (5% each).
	HotUsers int
	HotShare float64
	// OpenShare is the share of orders left created and UnprocessedShare
	// the share charged and left unprocessed; the rest are paid and
	// processed. Defaults: 0.10 and 0.05.
	OpenShare, UnprocessedShare float64
	// FeaturedShare is the share of products that are featured. Default 0.1.
	FeaturedShare float64
	// MaxLines is the most lines an order has (1..MaxLines, uniformly).
	// Default: 3.
	MaxLines int
	// Credit is what each user is credited, in minor units of Currency,
	// before ordering. Default: 100,000,000 (enough for every settle).
	Credit int64
	// Currency of every amount. Default: EUR.
	Currency money.Currency
	// Seed fixes every draw. Default: 1.
	Seed uint64
}

// WithDefaults fills c's zero fields.
func (c Config) WithDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Users, 1000)
	def(&c.Merchants, 20)
	def(&c.ProductsPerMerchant, 10)
	def(&c.Orders, 5*c.Users)
	def(&c.HotUsers, 3)
	def(&c.MaxLines, 3)
	deff(&c.UserSkew, 1.0)
	deff(&c.MerchantSkew, 1.2)
	deff(&c.ProductSkew, 1.0)
	deff(&c.HotShare, 0.15)
	deff(&c.OpenShare, 0.10)
	deff(&c.UnprocessedShare, 0.05)
	deff(&c.FeaturedShare, 0.1)
	c.HotUsers = min(c.HotUsers, c.Users)
	if c.Credit <= 0 {
		c.Credit = 100_000_000
	}
	if c.Currency == "" {
		c.Currency = "EUR"
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	return c
}

// Weighted draws an index 0..n-1 with fixed weights.
type Weighted struct {
	cum []float64 // cumulative, normalized to end at 1
}

// NewWeighted returns the distribution of w (weights ≥ 0, not all 0).
func NewWeighted(w []float64) Weighted {
	cum := make([]float64, len(w))
	sum := 0.0
	for i, x := range w {
		sum += x
		cum[i] = sum
	}
	for i := range cum {
		cum[i] /= sum
	}
	return Weighted{cum: cum}
}

// Zipf is the distribution over n ranks where rank k (0-based) has weight
// 1/(k+1)^s.
func Zipf(n int, s float64) Weighted {
	w := make([]float64, n)
	for k := range w {
		w[k] = 1 / math.Pow(float64(k+1), s)
	}
	return NewWeighted(w)
}

// Draw returns an index drawn with r.
func (d Weighted) Draw(r *rand.Rand) int {
	return min(sort.SearchFloat64s(d.cum, r.Float64()), len(d.cum)-1)
}

// Share is the probability of index i.
func (d Weighted) Share(i int) float64 {
	if i == 0 {
		return d.cum[0]
	}
	return d.cum[i] - d.cum[i-1]
}

// Len is the number of indexes.
func (d Weighted) Len() int { return len(d.cum) }

// TailOffset flattens the head of the ordinary users' Zipf distribution
// (a Zipf–Mandelbrot tail: rank k has weight 1/(k+1+TailOffset)^s), so
// that no ordinary user is as hot as a hot one: with 1,000 users the most
// active ordinary user has about 1.7% of the activity, a hot one 5%.
const TailOffset = 10

// userActivity is the Zipf distribution of users with the hot ones on
// top: users 0..hot-1 take share together, the others the rest.
func userActivity(c Config) Weighted {
	w := make([]float64, c.Users)
	tail := make([]float64, c.Users-c.HotUsers)
	for k := range tail {
		tail[k] = 1 / math.Pow(float64(k+1+TailOffset), c.UserSkew)
	}
	rest := NewWeighted(tail)
	for i := range w {
		if i < c.HotUsers {
			w[i] = c.HotShare / float64(c.HotUsers)
			continue
		}
		w[i] = (1 - c.HotShare) * rest.Share(i-c.HotUsers)
	}
	return NewWeighted(w)
}

// Product is one product of the population.
type Product struct {
	ID       string
	Merchant string
	Price    int64
	Featured bool
}

// Order is one order of the population and where its life cycle stopped.
type Order struct {
	ID     string
	UserID string
	Total  int64
	// Lines are the indexes of its products in Population.Products, one
	// line each (quantity 1).
	Lines     []int
	PaymentID string // "" while not charged
	Status    string // store.OrderCreated or store.OrderPaid
	Processed bool
}

// Population is what was generated: the entities, by id, and the activity
// distributions they were drawn with.
type Population struct {
	Config Config
	// Users are the user ids, most active first (Users[0] is the hottest).
	Users []string
	// UserActivity draws an index of Users.
	UserActivity Weighted
	// Products, grouped by merchant, most popular merchant first.
	Products []Product
	// ProductActivity draws an index of Products (merchant, then product).
	ProductActivity Weighted
	// Orders in the order they were placed; ByUser indexes them per user.
	Orders []Order
	ByUser map[string][]int
}

// Generate draws a population of c (defaults filled) without writing it.
func Generate(c Config) *Population {
	c = c.WithDefaults()
	r := rand.New(rand.NewPCG(c.Seed, 0x6f6e63657461626c))
	p := &Population{Config: c, UserActivity: userActivity(c), ByUser: map[string][]int{}}
	width := len(strconv.Itoa(c.Users))
	for i := range c.Users {
		p.Users = append(p.Users, fmt.Sprintf("u%0*d", width, i))
	}
	merchants := Zipf(c.Merchants, c.MerchantSkew)
	inMerchant := Zipf(c.ProductsPerMerchant, c.ProductSkew)
	var pw []float64
	for m := range c.Merchants {
		for k := range c.ProductsPerMerchant {
			p.Products = append(p.Products, Product{
				ID: fmt.Sprintf("m%03d-p%03d", m, k), Merchant: fmt.Sprintf("m%03d", m),
				Price: 100 * (1 + r.Int64N(200)), Featured: r.Float64() < c.FeaturedShare,
			})
			pw = append(pw, merchants.Share(m)*inMerchant.Share(k))
		}
	}
	p.ProductActivity = NewWeighted(pw)
	for i := range c.Orders {
		u := p.Users[p.UserActivity.Draw(r)]
		o := Order{ID: fmt.Sprintf("o%07d", i), UserID: u, Status: store.OrderCreated}
		for range 1 + r.IntN(c.MaxLines) {
			k := p.ProductActivity.Draw(r)
			o.Lines = append(o.Lines, k)
			o.Total += p.Products[k].Price
		}
		switch x := r.Float64(); {
		case x < c.OpenShare:
		case x < c.OpenShare+c.UnprocessedShare:
			o.PaymentID = "pending"
		default:
			o.PaymentID, o.Status, o.Processed = "pending", store.OrderPaid, true
		}
		p.ByUser[u] = append(p.ByUser[u], len(p.Orders))
		p.Orders = append(p.Orders, o)
	}
	return p
}

// NewOrder is the create-order input of order i.
func (p *Population) NewOrder(i int) payments.NewOrder {
	o := p.Orders[i]
	in := payments.NewOrder{OrderID: o.ID, Currency: p.Config.Currency}
	for _, k := range o.Lines {
		pr := p.Products[k]
		in.Items = append(in.Items, payments.NewItem{ProductID: pr.ID, Quantity: 1, UnitPrice: money.Amount{Minor: pr.Price, Currency: p.Config.Currency}})
	}
	return in
}

// Stats summarizes a population's skew.
type Stats struct {
	Users, Products, Orders, OpenOrders, Unprocessed, Paid int
	// TopUserShare is the share of orders of the hottest user; MaxOrders,
	// MedianOrders the most and the median orders of one user (users with
	// none included).
	TopUserShare            float64
	MaxOrders, MedianOrders int
	// UsersWithoutOrders counts users who placed none.
	UsersWithoutOrders int
}

// Stats counts p.
func (p *Population) Stats() Stats {
	s := Stats{Users: len(p.Users), Products: len(p.Products), Orders: len(p.Orders)}
	for _, o := range p.Orders {
		switch {
		case o.PaymentID == "":
			s.OpenOrders++
		case !o.Processed:
			s.Unprocessed++
		default:
			s.Paid++
		}
	}
	counts := make([]int, len(p.Users))
	for i, u := range p.Users {
		counts[i] = len(p.ByUser[u])
		if counts[i] == 0 {
			s.UsersWithoutOrders++
		}
	}
	sorted := append([]int(nil), counts...)
	sort.Ints(sorted)
	s.MaxOrders, s.MedianOrders = sorted[len(sorted)-1], sorted[len(sorted)/2]
	if len(p.Orders) > 0 {
		s.TopUserShare = float64(counts[0]) / float64(len(p.Orders))
	}
	return s
}

// Idem is the idempotency identity of a loader's call: the flow, and a key
// unique to the call.
func Idem(flow, key string) payments.Idem {
	fp, err := idempotency.Fingerprint(http.MethodPost, "/"+flow, []byte(strconv.Quote(key)))
	if err != nil {
		panic(err) // Fingerprint fails only on a bad method or route
	}
	return payments.Idem{Scope: idempotency.Scope{Caller: "population", Operation: flow}, Key: key, Fingerprint: fp}
}

// LoadOptions tunes Load.
type LoadOptions struct {
	// Before, if set, is called before each write request's call (the
	// scale bench advances the engine's clock there, so that loading is
	// not throttled by the partition limits the bench measures).
	Before func()
}

// Load writes p through st and the money flows on st: products, users
// (each credited Config.Credit), then every order through its life cycle
// (create; charge; settle; process). It records each payment id in p.
func (p *Population) Load(ctx context.Context, st *store.Store, opts LoadOptions) error {
	svc := payments.New(st)
	before := opts.Before
	if before == nil {
		before = func() {}
	}
	c := p.Config
	amt := func(m int64) money.Amount { return money.Amount{Minor: m, Currency: c.Currency} }
	for _, pr := range p.Products {
		before()
		if _, err := st.CreateProduct(ctx, store.NewProduct{ProductID: pr.ID, Name: "Product " + pr.ID, Price: pr.Price, Currency: string(c.Currency), Featured: pr.Featured}); err != nil {
			return fmt.Errorf("product %s: %w", pr.ID, err)
		}
	}
	for _, u := range p.Users {
		before()
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: u, Name: "User " + u, Email: u + "@example.com"}); err != nil {
			return fmt.Errorf("user %s: %w", u, err)
		}
		before()
		if _, err := svc.Credit(ctx, Idem(payments.FlowCredit, "seed-"+u), u, amt(c.Credit)); err != nil {
			return fmt.Errorf("credit %s: %w", u, err)
		}
	}
	for i := range p.Orders {
		if err := p.loadOrder(ctx, svc, st, i, before); err != nil {
			return err
		}
	}
	return nil
}

func (p *Population) loadOrder(ctx context.Context, svc *payments.Service, st *store.Store, i int, before func()) error {
	o := &p.Orders[i]
	c := p.Config
	before()
	if _, err := svc.CreateOrder(ctx, Idem(payments.FlowCreateOrder, o.ID), o.UserID, p.NewOrder(i)); err != nil {
		return fmt.Errorf("order %s: %w", o.ID, err)
	}
	if o.PaymentID == "" {
		return nil
	}
	before()
	id, err := Charge(ctx, svc, o.ID, money.Amount{Minor: o.Total, Currency: c.Currency}, "seed-"+o.ID)
	if err != nil {
		return err
	}
	o.PaymentID = id
	if !o.Processed {
		return nil
	}
	before()
	if _, err := svc.Settle(ctx, Idem(payments.FlowSettle, o.ID), o.ID, nil); err != nil {
		return fmt.Errorf("settle %s: %w", o.ID, err)
	}
	before()
	if _, err := st.ProcessPayment(ctx, o.ID, o.PaymentID); err != nil {
		return fmt.Errorf("process %s: %w", o.ID, err)
	}
	return nil
}

// Charge charges an order with the idempotency key key and returns the
// payment id.
func Charge(ctx context.Context, svc *payments.Service, orderID string, amt money.Amount, key string) (string, error) {
	r, err := svc.Charge(ctx, Idem(payments.FlowCharge, key), orderID, amt)
	if err != nil {
		return "", fmt.Errorf("charge %s: %w", orderID, err)
	}
	var res payments.ChargeResult
	if err := json.Unmarshal(r.Body, &res); err != nil {
		return "", fmt.Errorf("charge %s: %w", orderID, err)
	}
	return res.PaymentID, nil
}
