package ocr

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// Tuning constants, found on rendered handwriting fonts (see locate_test.go).
const (
	wordGap     = 0.3 // components join when their gap is below this fraction of letter size
	minSimilar  = 0.4 // below this similarity a region is not taken for a skill
	squareWords = 2.2 // regions with long/short side below this are also read at ±90°
)

// readModes are the page segmentation modes each view is read in: a single text line (7),
// and a raw line (13), which still reads words the line finder of mode 7 rejects.
var readModes = []string{"7", "13"}

// matchHook, when set (tests only), sees each located skill's ink and view before its
// letters are cut, so that letter cutting can be measured without reading again.
var matchHook func(im *inkMap, skill int, v *view)

// evidenceHook, when set (tests only), sees what each located skill's confidence was made of.
var evidenceHook func(skill int, ev evidence)

// evidence is what a located skill's confidence is made from.
type evidence struct {
	sim     float64  // similarity of the read with the name
	margin  float64  // lead of sim over the best other skill read from the same ink
	div     division // how the letters were divided
	cut     bool     // the search was cut short and the read is not good
	tess    float64  // Tesseract's mean confidence in the read, 0..100
	rival   float64  // best similarity of the same ink to another declared skill left unlocated
	readLen int      // letters read
	nameLen int      // letters of the name
	twin    bool     // other ink taken by no skill reads nearly as well like it (see markTwins)
	// forced is the read of the same crop with only the name's letters allowed (a read not
	// good only; nil otherwise), see forcedRead.
	forced *reading
	// exact is the view whose read with only the name's letters allowed is the name exactly
	// (see exactRead), nil when none is.
	exact *view
	// read is the read the skill was matched by.
	read *reading
}

// view is a region read in one orientation.
type view struct {
	rg  *region
	psm string // Tesseract page segmentation mode
	// zoom, when not 0, renders the letters that times the size Tesseract reads best (a
	// second look at ink no skill took; see rereadClipped).
	zoom float64
	cr   *crop
	rd   *reading
	err  error
}

// candidate is a region, part of one or two regions read as one, with its readings at
// several angles. parts names the pieces of ink it uses (see pieceRuns): two candidates
// sharing a part cannot both be taken.
type candidate struct {
	rg    *region
	parts []int
	views []*view
	whole bool // the whole of one word region (not a piece of it, nor two regions)
}

// readAll reads every view, one goroutine per Tesseract client.
func (l *Locator) readAll(im *inkMap, views []*view, whitelist string) {
	var wg sync.WaitGroup
	jobs := make(chan *view)
	for w := 0; w < l.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range jobs {
				if v.zoom > 0 {
					v.cr = im.renderAt(v.rg, v.zoom)
				} else {
					v.cr = im.render(v.rg)
				}
				psm := v.psm
				if psm == "" {
					psm = "7"
				}
				v.rd, v.err = l.read(v.cr, whitelist, psm)
			}
		}()
	}
	for _, v := range views {
		jobs <- v
	}
	close(jobs)
	wg.Wait()
}

// orientations lists the region at the angles worth reading: its reading direction and
// upside down, and for squarish regions (short words) the two perpendicular ones too.
func orientations(rg *region, w int) []*region {
	out := []*region{rg, rg.rotated(math.Pi, w)}
	if (rg.u1 - rg.u0) < squareWords*(rg.v1-rg.v0) {
		out = append(out, rg.rotated(math.Pi/2, w), rg.rotated(-math.Pi/2, w))
		// The principal axis of a short word is unreliable: also read it along the
		// sheet's edges, the way most people write on a sheet.
		th := rg.angle()
		for k := 0; k < 4; k++ {
			a := float64(k) * math.Pi / 2
			d := math.Abs(math.Remainder(a-th, math.Pi/2))
			if d > 10*math.Pi/180 {
				out = append(out, rg.rotated(math.Remainder(a-th, 2*math.Pi), w))
			}
		}
	}
	return out
}

// bestView is the view of c that reads most like skill, and its similarity.
func (c *candidate) bestView(skill string) (*view, float64) {
	// The readings of one orientation (one per read mode) are taken together: a skill must
	// read well in the modes on average, not in one lucky read among many.
	type orient struct {
		best     *view
		bestSim  float64
		sum      float64
		n        int
		tieBreak float64
	}
	byRg := map[*region]*orient{}
	var order []*region
	for _, v := range c.views {
		if v.rd == nil {
			continue
		}
		o := byRg[v.rg]
		if o == nil {
			o = &orient{bestSim: -1}
			byRg[v.rg] = o
			order = append(order, v.rg)
		}
		s := similarity(v.rd.folded(), skill)
		o.sum += s
		o.n++
		o.tieBreak += 0.05 * v.rd.conf / 100
		if s > o.bestSim {
			o.best, o.bestSim = v, s
		}
	}
	var best *orient
	bs := -1.0
	for _, rg := range order {
		o := byRg[rg]
		s := (0.5*o.sum/float64(o.n) + 0.5*o.bestSim) + o.tieBreak/float64(o.n)
		// A clipped or tilted read counts only when it reads well (see assignSkills): a
		// weak one must not hide the other orientations.
		if rg.lastLook() && 0.5*o.sum/float64(o.n)+0.5*o.bestSim < clippedMinSimilar {
			continue
		}
		if s > bs {
			best, bs = o, s
		}
	}
	if best == nil {
		return nil, 0
	}
	return best.best, 0.5*best.sum/float64(best.n) + 0.5*best.bestSim
}

// Locate finds each declared skill on a rectified fresh sheet (BGR, sheet frame at pxPerMM px/mm,
// e.g. vision.SheetImage.Image at 4 px/mm; mask = paper mask, may be an empty Mat). Returns one
// judge.SkillLayout per declared skill in declaration order: letters' outlines in mm (sheet frame),
// Located, Confidence 0..1 and Notes ("not found", "letters divided evenly along the baseline", ...).
// A skill not found has Located 0 and empty Letters — never a guess presented as a reading.
// Bad declarations (ValidateSkills) are an error wrapping ErrBadSkills.
func (l *Locator) Locate(sheet, mask gocv.Mat, pxPerMM float64, skills []string) ([]judge.SkillLayout, error) {
	if err := ValidateSkills(skills); err != nil {
		return nil, err
	}
	im, err := extractInk(sheet, mask, pxPerMM)
	if err != nil {
		return nil, fmt.Errorf("locate skills: %w", err)
	}
	regions := im.groupWords(wordGap)
	out := make([]judge.SkillLayout, len(skills))
	folded := make([]string, len(skills))
	var readable []string
	for i, s := range skills {
		out[i] = judge.SkillLayout{Name: s, Letters: []judge.Letter{}}
		folded[i] = foldLetters(s)
		if latinScript(s) {
			readable = append(readable, s)
		}
	}
	if len(regions) == 0 {
		for i := range out {
			out[i].Notes = []string{"not found: no writing found on the sheet"}
		}
		return out, nil
	}
	whitelist := whitelistFor(readable)
	var cands []*candidate
	var views []*view
	for i, rg := range regions {
		for _, c := range im.pieceRuns(rg, i) {
			c.addViews(im, &views)
			cands = append(cands, c)
		}
	}
	letters := make([]int, len(skills))
	for k, s := range skills {
		if latinScript(s) {
			letters[k] = len([]rune(folded[k]))
		}
	}
	b := newBudget(len(skills))
	b.floor = chanceFloor(len(cands), len(readable))
	read := l.readRanked(im, im.rankCandidates(cands, letters), b, whitelist, func(read []*candidate) bool {
		return allPlaced(assignSkills(im, read, skills, folded, b.floor), skills)
	})
	for _, v := range views {
		if v.err != nil {
			return nil, fmt.Errorf("locate skills: %w", v.err)
		}
	}
	match, all := l.matchSkills(im, regions, read, skills, folded, whitelist, letters, b)
	match, all, err = l.readTwins(im, cands, all, match, skills, folded, whitelist, b)
	if err != nil {
		return nil, fmt.Errorf("locate skills: %w", err)
	}
	if _, err := l.rereadFound(im, match, skills, folded, whitelist); err != nil {
		return nil, fmt.Errorf("locate skills: %w", err)
	}
	for k, s := range skills {
		if !latinScript(s) {
			out[k].Notes = append(out[k].Notes, "not found: letters outside the Latin script the English OCR model reads")
			continue
		}
		m := match[k]
		cut := ""
		if b.cut {
			cut = fmt.Sprintf("search cut short: %d of %d word readings made (a text-dense sheet); unread ink may hold it", b.used, b.total)
		}
		if m.view == nil {
			out[k].Notes = append(out[k].Notes, "not found")
			if b.floor > minSimilar {
				out[k].Notes = append(out[k].Notes, fmt.Sprintf("a text-dense sheet (%d word candidates): a read under %.0f%% like the name is as likely another word", len(cands), 100*b.floor))
			}
			if cut != "" {
				out[k].Notes = append(out[k].Notes, cut)
			}
			continue
		}
		if matchHook != nil {
			matchHook(im, k, m.view)
		}
		var forced *reading
		if m.sim < goodSim {
			psm := m.view.psm
			if psm == "" {
				psm = "7"
			}
			if forced, err = l.read(m.view.cr, whitelistFor([]string{s}), psm); err != nil {
				return nil, fmt.Errorf("locate skills: %w", err)
			}
		}
		// A read not good places the letters by its symbols poorly: when the same ink read
		// with only the name's letters allowed reads the name exactly, that read's symbols
		// place them (see exactRead).
		cutView := m.view
		var exact *view
		if forced != nil && forced.folded() == folded[k] {
			fv := *m.view
			fv.rd = forced
			exact = &fv
		} else if forced != nil {
			if exact, err = l.exactRead(im, m.view, s, folded[k]); err != nil {
				return nil, fmt.Errorf("locate skills: %w", err)
			}
		}
		if exact != nil {
			cutView = exact
		}
		lay, notes, div := im.letterOutlines(cutView, s)
		out[k].Letters = lay
		out[k].Located = len(lay)
		ev := evidence{sim: m.sim, margin: m.margin, div: div, cut: cut != "" && m.sim < goodSim,
			tess: m.view.rd.conf, readLen: len([]rune(m.view.rd.folded())), nameLen: len([]rune(folded[k])), twin: m.twin != nil, forced: forced, exact: exact, read: m.view.rd}
		var rivalName string
		ev.rival, rivalName = rivalOf(m, k, match, skills, folded)
		if evidenceHook != nil {
			evidenceHook(k, ev)
		}
		conf := ev.confidence()
		out[k].Confidence = round3(conf)
		out[k].Identity, out[k].Outline = round3(ev.identity()), round3(ev.outline())
		out[k].Notes = append(out[k].Notes, fmt.Sprintf("read %q (%.0f%% like the name)", m.view.rd.text, 100*m.sim))
		if ev.cut {
			out[k].Notes = append(out[k].Notes, cut)
		}
		if ev.ambiguous() {
			out[k].Notes = append(out[k].Notes, fmt.Sprintf("the same ink reads %.0f%% like %q, which was not found: it may be that skill's", 100*ev.rival, rivalName))
		}
		if m.twin != nil {
			x0, y0 := im.centreMM(m.view.rg)
			x1, y1 := im.centreMM(m.twin.rg)
			out[k].Doubt = fmt.Sprintf("it reads in two places, at (%.0f, %.0f) mm (%.0f%% like the name, located) and at (%.0f, %.0f) mm (%.0f%%): written twice, or a word like it", x0, y0, 100*m.sim, x1, y1, 100*m.twinSim)
			out[k].Notes = append(out[k].Notes, out[k].Doubt+"; the GM confirms which one it is")
		}
		if ev.refused() {
			out[k].Notes = append(out[k].Notes, fmt.Sprintf("read with only the name's letters, the ink reads %q at %.0f%% Tesseract confidence (%.0f%% as read): it may be another word", ev.forced.text, ev.forced.conf, ev.tess))
		}
		if conf < judge.WeakReadConfidence {
			out[k].Notes = append(out[k].Notes, fmt.Sprintf("weak location (%.0f%% likely right: %.0f%% that the ink is this skill's word, %.0f%% that its letters are placed right on it): confirm before ruling on it", 100*conf, 100*ev.identity(), 100*ev.outline()))
		}
		out[k].Notes = append(out[k].Notes, notes...)
	}
	return out, nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// centreMM is the centre of a region's ink (of the whole region for a clipped view), in mm
// in the sheet frame.
func (im *inkMap) centreMM(rg *region) (x, y float64) {
	if rg.full != nil {
		rg = rg.full
	}
	px, py := rg.fromUV((rg.u0+rg.u1)/2, (rg.v0+rg.v1)/2)
	return (px + 0.5) / im.pxPerMM, (py + 0.5) / im.pxPerMM
}

// Location confidence: a logistic model of the probability that a located skill lies on
// its own word with every letter's centre on that letter's ink (within 1 mm), fitted on 854
// located skills whose truth is known: 40 rendered synthetic sheets (seeds 100-139), 20
// photographed ones (seeds 1100-1119) and the fresh photos of the generated audit sets
// (testdata/images/synth, seeds 2, 3, 5 and 6); fitted leaving each of these seven sets
// out in turn, the coefficients moved by less than a third and the predictions of the set
// left out stayed within 0.1 of the fraction right in each bin (TestConfCalibDump dumps
// the evidence). What it measured: the read's similarity with the name and how much of the
// name it covers say most about the word; how the letters were divided says how often their
// outlines are right once the word is (separate marks 99%, cut along the baseline 89%, a
// letter left without ink 15%).
//
// The confidence answers two questions at once, which the judge needs apart: whether the
// ink is the skill's word at all (identity) and, if it is, whether its letters are cut
// right (outline). Each has a model of its own, fitted on the same skills (873 with 5
// declared skills that were not on their sheet and were placed on another word; see
// TestConfCalibDump): identity on whether the located letters lie on the skill's own word
// (their centre within half a cap height of the truth's), outline on whether every
// letter's centre is on its letter given that they do. The location confidence is never
// above the identity confidence (the word must be right for its letters to be).
const (
	calibBias   = -5.96
	calibSim    = 2.96  // per unit of similarity
	calibMargin = 2.69  // per unit of lead over the next skill, within ±calibMarginCap
	calibCover  = 5.22  // per unit of the name's letters read (at most 1)
	calibMarks  = 2.36  // letters from separate marks (against cut along the baseline)
	calibEmpty  = -3.40 // a letter left without ink of its own

	// The identity model: how the letters were divided said nothing more about the word
	// once the read was known (a letter left without ink: coefficient -0.4, within noise).
	identityBias   = -4.65
	identitySim    = 8.07 // per unit of similarity
	identityMargin = 6.16 // per unit of lead over the next skill, within ±calibMarginCap
	identityCover  = 2.07 // per unit of the name's letters read (at most 1)

	// The outline model, on the skills on their own word: separate marks 99% right, cut
	// along the baseline 89%, a letter left without ink 17%; a good read places the
	// cuts better (Tesseract's symbols are priors for them).
	outlineBias  = -4.46
	outlineMarks = 2.16  // letters from separate marks (against cut along the baseline)
	outlineEmpty = -3.43 // a letter left without ink of its own
	outlineSim   = 3.72  // per unit of similarity
	outlineCover = 3.73  // per unit of the name's letters read (at most 1)

	calibMarginCap = 0.2
	// ambiguousConf caps the confidence of a read whose ink reads nearly as well like
	// another declared skill that was not found (within ambiguousLead): 1 of the 5 such
	// reads measured was right.
	ambiguousConf = 0.3
	ambiguousLead = 0.1
	// twinConf caps the identity of a skill that reads nearly as well (within ambiguousLead)
	// on other ink no skill took (see markTwins): at most one of the two places is the
	// skill's, and which one the reads do not tell, so it is a coin flip at best.
	twinConf = 0.45
	// A read that is not good (under goodSim) is read again with only the name's letters
	// allowed (one more read). A word that is the name misread keeps Tesseract's confidence
	// (its letters are the name's); another word forced into the name's letters loses it.
	// Measured (30 rendered sheets, seeds 100-129, and TestSkillOnAnotherWord's "Hound" on
	// "hand"): a fall of refusedDrop to under refusedConfMax (or nothing read) on 12 of the
	// 15 Hound placements ("hand" read "hnd" at 66 against 99.5) and on 2 of the 56 skills
	// read under goodSim on their own word (Forgery read "orery" at 68.5 against 92.9,
	// Herbalism "Hehism"); it caps the identity at refusedConf.
	refusedDrop    = 15.0
	refusedConfMax = 80.0
	refusedConf    = 0.3
	// lowSimConf caps the confidence of a read less than lowSim like the name: on the
	// skills written on the sheet such reads were right 39 times in 69, and a declared
	// skill that is not on the sheet is placed on another word with such a read (3 of 40
	// rendered sheets, seed 100, two of them reading all their letters, which the model
	// above would have trusted).
	lowSim     = 0.6
	lowSimConf = 0.5
	// cutConf scales the confidence of a read not good when the search was cut short: a
	// better reading of the skill may lie in the ink left unread.
	cutConf = 0.8
)

// cover is the fraction of the name's letters the read holds, at most 1.
func (ev evidence) cover() float64 {
	if ev.nameLen == 0 {
		return 0
	}
	return math.Min(1, float64(ev.readLen)/float64(ev.nameLen))
}

func (ev evidence) clippedMargin() float64 {
	return math.Max(-calibMarginCap, math.Min(calibMarginCap, ev.margin))
}

func logistic(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// confidence is the located skill's confidence, 0..1: the estimated probability that it
// lies on its own word with its letters' outlines right (see calibBias). It is at most
// the identity confidence.
func (ev evidence) confidence() float64 {
	z := calibBias + calibSim*ev.sim + calibMargin*ev.clippedMargin() + calibCover*ev.cover()
	switch ev.div {
	case byMarks:
		z += calibMarks
	case withEmptyLetter:
		z += calibEmpty
	}
	c := logistic(z)
	if ev.cut {
		c *= cutConf
	}
	if ev.sim < lowSim {
		c = math.Min(c, lowSimConf)
	}
	return math.Min(c, ev.identity())
}

// identity is the estimated probability, 0..1, that the located ink is the skill's own
// word, whether or not its letters are cut right (see calibBias). The doubts about the
// word itself scale or cap it as they do the location confidence: a search cut short, the
// same ink reading nearly as well like a declared skill that was not found. (A read under
// lowSim like the name is left to the model: 86% of them lay on their own word, and
// nothing measured told the others apart.)
func (ev evidence) identity() float64 {
	c := logistic(identityBias + identitySim*ev.sim + identityMargin*ev.clippedMargin() + identityCover*ev.cover())
	if ev.cut {
		c *= cutConf
	}
	if ev.ambiguous() {
		c = math.Min(c, ambiguousConf)
	}
	if ev.twin {
		c = math.Min(c, twinConf)
	}
	if ev.refused() {
		c = math.Min(c, refusedConf)
	}
	return c
}

// refused reports whether the ink, read again with only the name's letters allowed, reads
// as some other word forced into them: nothing read, or Tesseract's confidence falls by
// refusedDrop and below refusedConfMax (see refusedConf).
func (ev evidence) refused() bool {
	if ev.forced == nil {
		return false
	}
	return len(ev.forced.syms) == 0 || ev.forced.conf < ev.tess-refusedDrop && ev.forced.conf < refusedConfMax
}

// outline is the estimated probability, 0..1, that every letter's centre lies on its
// letter's ink, given that the located ink is the skill's word (see calibBias).
func (ev evidence) outline() float64 {
	z := outlineBias + outlineSim*ev.sim + outlineCover*ev.cover()
	switch ev.div {
	case byMarks:
		z += outlineMarks
	case withEmptyLetter:
		z += outlineEmpty
	}
	return logistic(z)
}

// ambiguous reports whether a read that is not good reads nearly as well like another
// declared skill that was not found: the ink may be that skill's.
func (ev evidence) ambiguous() bool {
	return ev.sim < goodSim && ev.rival > 0 && ev.rival >= ev.sim-ambiguousLead
}

type skillMatch struct {
	view   *view
	cand   *candidate // the candidate view belongs to
	sim    float64
	margin float64 // similarity lead over the best other skill for the same view
	// twin, when not nil, is other ink, taken by no skill, that reads nearly as well like
	// the skill (within ambiguousLead): the skill written twice, or a similar word, so which
	// of the two it is cannot be told from the reads (see markTwins).
	twin    *view
	twinSim float64
}

// matchSkills assigns candidates to skills, then, when a skill is unmatched or poorly read,
// adds pairs of regions in line with each other read as one (a skill written as two pieces
// far apart, or a word split at a wide letter gap) and assigns again.
func (l *Locator) matchSkills(im *inkMap, regions []*region, cands []*candidate, skills, folded []string, whitelist string, letters []int, b *budget) ([]skillMatch, []*candidate) {
	res := assignSkills(im, cands, skills, folded, b.floor)
	weak := false
	for k := range skills {
		if latinScript(skills[k]) && (res[k].view == nil || res[k].sim < 0.8) {
			weak = true
		}
	}
	if !weak {
		return res, cands
	}
	// Pairs are made of the regions whose ink was read (or a part of it).
	seenRg := map[*region]bool{}
	for _, c := range cands {
		seenRg[c.rg] = true
	}
	var extra []*candidate
	var views []*view
	// joined is the candidate of regions idx read as one, nil when they do not make a region.
	joined := func(idx ...int) *candidate {
		c := &candidate{}
		var comps []int
		for _, i := range idx {
			c.parts = append(c.parts, allParts(i)...)
			comps = append(comps, regions[i].comps...)
		}
		if c.rg = im.newRegion(comps); c.rg == nil {
			return nil
		}
		return c
	}
	type pair struct {
		i, j int
		c    *candidate
	}
	var pairs []pair
	for i := range regions {
		if !seenRg[regions[i]] {
			continue
		}
		for j := i + 1; j < len(regions); j++ {
			if !seenRg[regions[j]] {
				continue
			}
			if !inLine(regions[i], regions[j]) {
				continue
			}
			if c := joined(i, j); c != nil {
				pairs = append(pairs, pair{i, j, c})
			}
		}
	}
	// Three or four pieces: a group and one more region in line with the group read as one
	// (a large word in a script with wide gaps between its letters, "Herbalism" at 16 mm in
	// three regions, its pieces too short for their own directions to tell the line;
	// "Cryptography" at 6.7 mm in four, its C and two letters of its end apart).
	seenN := map[string]bool{}
	var lines []*candidate
	type group struct {
		idx []int
		c   *candidate
	}
	var grow []group
	for _, p := range pairs {
		grow = append(grow, group{[]int{p.i, p.j}, p.c})
	}
	for n := 3; n <= maxLinePieces; n++ {
		var next []group
		for _, g := range grow {
			for k := range regions {
				if slices.Contains(g.idx, k) || !seenRg[regions[k]] {
					continue
				}
				idx := append(append([]int{}, g.idx...), k)
				sort.Ints(idx)
				key := fmt.Sprint(idx)
				if seenN[key] || !inLine(g.c.rg, regions[k]) {
					continue
				}
				seenN[key] = true
				if c := joined(idx...); c != nil {
					lines = append(lines, c)
					next = append(next, group{idx, c})
				}
			}
		}
		grow = next
	}
	for _, p := range pairs {
		p.c.addViews(im, &views)
		extra = append(extra, p.c)
	}
	for _, c := range lines {
		c.addViews(im, &views)
		extra = append(extra, c)
	}
	all := cands
	if len(extra) > 0 {
		read := l.readRanked(im, im.rankCandidates(extra, letters), b, whitelist, func(read []*candidate) bool {
			return allPlaced(assignSkills(im, append(append([]*candidate{}, cands...), read...), skills, folded, b.floor), skills)
		})
		all = append(append([]*candidate{}, cands...), read...)
		res = assignSkills(im, all, skills, folded, b.floor)
	}
	return l.rereadClipped(im, all, res, skills, folded, whitelist, letters, b), all
}

// maxLinePieces is the most word regions read as one line (see matchSkills).
const maxLinePieces = 4

// Twin reads: when the search was cut short, the ink left unread may hold the skill written
// a second time (a form holding "STREET" twice: the second, as large as the first, was
// never read). The twinReads unread word regions shaped most like each located skill's ink
// (length along the line and core height, each within about twinShape in log units) are
// read, and the skills assigned again: a second place reading like the skill is then
// seen (markTwins).
const (
	twinReads  = 2
	twinShape  = 0.25
	twinBudget = 16 // the most reads of all twin looks together
)

// readTwins reads, when the search was cut short (b.cut), the unread whole candidates shaped
// like each located skill's ink (see twinReads), beyond the budget (at most twinBudget
// reads), and marks the skills they read like as twins.
func (l *Locator) readTwins(im *inkMap, cands, all []*candidate, res []skillMatch, skills, folded []string, whitelist string, b *budget) ([]skillMatch, []*candidate, error) {
	if !b.cut {
		return res, all, nil
	}
	read := map[*candidate]bool{}
	for _, c := range all {
		read[c] = true
	}
	shape := func(rg *region) (float64, float64) {
		return math.Log(rg.u1 - rg.u0 + 1), math.Log(math.Max(im.coreHeight(rg), 1))
	}
	var extra []*candidate
	var views []*view
	for _, m := range res {
		if m.cand == nil {
			continue
		}
		l0, c0 := shape(m.cand.rg)
		type near struct {
			c *candidate
			d float64
		}
		var ns []near
		for _, c := range cands {
			if read[c] || !c.whole {
				continue
			}
			l1, c1 := shape(c.rg)
			if d := math.Abs(l1-l0) + math.Abs(c1-c0); math.Abs(l1-l0) < twinShape && math.Abs(c1-c0) < twinShape {
				ns = append(ns, near{c, d})
			}
		}
		sort.Slice(ns, func(i, j int) bool { return ns[i].d < ns[j].d })
		for _, n := range ns[:min(len(ns), twinReads)] {
			if len(views)+len(n.c.views) > twinBudget {
				break
			}
			read[n.c] = true
			extra = append(extra, n.c)
			views = append(views, n.c.views...)
		}
	}
	if len(extra) == 0 {
		return res, all, nil
	}
	l.readAll(im, views, whitelist)
	b.used += len(views)
	for _, v := range views {
		if v.err != nil {
			return nil, nil, v.err
		}
	}
	// The assignment stands (a last look beyond the budget places no skill): a region read
	// here is only a twin, as markTwins would take it, of the skill it was read for.
	for k := range res {
		m := &res[k]
		if m.cand == nil || len([]rune(folded[k])) <= 2 {
			continue
		}
		for _, c := range extra {
			if v, s := c.bestView(folded[k]); v != nil && s >= b.floor && m.twinLike(s) {
				m.twin, m.twinSim = v, s
			}
		}
	}
	return res, append(append([]*candidate{}, all...), extra...), nil
}

// allPlaced reports whether every skill the model can read has a good read.
func allPlaced(res []skillMatch, skills []string) bool {
	for k, s := range skills {
		if latinScript(s) && (res[k].view == nil || res[k].sim < goodSim) {
			return false
		}
	}
	return true
}

// clippedMinSimilar is the least similarity a skill takes a clipped read at (see rereadClipped).
var clippedMinSimilar = 0.55

// clipPass enables rereadClipped.
var clipPass = true

// altZoom is the size, relative to the usual, at which rereadClipped reads once more the
// orientation of each free candidate that read most like a missing skill (0: not). Tesseract's
// read of a handwritten word flips on a grey level of stroke (the sample's "written": "wtiNen"
// or "NwtiNen" as the sheet-wide ink threshold moves from 44 to 46): a look at another size
// is a second sample, pooled with the first (see bestView).
var altZoom = 1.25

// rereadClipped reads, when a skill is still not found, the ink no skill took once more
// without its descenders (see clipped), as another orientation of each candidate, and the
// orientation that read most like a missing skill at another size (altZoom), pooled with
// that orientation's reads; then assigns again.
func (l *Locator) rereadClipped(im *inkMap, all []*candidate, res []skillMatch, skills, folded []string, whitelist string, letters []int, b *budget) []skillMatch {
	var missing []string
	for k := range skills {
		if clipPass && latinScript(skills[k]) && res[k].view == nil {
			missing = append(missing, folded[k])
		}
	}
	if len(missing) == 0 {
		return res
	}
	used := map[int]bool{}
	for _, m := range res {
		if m.view == nil {
			continue
		}
		for _, p := range ownerOf(all, m.view).parts {
			used[p] = true
		}
	}
	// Each free candidate's clipped views, read as a stand-in candidate of its own (ranked
	// and within the budget) and then added to the candidate's views.
	var shadows []*candidate
	owner := map[*candidate]*candidate{}
	for _, c := range all {
		free := true
		for _, p := range c.parts {
			free = free && !used[p]
		}
		if !free {
			continue
		}
		sh := &candidate{rg: c.rg, parts: c.parts}
		seen := map[*region]bool{}
		for _, v := range c.views {
			if seen[v.rg] || v.rd == nil {
				continue
			}
			seen[v.rg] = true
			cl := im.clipped(v.rg)
			if cl == nil {
				continue
			}
			for _, psm := range readModes {
				sh.views = append(sh.views, &view{rg: cl, psm: psm})
			}
		}
		sh.views = append(sh.views, im.secondLook(c, missing)...)
		if len(sh.views) > 0 {
			shadows = append(shadows, sh)
			owner[sh] = c
		}
	}
	if len(shadows) == 0 {
		return res
	}
	read := l.readRanked(im, im.rankCandidates(shadows, letters), b, whitelist, func([]*candidate) bool { return false })
	for _, sh := range read {
		c := owner[sh]
		c.views = append(c.views, sh.views...)
	}
	return assignSkills(im, all, skills, folded, b.floor)
}

// secondLook is the views of candidate c read once more for the missing skills (folded):
// the orientation that read most like one of them at another size (altZoom) and along its
// baseline (tiltedViews). When that read is no better than a chance likeness (under
// minSimilar) the way up is a guess, and the opposite orientation is read too, at altZoom
// and turned by smallTilts, as a look of its own. lead-synth11 case-019 "Dancing" (dkg,
// cap 5.2 mm, pencil) read 14% like its name at its likeliest way up ("Gaot") and 58%
// ("Dorcings") turned 8 degrees from the other way up; it had been found only while
// another missing skill's likeness chose that way up.
func (im *inkMap) secondLook(c *candidate, missing []string) []*view {
	zv, zs := c.likeliest(missing)
	if zv == nil {
		return nil
	}
	var out []*view
	look := func(rg *region) {
		if altZoom > 0 {
			for _, psm := range readModes {
				out = append(out, &view{rg: rg, psm: psm, zoom: altZoom})
			}
		}
	}
	look(zv.rg)
	out = append(out, im.tiltedViews(zv.rg)...)
	if zs < minSimilar {
		// A look of its own (not pooled with the reads that lost to zv's).
		op := zv.rg.rotated(math.Pi, im.w)
		look(op)
		out = append(out, im.smallTiltViews(op)...)
	}
	return out
}

// likeliest is the candidate's unclipped view that reads most like one of the names
// (folded), and its similarity; nil when none reads at all like any.
func (c *candidate) likeliest(names []string) (*view, float64) {
	var best *view
	bs := 0.0
	for _, n := range names {
		if v, s := c.bestView(n); v != nil && v.rg.full == nil && s > bs {
			best, bs = v, s
		}
	}
	return best, bs
}

// pieceCore bounds the letter size pieceRuns measures gaps against, in core heights.
var pieceCore = 1.6

// maxPieces bounds the pieces a region is cut into at its widest gaps.
const maxPieces = 6

// allParts is every piece id of region i (see pieceRuns).
func allParts(i int) []int {
	out := make([]int, maxPieces)
	for k := range out {
		out[k] = i*maxPieces + k
	}
	return out
}

// pieceRuns cuts a region at its wide gaps along the line (spaces between words) into pieces
// and returns every run of consecutive pieces as a candidate: a line holding two skills, or a
// skill of two words, are then both matched. Piece k of region i has part id i*maxPieces+k.
func (im *inkMap) pieceRuns(rg *region, ri int) []*candidate {
	type span struct {
		u0, u1 float64
		comps  []int
	}
	var spans []*span
	for _, c := range rg.comps {
		sp := &span{u0: math.Inf(1), u1: math.Inf(-1), comps: []int{c}}
		for _, p := range im.comps[c].pix {
			u, _ := rg.toUV(float64(int(p)%im.w), float64(int(p)/im.w))
			sp.u0, sp.u1 = math.Min(sp.u0, u), math.Max(sp.u1, u)
		}
		spans = append(spans, sp)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].u0 < spans[j].u0 })
	// Clusters of overlapping spans, and the gaps between them.
	var clusters []*span
	for _, sp := range spans {
		if n := len(clusters); n > 0 && sp.u0 <= clusters[n-1].u1 {
			c := clusters[n-1]
			c.u1 = math.Max(c.u1, sp.u1)
			c.comps = append(c.comps, sp.comps...)
			continue
		}
		clusters = append(clusters, &span{u0: sp.u0, u1: sp.u1, comps: append([]int{}, sp.comps...)})
	}
	// The letter size: the region's height, but no more than pieceCore core heights (a line
	// running into the next word at a slant is much higher than its letters).
	h := rg.v1 - rg.v0
	if pieceCore > 0 {
		h = math.Min(h, pieceCore*im.coreHeight(rg))
	}
	type gap struct {
		after int
		size  float64
	}
	var gaps []gap
	for i := 0; i+1 < len(clusters); i++ {
		if g := clusters[i+1].u0 - clusters[i].u1; g >= 0.22*h {
			gaps = append(gaps, gap{i, g})
		}
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].size > gaps[j].size })
	if len(gaps) > maxPieces-1 {
		gaps = gaps[:maxPieces-1]
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].after < gaps[j].after })
	var pieces [][]int
	start := 0
	for _, g := range append(gaps, gap{after: len(clusters) - 1}) {
		var comps []int
		for _, c := range clusters[start : g.after+1] {
			comps = append(comps, c.comps...)
		}
		pieces = append(pieces, comps)
		start = g.after + 1
	}
	whole := &candidate{rg: rg, parts: allParts(ri), whole: true}
	if len(pieces) == 1 {
		return []*candidate{whole}
	}
	out := []*candidate{whole}
	for a := 0; a < len(pieces); a++ {
		var comps []int
		for b := a; b < len(pieces); b++ {
			comps = append(comps, pieces[b]...)
			if a == 0 && b == len(pieces)-1 {
				continue // the whole region
			}
			sub := im.newRegion(append([]int{}, comps...))
			if sub == nil {
				continue
			}
			c := &candidate{rg: sub}
			for k := a; k <= b; k++ {
				c.parts = append(c.parts, ri*maxPieces+k)
			}
			out = append(out, c)
		}
	}
	return out
}

// addViews makes the candidate's views (orientations x read modes) and adds them to all.
func (c *candidate) addViews(im *inkMap, all *[]*view) {
	for _, o := range orientations(c.rg, im.w) {
		for _, psm := range readModes {
			v := &view{rg: o, psm: psm}
			c.views = append(c.views, v)
			*all = append(*all, v)
		}
	}
}

func ownerOf(cands []*candidate, v *view) *candidate {
	for _, c := range cands {
		for _, x := range c.views {
			if x == v {
				return c
			}
		}
	}
	return nil
}

// inLine reports whether two regions could be two pieces of one line of writing: similar
// reading direction, similar letter height, and a gap of at most about two letter heights
// along that direction. The direction is the larger region's (its box's area): a short
// word's axis is turned by its descender loops and capitals (the "ining" of a large "Dog
// Training", its g's loop as large as a letter, lay 25 degrees off its line), a long one's
// much less, and a piece of a letter or two lies along its tallest stroke, across the line
// (a piece of a "Cryptography" written with gaps, 51x16 px at 53 degrees to its line). The
// smaller region is measured by its box's extent along that direction and across it; when
// it is longer than the larger's letters are high, its own direction must be within 45
// degrees of the line's ("Dancing" written down the sheet beside the start of
// "Intimidation" is not in its line). A piece of letters without ascenders or descenders
// (the "on" of "Intimidation", 40 px high beside the 108 px of "Intimidati", whose core band
// is 48 px) is as high as the other's core band, not its ascenders: the heights are also
// compared with the larger's core band (region.core; 0 when not measured, see coreHigh).
func inLine(a, b *region) bool {
	if (b.u1-b.u0)*(b.v1-b.v0) > (a.u1-a.u0)*(a.v1-a.v0) {
		a, b = b, a
	}
	// b's box half extents along a's direction (hu) and across it (hv).
	c := math.Abs(a.ux*b.ux + a.uy*b.uy)
	s := math.Abs(a.ux*b.uy - a.uy*b.ux)
	lb, wb := b.u1-b.u0, b.v1-b.v0
	hu, hv := (c*lb+s*wb)/2, (s*lb+c*wb)/2
	ha, hb := a.v1-a.v0, 2*hv
	// A piece longer than a's letters are high is a word with a direction of its own: it
	// must run within 45 degrees of a's line; a word written across it is another line. (Its
	// axis can be 35 degrees off: the middle piece of a large "Herbalism", turned by its
	// ascenders.)
	if lb > ha && s > math.Sqrt2/2 {
		return false
	}
	if math.Max(ha, hb) > 2.2*math.Min(ha, hb) && !coreHigh(a, b, hb) {
		return false
	}
	// The letter height the gap and the offset are measured in: b's own, not its box's
	// across a's line (a piece tilted off the line is not taller for it).
	h := math.Max(ha, wb)
	d := math.Hypot(a.cx-b.cx, a.cy-b.cy)
	dx, dy := (b.cx-a.cx)/d, (b.cy-a.cy)/d
	along := math.Abs(dx*a.ux+dy*a.uy) * d
	if along-(a.u1-a.u0)/2-hu > 2.5*h {
		return false
	}
	// The line through the centres runs along a's direction (or the regions are short).
	off := math.Abs(-dx*a.uy+dy*a.ux) * d
	return off < 0.8*h
}

// coreHigh reports whether b, hb high across a's line and lower than a, is a piece of a's
// line written without ascenders or descenders: at least 0.8 of a's core band high, and its
// own core band at least a's over 2.2 (letters of the same size).
func coreHigh(a, b *region, hb float64) bool {
	return b.core > 0 && hb < a.v1-a.v0 && hb >= 0.8*a.core && a.core <= 2.2*b.core
}

// exhaustiveSkills is the most skills searched exhaustively; more (a discovery list, a test
// declaring every word of a page) are assigned greedily, best pair first.
const exhaustiveSkills = 10

// assignGreedy takes (skill, candidate) pairs best first, skipping pairs whose skill is
// taken or whose ink is.
func assignGreedy(opts [][]option, order []int, nSkills int) []skillMatch {
	type pair struct {
		k int
		o option
	}
	var all []pair
	for _, k := range order {
		for _, o := range opts[k] {
			all = append(all, pair{k, o})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].o.score > all[j].o.score })
	res := make([]skillMatch, nSkills)
	used := map[int]bool{}
	for _, p := range all {
		if res[p.k].view != nil {
			continue
		}
		clash := false
		for _, q := range p.o.cand.parts {
			clash = clash || used[q]
		}
		if clash {
			continue
		}
		for _, q := range p.o.cand.parts {
			used[q] = true
		}
		res[p.k] = skillMatch{view: p.o.view, cand: p.o.cand, sim: p.o.sim, margin: p.o.margin}
	}
	return markTwins(opts, res)
}

// markTwins sets each matched skill's twin: the best other option of that skill whose ink is
// neither its match's nor another skill's, read at least as well as the match less
// ambiguousLead, or well (goodSim) on its own, and at least lowSim like the name. The
// assignment picks the better of the two, but a difference that small is within what one
// read to the next varies, and a good read would have placed the skill by itself: the skill
// reads in two places. (A read under lowSim is as often another word: "Brewing" read 50%
// like its name on its own word had another word 43% like it.)
func markTwins(opts [][]option, res []skillMatch) []skillMatch {
	taken := map[int]int{} // part -> skill
	for k, m := range res {
		if m.cand != nil {
			for _, p := range m.cand.parts {
				taken[p] = k
			}
		}
	}
	for k := range res {
		m := &res[k]
		if m.cand == nil {
			continue
		}
		for _, o := range opts[k] {
			if o.cand == m.cand || !m.twinLike(o.sim) {
				continue
			}
			free := true
			for _, p := range o.cand.parts {
				if _, ok := taken[p]; ok {
					free = false
					break
				}
			}
			if free {
				m.twin, m.twinSim = o.view, o.sim
			}
		}
	}
	return res
}

// twinLike reports whether other ink read sim like the skill is a better twin than m's: at
// least lowSim, and within ambiguousLead of the match or at least goodSim (see markTwins).
func (m *skillMatch) twinLike(sim float64) bool {
	return sim >= max(lowSim, min(m.sim-ambiguousLead, goodSim)) && sim > m.twinSim
}

// option is one candidate for one skill.
type option struct {
	cand   *candidate
	view   *view
	sim    float64
	score  float64
	margin float64
}

// assignSkills picks, for each skill, at most one candidate, no two sharing a piece of ink,
// maximising the summed score (exhaustive search over each skill's best few options, with
// branch and bound). Pairs below minSimilar, or the sheet's floor (chanceFloor), are never
// taken.
func assignSkills(im *inkMap, cands []*candidate, skills, folded []string, floor float64) []skillMatch {
	const top = 6
	opts := make([][]option, len(skills))
	for i, c := range cands {
		_ = i
		sims := make([]float64, len(skills))
		vs := make([]*view, len(skills))
		for k := range skills {
			if !latinScript(skills[k]) {
				continue
			}
			vs[k], sims[k] = c.bestView(folded[k])
		}
		for k := range skills {
			if sims[k] < max(minSimilar, floor) || vs[k] == nil {
				continue
			}
			// A one- or two-letter skill is not a piece of a longer word: its ink must be
			// about as short as its letters, and what was read must span it; a single
			// letter must be a word region of its own.
			if n := len([]rune(folded[k])); n <= 2 && (n == 1 && !c.whole || !im.shortWordFits(vs[k], n)) {
				continue
			}
			// A weak read that also covers only part of the name is a piece of some other
			// word forced into the declared letters, not this skill.
			cover := float64(len([]rune(vs[k].rd.folded()))) / float64(len([]rune(folded[k])))
			if sims[k] < 0.5 && cover < 0.6 {
				continue
			}
			// A clipped or tilted read comes from a last search among the ink no skill
			// took, where a weak likeness is most likely another word: it must read well.
			if vs[k].rg.lastLook() && sims[k] < clippedMinSimilar {
				continue
			}
			second := 0.0
			for k2 := range skills {
				if k2 != k {
					second = math.Max(second, sims[k2])
				}
			}
			// Longer names matched well weigh more, so short names are not pulled onto
			// long words; a whole word read well beats a piece of it read perfectly.
			n := float64(len([]rune(folded[k])))
			sc := (sims[k] - 0.3) * (1 + 0.05*n)
			opts[k] = append(opts[k], option{cand: c, view: vs[k], sim: sims[k], score: sc, margin: sims[k] - second})
		}
	}
	order := make([]int, len(skills))
	bestOf := make([]float64, len(skills))
	for k := range skills {
		sort.Slice(opts[k], func(i, j int) bool { return opts[k][i].score > opts[k][j].score })
		if len(opts[k]) > top {
			opts[k] = opts[k][:top]
		}
		order[k] = k
		if len(opts[k]) > 0 {
			bestOf[k] = opts[k][0].score
		}
	}
	sort.Slice(order, func(i, j int) bool { return bestOf[order[i]] > bestOf[order[j]] })
	if len(skills) > exhaustiveSkills {
		return assignGreedy(opts, order, len(skills))
	}
	rest := make([]float64, len(order)+1)
	for i := len(order) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + bestOf[order[i]]
	}
	used := map[int]bool{}
	cur := make([]int, len(skills))
	best := make([]int, len(skills))
	for k := range cur {
		cur[k], best[k] = -1, -1
	}
	bestScore := -1.0
	var dfs func(i int, score float64)
	dfs = func(i int, score float64) {
		if score+rest[i] <= bestScore {
			return
		}
		if i == len(order) {
			bestScore = score
			copy(best, cur)
			return
		}
		k := order[i]
		for oi, o := range opts[k] {
			clash := false
			for _, p := range o.cand.parts {
				if used[p] {
					clash = true
					break
				}
			}
			if clash {
				continue
			}
			for _, p := range o.cand.parts {
				used[p] = true
			}
			cur[k] = oi
			dfs(i+1, score+o.score)
			cur[k] = -1
			for _, p := range o.cand.parts {
				delete(used, p)
			}
		}
		dfs(i+1, score)
	}
	dfs(0, 0)
	res := make([]skillMatch, len(skills))
	for k, oi := range best {
		if oi >= 0 {
			o := opts[k][oi]
			res[k] = skillMatch{view: o.view, cand: o.cand, sim: o.sim, margin: o.margin}
		}
	}
	return markTwins(opts, res)
}

// outline is the convex hull of the pixels' squares (or, when there are none, the band lo..hi
// over the region's height in its reading frame), in mm in the sheet frame. Pixel (x, y)
// covers [x, x+1) x [y, y+1) px.
func (im *inkMap) outline(rg *region, pix []int32, lo, hi float64) []judge.Point {
	var pts []judge.Point
	if len(pix) == 0 {
		for _, c := range [4][2]float64{{lo, rg.v0}, {hi, rg.v0}, {hi, rg.v1}, {lo, rg.v1}} {
			x, y := rg.fromUV(c[0], c[1])
			pts = append(pts, judge.Point{X: round3((x + 0.5) / im.pxPerMM), Y: round3((y + 0.5) / im.pxPerMM)})
		}
		return pts
	}
	// The outline follows the ink's body, not the faint halo blur leaves around strokes
	// (pixels kept for connectivity only): darkness at least outlineLevel of full ink.
	var body []int32
	for _, p := range pix {
		if float64(im.dark[p]) >= outlineLevel*255 {
			body = append(body, p)
		}
	}
	if len(body) >= len(pix)/3 {
		pix = body
	}
	// Row extremes are enough for the hull.
	rows := map[int][2]int{}
	for _, p := range pix {
		x, y := int(p)%im.w, int(p)/im.w
		r, ok := rows[y]
		if !ok {
			r = [2]int{x, x}
		}
		r[0], r[1] = min(r[0], x), max(r[1], x)
		rows[y] = r
	}
	var corners []judge.Point
	for y, r := range rows {
		fy := float64(y)
		corners = append(corners,
			judge.Point{X: float64(r[0]), Y: fy}, judge.Point{X: float64(r[0]), Y: fy + 1},
			judge.Point{X: float64(r[1] + 1), Y: fy}, judge.Point{X: float64(r[1] + 1), Y: fy + 1})
	}
	for _, p := range convexHull(corners) {
		pts = append(pts, judge.Point{X: round3(p.X / im.pxPerMM), Y: round3(p.Y / im.pxPerMM)})
	}
	return pts
}

// outlineLevel is the fraction of full ink darkness from which a pixel counts in an outline.
var outlineLevel = 0.35

// convexHull is the hull of the points, counter-clockwise in a y-up frame (monotone chain),
// without collinear points.
func convexHull(p []judge.Point) []judge.Point {
	if len(p) < 3 {
		return p
	}
	sort.Slice(p, func(i, j int) bool {
		if p[i].X != p[j].X {
			return p[i].X < p[j].X
		}
		return p[i].Y < p[j].Y
	})
	cross := func(o, a, b judge.Point) float64 {
		return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X)
	}
	h := make([]judge.Point, 0, 2*len(p))
	for _, q := range p {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lo := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- {
		q := p[i]
		for len(h) >= lo && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h[:len(h)-1]
}

// shortWordFits reports whether the view's ink can be a word of n (one or two) letters read
// whole: read along a sheet edge (within shortAngle degrees), no longer along the line than
// shortLength times its height nor shortCore core heights per letter, and the read symbols
// spanning at least shortSpan of it (Tesseract reading one letter of a longer word, "a" of
// "hand", leaves the rest of the ink unread).
func (im *inkMap) shortWordFits(v *view, n int) bool {
	rg := v.rg
	if rg.lastLook() {
		// A clipped view is for long words' descender loops, a tilted one for the axis a
		// long word's capital and descenders turn (tilt.go): neither is a letter or two
		// (a tilted view read "E" out of "Text" on breta_page09: TestSingleLettersNotWords).
		return false
	}
	// A letter or two has no reading direction of its own to measure: read along one of the
	// sheet's edges, as people write on a sheet; a diagonal read of a squarish word ("by"
	// read as "a" at 45 degrees) is not one.
	if d := math.Abs(math.Remainder(rg.angle(), math.Pi/2)); d > shortAngle*math.Pi/180 {
		return false
	}
	if rg.u1-rg.u0+1 > shortLength*float64(n)*(rg.v1-rg.v0+1) {
		return false
	}
	// Nor longer than shortCore core heights (x-height) per letter: joined-up letters.
	if im.inkPerLetter(rg, n) > shortCore {
		return false
	}
	return readSpan(v) >= shortSpan
}

const (
	shortLength = 1.5
	shortSpan   = 0.6
	shortAngle  = 25.0
	shortCore   = 2.5
)

// readSpan is the fraction of the ink's length along the reading direction that the read
// symbols span, first to last (crop pixels).
func readSpan(v *view) float64 {
	if v.rd == nil || len(v.rd.syms) == 0 || v.cr == nil {
		return 0
	}
	x0, x1 := math.MaxInt, math.MinInt
	for _, s := range v.rd.syms {
		x0, x1 = min(x0, s.box.Min.X), max(x1, s.box.Max.X)
	}
	ink := (v.rg.u1 - v.rg.u0 + 1) * v.cr.scale
	if v.cr.shear != 0 {
		// The writing drawn upright: its length is the crop's.
		ink = float64(v.cr.w) - 2*v.cr.margin
	}
	return math.Min(1, float64(x1-x0)/math.Max(ink, 1))
}

// exactRead reads v's region again with only name's letters allowed, in the other read mode,
// at 1.25 times the size in both modes and at 0.8 times in v's, and returns the first view
// that reads the name exactly (nil when none does): its symbols are then the priors the
// letters are cut by (symbolCentres), one per letter, where the read not good gave fewer.
// Measured on the fresh photos of the project set and seeds 10-13 (523 located skills): 35
// have such a read; 2 skills' letters went from wrong to right by the truth (Intimidation
// I*timidation, Horse Riding HorseR*ding), one came closer (Tea Ceremony, worst letter 26 to
// 15 mm off), none got worse. It is not evidence for the word or its cuts by itself: 5 of the
// 35 still had a letter off. "Hound" written nowhere, placed on "hand" (TestSkillOnAnotherWord,
// 15 sheets), never read "hound" in 60 such reads ("hnd", "hond", "hd", ...).
func (l *Locator) exactRead(im *inkMap, v *view, name, folded string) (*view, error) {
	wl := whitelistFor([]string{name})
	psm := v.psm
	if psm == "" {
		psm = "7"
	}
	other := "13"
	if psm == "13" {
		other = "7"
	}
	tries := []struct {
		psm  string
		zoom float64
	}{{other, 0}, {psm, 1.25}, {other, 1.25}, {psm, 0.8}}
	for _, t := range tries {
		cr := v.cr
		if t.zoom > 0 {
			cr = im.renderAt(v.rg, t.zoom)
		}
		rd, err := l.read(cr, wl, t.psm)
		if err != nil {
			return nil, err
		}
		if rd.folded() == folded {
			return &view{rg: v.rg, psm: t.psm, zoom: t.zoom, cr: cr, rd: rd}, nil
		}
	}
	return nil, nil
}
