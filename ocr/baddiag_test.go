package ocr

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"tearcam/judge"
)

// badLetter is one letter whose outline is more than 1 mm from its truth (see badLetters).
type badLetter struct {
	font      string
	cap, tilt float64
	div       division
	syms      bool    // Tesseract gave symbols for the read
	cut       bool    // the letter's ink was cut out of a mark shared with a neighbour
	pos       string  // first, last or mid
	hd, ohd   float64 // Hausdorff distance, ours and the truth's partition of the ink (mm)
	// Extent differences, ours minus the truth's (mm), along the baseline (start, end) and
	// across it (top, bottom, v pointing down): positive where ours reaches further out.
	dStart, dEnd, dTop, dBot float64
}

// side is the extent difference of largest size, named: start/end/top/bottom with + (ours
// reaches further) or - (ours falls short).
func (b badLetter) side() string {
	names := []string{"start", "end", "top", "bottom"}
	vals := []float64{b.dStart, b.dEnd, b.dTop, b.dBot}
	k := 0
	for i := range vals {
		if math.Abs(vals[i]) > math.Abs(vals[k]) {
			k = i
		}
	}
	sign := "+"
	if vals[k] < 0 {
		sign = "-"
	}
	return names[k] + sign
}

// extents is the polygon's extent along the unit vectors u and v (mm).
func extents(q []judge.Point, ux, uy float64) (u0, u1, v0, v1 float64) {
	u0, v0, u1, v1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range q {
		u := p.X*ux + p.Y*uy
		v := -p.X*uy + p.Y*ux
		u0, u1, v0, v1 = math.Min(u0, u), math.Max(u1, u), math.Min(v0, v), math.Max(v1, v)
	}
	return
}

// badLetters lists the letters of a located case whose outline (cut as letterOutlines does)
// lies more than 1 mm from the truth's.
func badLetters(c segCase) []badLetter {
	lets, _, div := c.im.letterOutlines(c.v, c.truth.Name)
	if len(lets) != len(c.truth.Letters) {
		return nil
	}
	parts, rg, _, _ := c.im.letterParts(c.v, c.truth.Name)
	compOf := map[int32]int{}
	for _, ci := range rg.comps {
		for _, p := range c.im.comps[ci].pix {
			compOf[p] = ci
		}
	}
	owners := map[int]map[int]bool{}
	for i, pt := range parts {
		for _, p := range pt.pix {
			ci := compOf[p]
			if owners[ci] == nil {
				owners[ci] = map[int]bool{}
			}
			owners[ci][i] = true
		}
	}
	orc := oraclePartition(c, false)
	a := c.truth.AngleDeg * math.Pi / 180
	ux, uy := math.Cos(a), math.Sin(a)
	var out []badLetter
	n := len(lets)
	for i, le := range lets {
		tq := truthOutline(c.truth.Letters[i])
		hd := hausdorff(le.Outline, tq)
		if hd <= 1 {
			continue
		}
		b := badLetter{font: c.truth.Font, cap: c.truth.CapHeightMM, tilt: c.truth.AngleDeg, div: div,
			syms: c.v.rd != nil && len(c.v.rd.syms) > 0, hd: hd, ohd: hausdorff(orc[i].Outline, tq), pos: "mid"}
		if i == 0 {
			b.pos = "first"
		} else if i == n-1 {
			b.pos = "last"
		}
		for _, p := range parts[i].pix {
			if len(owners[compOf[p]]) > 1 {
				b.cut = true
				break
			}
		}
		ou0, ou1, ov0, ov1 := extents(le.Outline, ux, uy)
		tu0, tu1, tv0, tv1 := extents(tq, ux, uy)
		b.dStart, b.dEnd, b.dTop, b.dBot = tu0-ou0, ou1-tu1, tv0-ov0, ov1-tv1
		out = append(out, b)
	}
	return out
}

// logBadLetters logs each letter more than 1 mm off and tallies them by cause.
func logBadLetters(t *testing.T, cases []segCase, verbose bool) {
	tally := map[string]int{}
	total, bad := 0, 0
	for _, c := range cases {
		lets, _, _ := c.im.letterOutlines(c.v, c.truth.Name)
		lay := judge.SkillLayout{Name: c.truth.Name, Letters: lets, Located: len(lets)}
		if s := scoreSkill(lay, c.truth); !s.located {
			continue
		}
		total += len(lets)
		for _, b := range badLetters(c) {
			bad++
			kind := "marks"
			if b.cut {
				kind = "cut"
			}
			oracle := "oracle-ok"
			if b.ohd > 1 {
				oracle = "oracle-bad"
			}
			tally["kind "+kind]++
			tally["pos "+b.pos]++
			tally["side "+b.side()]++
			tally[oracle]++
			tally[fmt.Sprintf("div %d", b.div)]++
			tally["font "+fontFamily(b.font)]++
			tally[fmt.Sprintf("%s %s %s", kind, oracle, b.side())]++
			tally[fmt.Sprintf("F %s %s", fontFamily(b.font), b.side())]++
			if verbose {
				t.Logf("bad %-16q %-22s cap=%4.1f tilt=%6.1f div=%d syms=%v %-5s %-5s hd=%.2f oracle=%.2f start=%+.2f end=%+.2f top=%+.2f bot=%+.2f",
					c.truth.Name, b.font, b.cap, b.tilt, b.div, b.syms, kind, b.pos, b.hd, b.ohd, b.dStart, b.dEnd, b.dTop, b.dBot)
			}
		}
	}
	var ks []string
	for k := range tally {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var sb strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&sb, "\n  %-40s %d", k, tally[k])
	}
	t.Logf("letters more than 1 mm off: %d of %d%s", bad, total, sb.String())
}

// fontFamily is the font's family prefix (as TestSegDiag groups them).
func fontFamily(f string) string {
	for _, p := range []string{"dkg", "Dancing", "Breip", "Comic", "Kaushan", "femke", "Humor"} {
		if strings.HasPrefix(f, p) {
			return p
		}
	}
	return f
}
