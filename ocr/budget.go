package ocr

import (
	"math"
	"sort"
)

// Bounding the reads. A text-dense page (a printed page photographed as a sheet) holds
// hundreds of word regions; reading each at every orientation and in both modes took a
// minute and more. Candidates are read best first instead, ranked by how plausibly their
// ink can hold one of the declared skills (ink length for the letter count against the
// writing's letter height), and the search stops when every skill is placed with a good
// read or when readBudget reads are spent.

// readBudget is the most Tesseract reads one Locate makes (all passes together) for up to
// six declared skills; each skill beyond six adds budgetPerSkill. A rendered sheet of six
// skills needs about 40-140.
var readBudget = 280

const budgetPerSkill = 30

// goodSim is the similarity at which a skill counts as placed for stopping the search early.
const goodSim = 0.85

// readBatch is how many reads are made between two checks of whether every skill is placed.
const readBatch = 48

// Ink per letter: a word's length along its reading direction divided by its core height
// (x-height) and its letter count. Measured on rendered handwriting fonts (any angle, 5-18
// mm) it lies between about 0.5 and 2.2 for the true word; a region far outside holds many
// more or many fewer letters than the skill.
const (
	perLetterLo = 0.45
	perLetterHi = 2.6
)

// inkPerLetter is the region's length along its reading direction per core height per letter.
func (im *inkMap) inkPerLetter(rg *region, letters int) float64 {
	core := math.Max(im.coreHeight(rg), 1)
	return (rg.u1 - rg.u0 + 1) / (core * float64(max(1, letters)))
}

// lengthFit is how far (in natural log units, 0 inside the usual range) a length-per-letter
// ratio lies from the range a word of the right letter count shows.
func lengthFit(r float64) float64 {
	switch {
	case r < perLetterLo:
		return math.Log(perLetterLo / r)
	case r > perLetterHi:
		return math.Log(r / perLetterHi)
	}
	return 0
}

// budget counts the reads of one Locate.
type budget struct {
	limit, used int
	cut         bool // some candidate was left unread for want of budget
	total       int  // reads the full search would have made
	// floor is the least similarity a skill is taken at on this sheet (see chanceFloor).
	floor float64
}

// chanceFloor is the least similarity a read must have to place a skill on a sheet with n
// candidate words for the given number of declared skills. A handwritten sheet holds its
// skills and little else (two or three candidates a skill, pieces included); a text-dense
// page holds hundreds of words, and among so many some word reads half like any name by
// chance ("Guiado" for Guide, "sottae" for Notice on a printed page): the floor rises with
// the candidates per skill beyond denseFrom, to at most denseFloor (a printed page: "ligt"
// for List reads 75% like it).
func chanceFloor(n, skills int) float64 {
	r := float64(n) / float64(max(1, skills))
	if r <= denseFrom {
		return minSimilar
	}
	return math.Min(denseFloor, minSimilar+0.15*math.Log2(r/denseFrom))
}

const (
	denseFrom  = 8
	denseFloor = 0.8
)

func newBudget(nSkills int) *budget {
	return &budget{limit: readBudget + budgetPerSkill*max(0, nSkills-6)}
}

func (b *budget) left() int { return max(0, b.limit-b.used) }

// rankCandidates orders candidates by how plausibly their ink holds one of the skills
// (letters: each skill's letter count), best first: the smallest length misfit over the
// skills, along the region's reading direction or, for squarish regions whose direction is
// unsure, across it; then the larger writing first (a declared skill is written to be read,
// print and scribbles around it are smaller), then fewer reads.
func (im *inkMap) rankCandidates(cands []*candidate, letters []int) []*candidate {
	type ranked struct {
		c     *candidate
		fit   float64
		core  float64
		views int
	}
	rs := make([]ranked, len(cands))
	for i, c := range cands {
		rg := c.rg
		core := math.Max(im.coreHeight(rg), 1)
		long, short := rg.u1-rg.u0+1, rg.v1-rg.v0+1
		fit := math.Inf(1)
		for _, n := range letters {
			if n <= 0 {
				continue
			}
			fit = math.Min(fit, lengthFit(long/(core*float64(n))))
			if long < squareWords*short {
				// Read across: the letter height is then about the region's length.
				fit = math.Min(fit, lengthFit(short/(math.Max(0.4*long, 1)*float64(n))))
			}
		}
		rs[i] = ranked{c: c, fit: fit, core: core / im.pxPerMM, views: len(c.views)}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		// Misfits within 0.25 (about 30%) count as equal.
		fa, fb := math.Round(a.fit/0.25), math.Round(b.fit/0.25)
		if fa != fb {
			return fa < fb
		}
		if ca, cb := math.Round(2*math.Log(a.core)), math.Round(2*math.Log(b.core)); ca != cb {
			return ca > cb
		}
		return a.views < b.views
	})
	out := make([]*candidate, len(rs))
	for i, r := range rs {
		out[i] = r.c
	}
	return out
}

// readRanked reads the candidates' views best candidate first, within the budget, checking
// after each batch whether every skill is already placed with a good read (then it stops).
// It returns the candidates read (only these take part in the assignment).
func (l *Locator) readRanked(im *inkMap, ranked []*candidate, b *budget, whitelist string, done func(read []*candidate) bool) []*candidate {
	var read []*candidate
	total := 0
	for _, c := range ranked {
		total += len(c.views)
	}
	b.total += total
	if total <= b.left() {
		var views []*view
		for _, c := range ranked {
			views = append(views, c.views...)
		}
		l.readAll(im, views, whitelist)
		b.used += total
		return ranked
	}
	i := 0
	for i < len(ranked) {
		var views []*view
		for i < len(ranked) && len(views) < readBatch {
			c := ranked[i]
			if len(c.views) > b.left()-len(views) {
				break
			}
			views = append(views, c.views...)
			read = append(read, c)
			i++
		}
		if len(views) == 0 {
			break
		}
		l.readAll(im, views, whitelist)
		b.used += len(views)
		if done(read) {
			break
		}
	}
	if len(read) < len(ranked) {
		b.cut = true
	}
	return read
}
