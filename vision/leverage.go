package vision

import "math"

// Leverage.
//
// A homography fitted by least squares to ink patches bunched in one part of the sheet bends
// to fit a lone patch far from them: its perspective terms are free to, so that patch's own
// residual stays small however wrong its match is, and every other patch's residual grows a
// little. RANSAC does not catch it either, for the same reason: every minimal set holding
// the lone patch fits it. Held-out seed 9 case-005 bo-3: 17 patches within 0.5 px of the
// truth in the lower half, one on a word torn away matched 5.5 px off; with it the
// alignment was 2.34 mm off at the torn top edge for an ink residual of 0.11 mm, accepted,
// and two tears later a phantom strip along that edge was ruled a second piece for certain.
//
// The check is the deleted residual of regression diagnostics (Belsley, Kuh and Welsch,
// "Regression Diagnostics", 1980; Cook and Weisberg 1982): a patch whose leverage is high is
// predicted from the fit to all the others; when that prediction misses it, the alignment is
// ambiguous. Both come from looResiduals (refine.go), in one pass through the hat matrix.

// looLeverage is the leverage (looResiduals' per-point mean of the hat matrix's diagonal,
// 8 parameters over 2n equations: 4/n on average) above which a patch counts as one the fit
// rests on: twice the mean, with a floor of 0.2.
func looLeverage(n int) float64 { return math.Max(0.2, 2*4/float64(n)) }

// leveragedAlternative finds, among the ink patches of an alignment (pairs: sheet mm u seen
// at photo px v), the high-leverage patch that the least-squares homography of all the
// others misses by the most, if by more than looDisagreeMM (sheet mm), and returns the pairs
// without it. Either that patch is a wrong match the fit bent to (held-out seed 9 case-005
// bo-3, a patch on a word torn away), or it is right and the only one to hold the alignment
// far from the others (seed 9 case-011 dana-4): the patches cannot tell which, the untorn
// edges decide (registerOn).
func leveragedAlternative(pairs []pair) ([]pair, bool) {
	if len(pairs) <= 8 {
		return nil, false
	}
	u, v := make([]pt, len(pairs)), make([]pt, len(pairs))
	for i, p := range pairs {
		u[i], v[i] = p.u, p.v
	}
	// Photo px -> sheet mm, so that the residuals are in sheet mm.
	res, lev, ok := looResiduals(v, u)
	if !ok {
		return nil, false
	}
	lim := looLeverage(len(pairs))
	worst, worstD := -1, looDisagreeMM
	for i, l := range lev {
		if l > lim && res[i] > worstD {
			worst, worstD = i, res[i]
		}
	}
	if worst < 0 {
		return nil, false
	}
	return append(append([]pair{}, pairs[:worst]...), pairs[worst+1:]...), true
}

// pairsHomography is the least-squares homography (sheet mm -> photo px) of pairs, leaving
// out pair skip (-1: none).
func pairsHomography(pairs []pair, skip int) (homog, bool) {
	var src, dst []pt
	for j, p := range pairs {
		if j != skip {
			src, dst = append(src, p.u), append(dst, p.v)
		}
	}
	return lsqHomography(src, dst)
}

// pairsRMS is the RMS distance (sheet mm) between the pairs' u and their v mapped back by h.
func pairsRMS(pairs []pair, h homog) float64 {
	hi := h.inv()
	var se float64
	for _, p := range pairs {
		d := dist(hi.apply(p.v), p.u)
		se += d * d
	}
	return math.Sqrt(se / float64(len(pairs)))
}

// looDisagreeMM is how far (sheet mm) the other patches' fit may miss a high-leverage patch
// before the alignment is ambiguous: two frame pixels, refineH's RANSAC threshold.
// leverEdgeMM is how close the untorn edges must then lie to the sheet's sides (edgeMM) to
// settle it: one frame pixel, the finest step they are measured in.
const (
	looDisagreeMM = 0.5
	leverEdgeMM   = 0.25
)
