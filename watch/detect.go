package watch

import "time"

// DetectorConfig holds the thresholds of the stillness and presence decision.
type DetectorConfig struct {
	// StillFor is how long the sheet must lie still before its frame is taken.
	StillFor time.Duration
	// MaxMotion is the largest Stats.Motion of a still frame.
	MaxMotion float64
	// MinPaper is the smallest Stats.Paper that means a sheet is on the table.
	MinPaper float64
	// MaxSkinRise, when positive, is how much Stats.Skin may exceed the lowest skin fraction
	// seen so far in a still frame: more means hands resting on the sheet. 0 turns the test
	// off (the default: a wooden table is skin-coloured too, and the sheet hides some of it).
	MaxSkinRise float64
	// MaxHands, when positive, is the largest Stats.Hands of a still frame: hands resting
	// on the sheet are not a settled sheet.
	MaxHands float64
	// MinChange is the Stats.Change that counts as the sheet having left the table or
	// been covered since it was taken; DisturbedFor frames of it re-arm the detector.
	MinChange    float64
	DisturbedFor int
	// MinTornChange is the Stats.Change of a still, uncovered frame, after something moved
	// since the sheet was taken, that counts as the sheet having been torn where it lay: the
	// new still sheet is taken without having left the table. A tear removes at least a
	// sliver of the reference's paper; an untouched sheet changes by about nothing. 0 turns
	// the test off (then only MinChange re-arms).
	MinTornChange float64
}

// DefaultDetectorConfig takes a sheet after 0.4 s without motion.
func DefaultDetectorConfig() DetectorConfig {
	return DetectorConfig{StillFor: 400 * time.Millisecond, MaxMotion: 0.003, MinPaper: 0.02,
		MaxHands: 0.03, MinChange: 0.25, DisturbedFor: 2, MinTornChange: 0.01}
}

// Phase is what the Detector thinks is on the table.
type Phase int

// The phases: Waiting for a still sheet (none on the table, or moving); Settling (still, not
// yet for StillFor); Taken (the still sheet was taken; waiting for it to leave or be covered).
const (
	Waiting Phase = iota
	Settling
	Taken
)

func (p Phase) String() string {
	return [...]string{"waiting", "settling", "taken"}[p]
}

// Detector decides, frame after frame, when a sheet has settled on the table: present, no
// motion and no hands for StillFor. It reports each settling once; it reports again only
// after the sheet has left the table or been covered (Stats.Change, or no paper) for
// DisturbedFor frames and settled anew, or when, since the sheet was taken, something moved
// and the sheet lies still again changed by MinTornChange (torn in place). Pure Go; not safe
// for concurrent use.
type Detector struct {
	cfg       DetectorConfig
	phase     Phase
	since     time.Duration // start of the current still run (Settling)
	disturbed int           // consecutive disturbed frames (Taken)
	minSkin   float64
	seen      bool
	moved     bool // something moved since the sheet was taken (Taken)
	rearmed   bool // Rearm was called before anything moved (Taken)
}

// NewDetector makes a Detector in the Waiting phase.
func NewDetector(cfg DetectorConfig) *Detector { return &Detector{cfg: cfg} }

// Phase is the current phase.
func (d *Detector) Phase() Phase { return d.phase }

// Update takes the Stats of the frame at time t (from the start of the source) and reports
// whether that frame is a newly settled sheet. After a true result the caller should make
// that frame the Analyzer's reference, so that Stats.Change measures departure from it.
func (d *Detector) Update(t time.Duration, s Stats) (settled bool) {
	if !d.seen || s.Skin < d.minSkin {
		d.minSkin, d.seen = s.Skin, true
	}
	present := s.Paper >= d.cfg.MinPaper
	switch d.phase {
	case Taken:
		if s.Motion > d.cfg.MaxMotion {
			d.moved = true
		}
		if d.rearmed && d.moved {
			// The taken frame was refused (something lay on the sheet) and something has
			// moved since: the next still sheet is taken.
			d.phase, d.rearmed = Waiting, false
			break
		}
		if !present || s.Change >= d.cfg.MinChange {
			d.disturbed++
		} else {
			d.disturbed = 0
		}
		if d.disturbed >= max(1, d.cfg.DisturbedFor) {
			d.phase, d.disturbed = Waiting, 0
			return false
		}
		// Torn where it lay: something moved (hands tearing, or a cut in a video), and the
		// sheet lies still and uncovered again but no longer as it was taken. Without this a
		// tear of under MinChange of the sheet that never left the table was never seen (a
		// tester: breta-1 then breta-4 in place, tear 2 "announced but never seen").
		if !(d.moved && d.cfg.MinTornChange > 0 && s.Change >= d.cfg.MinTornChange && d.still(s)) {
			return false
		}
		d.phase, d.disturbed = Waiting, 0
	}
	if !d.still(s) {
		d.phase = Waiting
		return false
	}
	if d.phase == Waiting {
		d.phase, d.since = Settling, t
	}
	if t-d.since >= d.cfg.StillFor {
		d.phase, d.disturbed, d.moved, d.rearmed = Taken, 0, false, false
		return true
	}
	return false
}

// still reports whether s is a still frame of an uncovered sheet: paper present, no motion,
// no hands (MaxHands), no more skin than the least seen (MaxSkinRise).
func (d *Detector) still(s Stats) bool {
	return s.Paper >= d.cfg.MinPaper && s.Motion <= d.cfg.MaxMotion && (d.cfg.MaxHands <= 0 || s.Hands <= d.cfg.MaxHands) &&
		(d.cfg.MaxSkinRise <= 0 || s.Skin-d.minSkin <= d.cfg.MaxSkinRise)
}

// Rearm forgets the last taken sheet once something has moved since it was taken (at once
// if something already did): the next still sheet is then reported even if it never left the
// table. It is for a taken frame that was refused, e.g. a hand resting on the sheet: the
// sheet as it lies once the hand is gone is taken, the same still view is not taken again.
func (d *Detector) Rearm() {
	if d.phase != Taken {
		return
	}
	if d.moved {
		d.phase = Waiting
		return
	}
	d.rearmed = true
}
