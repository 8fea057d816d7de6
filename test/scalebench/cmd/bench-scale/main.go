// Command bench-scale is `make bench-scale`: it ramps every access pattern
// and money flow of oncetable on a production-skewed population with the
// engine's partition limits on, and writes scale.md and scale.svg (see
// test/scalebench).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oncetable/oncetable/test/scalebench"
)

func main() {
	var cfg scalebench.Config
	out := flag.String("out", "tmp/scale", "directory to write scale.md and scale.svg into")
	only := flag.String("only", "", "comma-separated variant/pattern names to ramp (v1/Charge, or Charge for every variant); empty: all")
	flag.IntVar(&cfg.Population.Users, "users", 1000, "users in the population")
	flag.IntVar(&cfg.Population.Orders, "orders", 0, "orders in the population (0: 3 per user)")
	flag.IntVar(&cfg.Population.HotUsers, "hot-users", 3, "very hot users")
	flag.Float64Var(&cfg.Population.HotShare, "hot-share", 0.15, "share of all user activity the hot users take together")
	flag.Float64Var(&cfg.Population.UserSkew, "user-skew", 1.0, "Zipf exponent of the other users' activity")
	flag.Float64Var(&cfg.Population.MerchantSkew, "merchant-skew", 1.2, "Zipf exponent of merchants' popularity")
	flag.Float64Var(&cfg.Population.ProductSkew, "product-skew", 1.0, "Zipf exponent of products' popularity within a merchant")
	flag.Uint64Var(&cfg.Population.Seed, "seed", 1, "seed of every draw")
	flag.Float64Var(&cfg.Scale, "scale", 10, "divide DynamoDB's per-partition limits (3,000 RCU, 1,000 WCU) by this")
	flag.DurationVar(&cfg.Window, "window", 1200*time.Millisecond, "measured window of each step")
	flag.DurationVar(&cfg.Warm, "warm", 400*time.Millisecond, "unmeasured warm-up of each step")
	flag.Float64Var(&cfg.MaxRate, "max-rate", 2000, "highest offered rate, calls/s at bench scale")
	from := flag.String("from", "", "render the page from this scale.json of an earlier run instead of running")
	flag.Parse()
	if *only != "" {
		names := strings.Split(*only, ",")
		cfg.Only = func(variant, name string) bool {
			for _, n := range names {
				if n == name || n == variant+"/"+name {
					return true
				}
			}
			return false
		}
	}
	cfg.Log = os.Stderr
	var rep *scalebench.Report
	var err error
	if *from != "" {
		rep, err = scalebench.ReadJSON(*from)
	} else {
		rep, err = scalebench.Run(context.Background(), cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
	md, svg := filepath.Join(*out, "scale.md"), filepath.Join(*out, "scale.svg")
	if *from == "" {
		if err := rep.WriteJSON(filepath.Join(*out, "scale.json")); err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale:", err)
			os.Exit(1)
		}
	}
	if err := rep.Write(md, svg); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
	fmt.Printf("bench-scale: %s, %s (took %s)\n", md, svg, rep.Took.Round(time.Second))
}
