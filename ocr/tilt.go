package ocr

import "math"

// capitalTilt is how far, in radians, a word's estimated reading direction is turned back
// counterclockwise (in the reading frame, y down) for a second look at a word no skill took.
// The principal axis of a capitalised word dips toward its end: the capital rises above the
// letters at the start, and descenders (the g of every "-ing") hang below them at the end, so
// the axis runs 9-18° clockwise of the baseline on such words (measured on the generated
// audit sets: all 12 words of TestLocDiag read wrong at the estimated direction and right at
// the baseline's were turned that way). Tesseract reads nothing 10° off: such a word, read
// along its baseline, reads 75-100% like its name.
var capitalTilt = 12 * math.Pi / 180

// tiltedViews are the views of rg read along its baseline when the principal axis dipped
// toward the end of the word (see capitalTilt), both ways up (the way up that read best
// along the axis is often the wrong one), in each read mode; none when capitalTilt is 0.
// Like a clipped read, a tilted one counts only when it reads well (see region.lastLook).
func (im *inkMap) tiltedViews(rg *region) []*view {
	if capitalTilt == 0 {
		return nil
	}
	return append(im.turnedViews(rg, []float64{-capitalTilt, math.Pi - capitalTilt}), im.smallTiltViews(rg)...)
}

// smallTiltViews are the views of rg turned by smallTilts only, in each read mode.
func (im *inkMap) smallTiltViews(rg *region) []*view {
	bys := make([]float64, len(smallTilts))
	for i, t := range smallTilts {
		bys[i] = t * math.Pi / 180
	}
	return im.turnedViews(rg, bys)
}

// turnedViews are the views of rg turned by each angle (radians), marked tilted, in each
// read mode.
func (im *inkMap) turnedViews(rg *region, bys []float64) []*view {
	var out []*view
	for _, by := range bys {
		r := rg.rotated(by, im.w)
		r.tilted = true
		for _, psm := range readModes {
			out = append(out, &view{rg: r, psm: psm})
		}
	}
	return out
}

// smallTilts (degrees) are further turns of the way up that read most like a missing skill.
var smallTilts = []float64{-8, -4, 4, 8}
