package workload

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// windowColor shades each kind of fault window.
var windowColor = map[FaultKind]string{
	Throttling:      "#f6c28b",
	Conflicts:       "#f5a3a3",
	Latency:         "#b9d7f0",
	LostReplies:     "#d7b9f0",
	GSIDelay:        "#bfe6bf",
	ConsumerRestart: "#f0e6a0",
	AllFaults:       "#d0d0d0",
}

// WriteSVG draws throughput (completed and acknowledged attempts per
// second) and p99 latency over the run, with the fault windows shaded. It
// needs nothing but the standard library.
func (r *Result) WriteSVG(w io.Writer) error {
	const width, left, right, top, panelH, gap = 960, 70, 20, 40, 220, 60
	height := top + 2*panelH + gap + 80
	plotW := float64(width - left - right)
	n := len(r.Seconds)
	dur := math.Max(r.Elapsed.Seconds(), float64(n))
	x := func(sec float64) float64 { return left + sec/dur*plotW }

	var maxTput, maxP99 float64
	for _, s := range r.Seconds {
		maxTput = math.Max(maxTput, float64(s.Attempts))
		maxP99 = math.Max(maxP99, float64(s.P99)/float64(time.Millisecond))
	}
	maxTput, maxP99 = niceCeil(maxTput), niceCeil(maxP99)

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">oncetable soak: %s, %d clients, seed %d, %d violations</text>`+"\n",
		left, r.Elapsed.Round(time.Second), r.Config.Clients, r.Config.Seed, len(r.Violations))
	panels := []struct {
		title string
		y0    int
		max   float64
		unit  string
		lines []series
	}{
		{"throughput (HTTP attempts completed per second)", top, maxTput, "/s", []series{
			{"all attempts", "#1f77b4", func(s Second) float64 { return float64(s.Attempts) }},
			{"success responses", "#2ca02c", func(s Second) float64 { return float64(s.Acked) }},
		}},
		{"latency of the attempts completed in each second (ms)", top + panelH + gap, maxP99, "ms", []series{
			{"p99", "#d62728", func(s Second) float64 { return float64(s.P99) / float64(time.Millisecond) }},
			{"p50", "#ff7f0e", func(s Second) float64 { return float64(s.P50) / float64(time.Millisecond) }},
		}},
	}
	for _, p := range panels {
		y := func(v float64) float64 { return float64(p.y0+panelH) - v/p.max*float64(panelH) }
		for _, win := range r.Windows {
			if c, ok := windowColor[win.Kind]; ok {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" opacity="0.6"/>`+"\n",
					x(win.Start.Seconds()), p.y0, x(win.End.Seconds())-x(win.Start.Seconds()), panelH, c)
			}
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%d" fill="none" stroke="#333"/>`+"\n", left, p.y0, plotW, panelH)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, p.y0-6, p.title)
		for i := 0; i <= 4; i++ {
			v := p.max * float64(i) / 4
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="2,3"/>`+"\n", left, width-right, y(v), y(v))
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", left-6, y(v)+4, v)
		}
		for li, s := range p.lines {
			var pts []string
			for i, sec := range r.Seconds {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(i)+0.5), y(s.value(sec))))
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
			lx := width - right - 280 + li*140
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d">%s</text>`+"\n",
				lx, lx+18, p.y0-10, p.y0-10, s.color, lx+22, p.y0-6, s.name)
		}
	}
	// time axis and window legend
	axisY := top + 2*panelH + gap
	step := niceCeil(dur / 10)
	for t := 0.0; t <= dur; t += step {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%gs</text>`+"\n", x(t), axisY+16, t)
	}
	lx := left
	for _, k := range Cycle {
		c, ok := windowColor[k]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="14" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, axisY+36, c, lx+18, axisY+48, k)
		lx += 30 + 8*len(k)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

type series struct {
	name, color string
	value       func(Second) float64
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
