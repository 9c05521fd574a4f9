package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"gocv.io/x/gocv"
	"golang.org/x/text/unicode/norm"

	"tearcam/judge"
	"tearcam/template"
)

// Colours of the annotated image (gocv drawing takes color.RGBA and writes BGR, so these are
// true colours).
var (
	colRemoved  = colorRGBA(230, 40, 40)   // red tint
	colTear     = colorRGBA(255, 200, 0)   // amber tear lines
	colPiece    = colorRGBA(200, 0, 200)   // magenta piece outline
	colTplPiece = colorRGBA(0, 170, 0)     // green, dashed: template in the removed piece
	colTplPaper = colorRGBA(120, 40, 220)  // violet, dashed: template on the remaining paper
	colText     = colorRGBA(255, 255, 255) // white text on a dark band
	colPlace    = colorRGBA(0, 255, 255)   // cyan rings: places the text names, numbered
)

func letterColor(s judge.LetterState) color.RGBA {
	switch s {
	case judge.LetterOnSheet:
		return colorRGBA(0, 150, 255) // blue: still on the sheet
	case judge.LetterRemoved:
		return colorRGBA(0, 190, 0) // green: taken by this tear
	case judge.LetterCut:
		return colorRGBA(230, 0, 0) // red: cut, counts as neither
	case judge.LetterAmbiguous, judge.LetterOnSheetOrCut, judge.LetterRemovedOrCut:
		return colorRGBA(255, 140, 0) // orange: too close to call
	case judge.LetterGone:
		return colorRGBA(128, 128, 128) // grey: gone before this tear
	}
	return colorRGBA(200, 0, 200) // magenta: unknown
}

// Annotate draws a tear for a GM or tournament judge on the after-image: the removed region
// tinted red and outlined, tear lines in amber, the template where it fits in the removed
// piece (green) and on the remaining paper (violet), both dashed so that neither is taken
// for a letter's outline, each letter outlined in the colour of its
// state (blue on sheet, green removed, red cut, orange ambiguous, grey gone, magenta
// unknown), and the verdict and extra lines in a band on top. Every sheet-frame place the
// lines name ("at (128, 208) mm", as undecided reasons do) is ringed in cyan on the image and
// numbered, the number written after it in the band, so that a GM finds what the reason is
// about. It returns a new BGR Mat the caller closes.
func Annotate(after *SheetImage, r *TearResult, layouts []judge.SkillLayout, verdict string, lines []string) (gocv.Mat, error) {
	if after == nil || after.Image.Ptr() == nil || after.Image.Empty() || r == nil {
		return gocv.Mat{}, fmt.Errorf("%w: nothing to annotate", ErrBadInput)
	}
	ppm := after.PxPerMM
	img := after.Image.Clone()
	// Dim what is not paper so the sheet stands out.
	if !after.Mask.Empty() {
		dim := gocv.NewMat()
		img.ConvertToWithParams(&dim, gocv.MatTypeCV8UC3, 0.4, 0)
		inv := gocv.NewMat()
		gocv.BitwiseNot(after.Mask, &inv)
		dim.CopyToWithMask(&img, inv)
		inv.Close()
		dim.Close()
	}
	if r.Removed.Ptr() != nil && !r.Removed.Empty() {
		tint := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(float64(colRemoved.B), float64(colRemoved.G), float64(colRemoved.R), 0), img.Rows(), img.Cols(), gocv.MatTypeCV8UC3)
		blend := gocv.NewMat()
		gocv.AddWeighted(img, 0.5, tint, 0.5, 0, &blend)
		blend.CopyToWithMask(&img, r.Removed)
		blend.Close()
		tint.Close()
	}
	th := max(2, int(math.Round(0.5*ppm)))
	poly := func(p [][]judge.Point, closed bool, c color.RGBA, thick int) {
		if len(p) == 0 {
			return
		}
		var pts [][]image.Point
		for _, l := range p {
			var q []image.Point
			for _, v := range l {
				q = append(q, mmToPx(pt{v.X, v.Y}, ppm).img())
			}
			if len(q) >= 2 {
				pts = append(pts, q)
			}
		}
		if len(pts) == 0 {
			return
		}
		pv := gocv.NewPointsVectorFromPoints(pts)
		gocv.Polylines(&img, pv, closed, c, thick)
		pv.Close()
	}
	poly(r.PieceOutlines, true, colPiece, th/2+1)
	poly(r.TearLines, false, colTear, th)
	tpl := func(pl *template.Placement, tp template.Template, c color.RGBA) {
		if pl == nil {
			return
		}
		var l []judge.Point
		for _, v := range tp.Apply(*pl) {
			l = append(l, judge.Point{X: v[0], Y: v[1]})
		}
		dashed(&img, l, ppm, c, th)
	}
	tp := r.template
	if len(tp.PolygonMM) == 0 {
		tp = template.Default()
	}
	tpl(r.PiecePlacement, tp, colTplPiece)
	tpl(r.PaperPlacement, tp, colTplPaper)
	for si, sk := range layouts {
		var states []judge.LetterState
		if si < len(r.Measurement.Letters) {
			states = r.Measurement.Letters[si].States
		}
		for li, le := range sk.Letters {
			st := judge.LetterUnknown
			if li < len(states) {
				st = states[li]
			}
			poly([][]judge.Point{le.Outline}, true, letterColor(st), max(1, th/2))
		}
	}
	lines, places := markPlaces(lines)
	for i, at := range places {
		drawPlace(&img, i+1, at, ppm)
	}
	out := withBand(img, verdict, lines)
	img.Close()
	return out, nil
}

// drawPlace rings and numbers (label) the sheet-frame place at (mm) on img, at ppm px/mm.
func drawPlace(img *gocv.Mat, label int, at pt, ppm float64) {
	th := max(2, int(math.Round(0.5*ppm)))
	c := mmToPx(at, ppm).img()
	r := int(math.Round(6 * ppm))
	gocv.Circle(img, c, r, colPlace, th)
	gocv.Line(img, c.Add(image.Pt(-r/3, 0)), c.Add(image.Pt(r/3, 0)), colPlace, max(1, th/2))
	gocv.Line(img, c.Add(image.Pt(0, -r/3)), c.Add(image.Pt(0, r/3)), colPlace, max(1, th/2))
	text, scale := strconv.Itoa(label), max(0.5, ppm/4)
	o := c.Add(image.Pt(r+th, r/2))
	gocv.PutTextWithParams(img, text, o, gocv.FontHersheySimplex, scale, colorRGBA(0, 0, 0), 3*max(1, th/2)+2, gocv.LineAA, false)
	gocv.PutTextWithParams(img, text, o, gocv.FontHersheySimplex, scale, colPlace, max(1, th/2), gocv.LineAA, false)
}

// Reband redraws the text band of an image Annotate made (annotated, BGR: the band drawn
// for oldVerdict and oldLines over the sheet at ppm px/mm) for a new ruling, verdict and
// lines, keeping the sheet's picture as it is: when the ruling on a measurement changes
// (a GM's ruling given or changed), the image shows the ruling that stands without the
// photo being registered again. Places the new lines name that the old did not are ringed
// and numbered after the old ones; a place both name keeps its number. It returns a new
// BGR Mat the caller closes; ErrBadInput when annotated is empty or no taller than the old
// band (not an image Annotate made for those lines).
func Reband(annotated gocv.Mat, oldVerdict string, oldLines []string, verdict string, lines []string, ppm float64) (gocv.Mat, error) {
	if annotated.Ptr() == nil || annotated.Empty() || annotated.Type() != gocv.MatTypeCV8UC3 || ppm <= 0 {
		return gocv.Mat{}, fmt.Errorf("%w: nothing to reband", ErrBadInput)
	}
	index := map[string]int{}
	marked, places := numberPlaces(index, nil, oldLines)
	_, _, band, _ := bandLayout(annotated.Cols(), oldVerdict, marked)
	if annotated.Rows() <= band {
		return gocv.Mat{}, fmt.Errorf("%w: the image (%d px high) is no taller than its text band (%d px)", ErrBadInput, annotated.Rows(), band)
	}
	roi := annotated.Region(image.Rect(0, band, annotated.Cols(), annotated.Rows()))
	img := roi.Clone()
	roi.Close()
	defer img.Close()
	lines, all := numberPlaces(index, places, lines)
	for i := len(places); i < len(all); i++ {
		drawPlace(&img, i+1, all[i], ppm)
	}
	return withBand(img, verdict, lines), nil
}

// mmPlace is a sheet-frame place as rulings and notes write it: "(128, 208) mm".
var mmPlace = regexp.MustCompile(`\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\) mm`)

// markPlaces numbers the sheet-frame places named in lines (mmPlace), from 1 in the order
// they first appear, and returns the lines with each place followed by its number
// ("(128, 208) mm [1]") and the places in mm. A place named twice keeps its first number.
func markPlaces(lines []string) ([]string, []pt) {
	return numberPlaces(map[string]int{}, nil, lines)
}

// numberPlaces is markPlaces continuing a numbering: index holds the number of each place
// already numbered (as written), places those places in number order; both are extended.
func numberPlaces(index map[string]int, places []pt, lines []string) ([]string, []pt) {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = mmPlace.ReplaceAllStringFunc(l, func(m string) string {
			k, ok := index[m]
			if !ok {
				g := mmPlace.FindStringSubmatch(m)
				x, errX := strconv.ParseFloat(g[1], 64)
				y, errY := strconv.ParseFloat(g[2], 64)
				if errX != nil || errY != nil {
					return m
				}
				places = append(places, pt{x, y})
				k = len(places)
				index[m] = k
			}
			return fmt.Sprintf("%s [%d]", m, k)
		})
	}
	return out, places
}

// AnnotatePhoto is the annotated image of a tear whose measurement was refused (something
// over the sheet, registration refused): the photo itself, scaled to width px wide (the
// width Annotate's images have), under the same text band, so that the GM sees what was
// refused and why. It returns a new BGR Mat the caller closes.
func AnnotatePhoto(photo gocv.Mat, width int, verdict string, lines []string) (gocv.Mat, error) {
	if photo.Ptr() == nil || photo.Empty() || width <= 0 {
		return gocv.Mat{}, fmt.Errorf("%w: nothing to annotate", ErrBadInput)
	}
	img := gocv.NewMat()
	defer img.Close()
	h := max(1, int(math.Round(float64(photo.Rows())*float64(width)/float64(photo.Cols()))))
	gocv.Resize(photo, &img, image.Pt(width, h), 0, 0, gocv.InterpolationArea)
	if img.Channels() == 1 {
		gocv.CvtColor(img, &img, gocv.ColorGrayToBGR)
	}
	return withBand(img, verdict, lines), nil
}

// withBand returns img (BGR) under a text band: the verdict, then the lines wrapped at word
// boundaries to the image's width. The caller closes the new Mat (and still owns img).
func withBand(img gocv.Mat, verdict string, lines []string) gocv.Mat {
	text, base, band, scale := bandLayout(img.Cols(), verdict, lines)
	out := gocv.NewMatWithSize(img.Rows()+band, img.Cols(), gocv.MatTypeCV8UC3)
	out.SetTo(gocv.NewScalar(40, 30, 30, 0))
	roi := out.Region(image.Rect(0, band, img.Cols(), band+img.Rows()))
	img.CopyTo(&roi)
	roi.Close()
	for i, s := range text {
		fs, tk := 0.8*scale, max(1, int(2*scale))
		if i == 0 {
			fs, tk = 1.0*scale, max(2, int(3*scale))
		}
		gocv.PutTextWithParams(&out, s, image.Pt(int(10*scale), base[i]), gocv.FontHersheySimplex, fs, colText, tk, gocv.LineAA, false)
	}
	return out
}

// bandLayout lays out withBand's text over an image width px wide: the lines to draw (the
// verdict, then the lines wrapped), each one's baseline, the band's height in px, and the
// font scale.
func bandLayout(width int, verdict string, lines []string) (text []string, base []int, band int, scale float64) {
	// Scaled to the image's width, but never below a size that stays legible on a small
	// sheet's image (105x148 mm: 420 px wide, where the verdict was clipped; a tester).
	scale = max(float64(width)/900, 0.55)
	text = []string{bandText(verdict)}
	for _, l := range lines {
		text = append(text, wrapText(bandText(l), 0.8*scale, max(1, int(2*scale)), width-int(20*scale))...)
	}
	lh := int(32 * scale)
	// Each line's baseline: the verdict's, in a larger font, a third of a line lower so that
	// its top stays inside the band.
	base = make([]int, len(text))
	y := lh / 3
	for i := range text {
		y += lh
		base[i] = y
	}
	return text, base, y + lh/2, scale
}

// bandText spells s with what OpenCV's Hershey font can draw (printable ASCII): it draws
// any other character as "?", so "mm²" came out "mm??" (a helper). The common ones are
// spelt out ("mm2", "x", quotes, dashes, "..."); accented letters lose their accent; any
// other character becomes "?".
func bandText(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case unicode.Is(unicode.Mn, r): // a combining accent: dropped
		default:
			if t, ok := bandSpelling[r]; ok {
				b.WriteString(t)
			} else {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}

var bandSpelling = map[rune]string{
	'²': "2", '³': "3", '×': "x", '°': " deg", '±': "+/-", '≤': "<=", '≥': ">=",
	'‘': "'", '’': "'", '“': "\"", '”': "\"", '–': "-", '—': "-", '…': "...", '\u00a0': " ",
	'ß': "ss", 'æ': "ae", 'Æ': "AE", 'ø': "o", 'Ø': "O", 'œ': "oe", 'Œ': "OE", 'ł': "l", 'Ł': "L",
}

// wrapText splits s at spaces into lines no wider than width pixels when drawn with
// FontHersheySimplex at fontScale and thickness (a single word wider than that stays whole).
func wrapText(s string, fontScale float64, thickness, width int) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	var out []string
	cur := words[0]
	for _, w := range words[1:] {
		next := cur + " " + w
		if gocv.GetTextSize(next, gocv.FontHersheySimplex, fontScale, thickness).X > width {
			out = append(out, cur)
			cur = w
			continue
		}
		cur = next
	}
	return append(out, cur)
}

// dashed draws the closed polygon l (sheet frame, mm) on img (sheet frame, ppm px/mm) in
// dashes of 4 mm with gaps of 2 mm, thick px wide: the template's placements are dashed so
// that they are not taken for the outline of a letter or a piece.
func dashed(img *gocv.Mat, l []judge.Point, ppm float64, c color.RGBA, thick int) {
	const dash, gap = 4.0, 2.0 // mm
	phase := 0.0               // mm along the outline from the start of the current dash
	for i := range l {
		a, b := pt{l[i].X, l[i].Y}, pt{l[(i+1)%len(l)].X, l[(i+1)%len(l)].Y}
		n := dist(a, b)
		for t := 0.0; t < n; {
			var step float64
			if phase < dash {
				step = math.Min(dash-phase, n-t)
				p, q := lerp(a, b, t/n), lerp(a, b, (t+step)/n)
				gocv.Line(img, mmToPx(p, ppm).img(), mmToPx(q, ppm).img(), c, thick)
			} else {
				step = math.Min(dash+gap-phase, n-t)
			}
			t += step
			if phase += step; phase >= dash+gap {
				phase = 0
			}
		}
	}
}
