package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"tearcam/judge"
)

// controller pairs settled frames with tears and asks the referee for rulings. It runs on
// one goroutine (Run's) and owns the settled frames it is given.
type controller struct {
	cfg     Config
	ref     Referee
	players []*playerState
	sheetOf int          // player announced by "sheet NAME" for the next settled sheet, or -1
	cand    *settled     // the candidate frame (Config.Speculate), until confirmed or aborted
	spec    *speculation // the tear judged on cand, if any
	settled []int
	lat     []time.Duration
	comp    []time.Duration
	// rearm asks the capture to take the next settled sheet even if it never left the table.
	rearm func()
	ruled int // rulings the referee made (and recorded)
	// notRuled is what an interruption left unruled (Result.NotRuled).
	notRuled []string
	// cutShort is the player whose tear was being judged on a candidate frame when the
	// session was interrupted (its announcement is still queued), or -1.
	cutShort int
	// replaying: the frames an earlier watch recorded are being taken again (replay): each
	// is ruled as it was, neither held nor compared with others.
	replaying bool
}

type playerState struct {
	Player
	fresh   bool
	rulings judge.PlayerRulings
	anns    []judge.Tear // announced tears not yet judged
	frames  []settled    // settled frames not yet judged
	next    int          // scripted: index of the next tear in Tears
	// coveredFor is the index of the tear whose frame was last found covered (logged once
	// per tear: a hand resting on the sheet may settle several times).
	coveredFor int
	// held is a frame on which the waiting tear was judged to have removed nothing: the
	// sheet picked up and put back untorn, or a tear that removed nothing. Its ruling was
	// retracted; the tear is ruled on the next frame of the sheet that settles, or on held
	// when none comes before the player's next announcement or the end of the source.
	held *settled
	// dropped are frames of the sheet that settled since the last ruling and were superseded
	// by a later one before a tear was announced (announced mode): the tear is ruled on the
	// latest, and is undecided if the paper changed between them (checkDropped).
	dropped []settled
}

func newController(cfg Config, ref Referee) *controller {
	c := &controller{cfg: cfg, ref: ref, sheetOf: -1, cutShort: -1, rearm: func() {}}
	for _, p := range cfg.Players {
		ps := &playerState{Player: p}
		ps.rulings = judge.PlayerRulings{Name: p.Name, Tears: []judge.TearRuling{},
			Sheet: judge.SheetResult{Skills: []judge.SkillResult{},
				Error: "the untorn sheet was never seen settled by the camera"}}
		c.players = append(c.players, ps)
	}
	return c
}

func (c *controller) logf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	fmt.Fprintf(c.cfg.Log, "tearcam watch: %s\n", msg)
	c.emit(Event{Player: -1, Message: msg})
}

func (c *controller) emit(e Event) {
	if c.cfg.OnEvent != nil {
		e.Rulings = c.rulings()
		e.Waiting = c.waitingFor()
		c.cfg.OnEvent(e)
	}
}

// waitingFor says what watch waits for, one phrase per player (Event.Waiting).
func (c *controller) waitingFor() []string {
	var out []string
	for _, ps := range c.players {
		if !ps.fresh {
			out = append(out, fmt.Sprintf("%s's untorn sheet, to settle on the table", ps.Name))
			continue
		}
		t, ok := c.nextTear(ps)
		switch {
		case ok:
		case c.cfg.Scripted:
			out = append(out, fmt.Sprintf("%s: every tear of the session ruled", ps.Name))
			continue
		case len(ps.frames) > 0:
			out = append(out, fmt.Sprintf("%s: the sheet settled (frame %d) with no tear announced: announce it", ps.Name, ps.frames[len(ps.frames)-1].no))
			continue
		default:
			out = append(out, fmt.Sprintf("%s: no tear announced", ps.Name))
			continue
		}
		what := fmt.Sprintf("%s's tear %d (%s", ps.Name, len(ps.rulings.Tears)+1, t.Kind)
		if t.Skill != "" {
			what += " " + t.Skill
		}
		what += "): waiting for the torn sheet to settle"
		if ps.held != nil {
			what += fmt.Sprintf(" (frame %d showed nothing removed: held)", ps.held.no)
		}
		if q := len(ps.anns) - 1; !c.cfg.Scripted && q > 0 {
			what += fmt.Sprintf("; %d more announced", q)
		}
		out = append(out, what)
	}
	return out
}

// onFrame takes a message from the capture goroutine.
func (c *controller) onFrame(s settled) {
	switch s.kind {
	case settleTaken:
		c.onSettle(s)
	case settleCandidate:
		c.onCandidate(s)
	case settleConfirm:
		if c.cand != nil && c.cand.no == s.no {
			c.cand.dropMore()
			c.cand.more, s.more = s.more, nil
		}
		s.close()
		c.onConfirm(s.no)
	case settleAbort:
		s.close()
		c.onAbort(s.no)
	}
}

// speculation is a tear judged on a candidate frame, not yet reported.
type speculation struct {
	p      int
	t      judge.Tear
	r      judge.TearRuling
	ann    []byte
	err    error
	began  time.Time
	judged time.Time
}

// onCandidate keeps the frame in which the sheet stopped moving and, when it can only be
// the next tear of one player, judges it at once (the result is held until confirmed).
func (c *controller) onCandidate(s settled) {
	if c.cand != nil {
		c.cand.close()
	}
	c.cand, c.spec = &s, nil
	if _, ok := c.ref.(Retractor); !ok {
		return
	}
	p := -1
	if len(c.players) == 1 {
		p = 0
	} else if c.sheetOf < 0 {
		var cands []int
		for i, ps := range c.players {
			if !ps.fresh {
				return // it may be a fresh sheet: wait until it is taken
			}
			cands = append(cands, i)
		}
		f, err := s.asFrame()
		if err != nil {
			return
		}
		if p, err = c.ref.Identify(f, cands); err != nil || p < 0 {
			return
		}
	}
	if p < 0 || !c.wantsFrame(c.players[p]) {
		return
	}
	ps := c.players[p]
	t, _ := c.nextTear(ps) // wantsFrame: there is one
	sp := &speculation{p: p, t: t, began: c.cfg.Now()}
	f, err := s.asFrame()
	if err == nil {
		sp.r, sp.ann, sp.err = c.ref.Tear(p, t, &f)
	} else {
		sp.err = err
	}
	sp.judged = c.cfg.Now()
	if errors.Is(sp.err, context.Canceled) {
		// Interrupted while judging: nothing was ruled (Result.NotRuled says so).
		c.notRuled = append(c.notRuled, beingJudged(ps, t, &s))
		c.cutShort = p
		return
	}
	c.spec = sp
}

// onConfirm reports the speculation on frame no, or takes the frame the usual way.
func (c *controller) onConfirm(no int) {
	s := c.cand
	c.cand = nil
	if s == nil || s.no != no {
		return
	}
	sp := c.spec
	c.spec = nil
	if sp == nil {
		c.onSettle(*s)
		return
	}
	defer s.close()
	c.settled = append(c.settled, s.no)
	if c.covered(sp.p, sp.t, s.no, sp.err) || c.holdUntorn(sp.p, sp.t, s, sp.r, sp.err) {
		return
	}
	c.report(sp.p, sp.t, s, sp.r, sp.ann, sp.err, sp.began)
	c.match(sp.p)
}

// onAbort forgets a candidate frame that moved again, and any ruling made on it.
func (c *controller) onAbort(no int) {
	if c.cand == nil || c.cand.no != no {
		return
	}
	if c.spec != nil {
		if c.spec.err == nil { // a failed Tear recorded nothing
			c.ref.(Retractor).Retract(c.spec.p)
		}
		c.logf("frame %d: the sheet moved again before it settled; the tear judged on it is taken back", no)
		c.spec = nil
	}
	c.cand.close()
	c.cand = nil
}

// onSettle takes one settled frame: a fresh sheet or the "after" of a tear.
func (c *controller) onSettle(s settled) {
	c.settled = append(c.settled, s.no)
	p := c.assign(s)
	if p < 0 {
		s.close()
		return
	}
	ps := c.players[p]
	if !ps.fresh {
		c.fresh(p, s)
		return
	}
	s.dropMore()
	if !c.cfg.Scripted && len(ps.anns) == 0 {
		// Announced tears take frames in order; without one waiting, only the sheet as it
		// lies now can be the next tear's: an earlier unclaimed frame is superseded.
		for _, old := range ps.frames {
			c.logf("frame %d: %s's sheet settled again before a tear was announced; frame %d is dropped (if its paper differs from frame %d's, the next tear is undecided)", s.no, ps.Name, old.no, s.no)
			ps.dropped = append(ps.dropped, old)
		}
		ps.frames = ps.frames[:0]
	}
	ps.frames = append(ps.frames, s)
	c.match(p)
}

// assign says whose sheet a settled frame shows: announced, the only player, registration
// against the fresh sheets taken so far, or else the next player without a fresh sheet.
func (c *controller) assign(s settled) int {
	if c.sheetOf >= 0 {
		p := c.sheetOf
		c.sheetOf = -1
		return p
	}
	if len(c.players) == 1 {
		return 0
	}
	var cands []int
	for i, ps := range c.players {
		if ps.fresh {
			cands = append(cands, i)
		}
	}
	if len(cands) > 0 {
		f, err := s.asFrame()
		if err != nil {
			c.logf("frame %d: %v", s.no, err)
			return -1
		}
		p, err := c.ref.Identify(f, cands)
		if err != nil {
			c.logf("frame %d: %v", s.no, err)
		}
		if p >= 0 {
			return p
		}
	}
	for i, ps := range c.players {
		if !ps.fresh {
			return i
		}
	}
	// Registration told nothing: if only one player has a tear waiting for a frame, the
	// announcement says whose sheet it is.
	waiting := -1
	for i, ps := range c.players {
		if c.wantsFrame(ps) {
			if waiting >= 0 {
				waiting = -2
				break
			}
			waiting = i
		}
	}
	if waiting >= 0 {
		c.logf("frame %d: taken as %s's sheet, the only player with a tear waiting for one", s.no, c.players[waiting].Name)
		return waiting
	}
	c.logf("frame %d: the sheet on the table matches no player's sheet; ignored (announce it with \"sheet NAME\")", s.no)
	return -1
}

func (c *controller) fresh(p int, s settled) {
	defer s.close()
	ps := c.players[p]
	f, err := s.asFrame()
	if err != nil {
		c.logf("frame %d: %v", s.no, err)
		return
	}
	res, f, read, err := c.readFresh(p, s, f)
	if errors.Is(err, context.Canceled) {
		// Interrupted while reading it: nothing was taken, nothing is wrong with the sheet.
		// The interruption's one line says so (Result.NotRuled).
		c.notRuled = append(c.notRuled, fmt.Sprintf("%s's fresh sheet (frame %d, being read)", ps.Name, s.no))
		return
	}
	if err == nil && !res.Found {
		err = fmt.Errorf("%s", strings.TrimSpace(res.Error))
	}
	if err != nil {
		c.logf("frame %d: not usable as %s's fresh sheet: %v; waiting for the sheet to be laid down again", s.no, ps.Name, err)
		c.rearm()
		return
	}
	res.Photo, res.SHA256 = PhotoName(f.No), sha256Hex(f.PNG)
	ps.fresh = true
	ps.rulings.Sheet = res
	var located []string
	for _, sk := range res.Skills {
		located = append(located, sk.LocatedLabel())
	}
	c.logf("frame %d: %s's fresh sheet taken (%s)%s", f.No, ps.Name, strings.Join(located, ", "), read)
	c.emit(Event{Player: p, Fresh: &res})
	c.match(p)
}

// readFresh reads player p's fresh sheet on frame f of settled s and, when the capture gave
// later frames of the same still run (s.more), on each of them too: frames that differ only by
// sensor noise can read differently (a skill located at 99% on one, 16% on the next). f's read
// is kept unless another locates more letters by a strong read (freshScore); the one kept is
// recorded (f is read last, so the referee is asked again only when another frame won; a
// re-read of the same file re-uses the recorded layout). read says which frames were read
// and which was kept, "" for one frame.
func (c *controller) readFresh(p int, s settled, f Frame) (judge.SheetResult, Frame, string, error) {
	type read struct {
		f   Frame
		res judge.SheetResult
		err error
	}
	var reads []read
	for _, m := range s.more {
		png, err := encodePNG(m.frame)
		if err != nil {
			continue
		}
		g := Frame{No: m.no, Mat: m.frame, PNG: png}
		r, err := c.ref.Fresh(p, g)
		if errors.Is(err, context.Canceled) {
			return r, g, "", err
		}
		reads = append(reads, read{g, r, err})
	}
	res, err := c.ref.Fresh(p, f)
	if len(reads) == 0 || errors.Is(err, context.Canceled) {
		return res, f, "", err
	}
	best := read{f, res, err}
	reads = append([]read{best}, reads...)
	var labels []string
	for _, r := range reads {
		labels = append(labels, fmt.Sprintf("%d: %s", r.f.No, freshLabel(r.res, r.err)))
		if r.err == nil && r.res.Found && (best.err != nil || !best.res.Found || freshScore(r.res).better(freshScore(best.res))) {
			best = r
		}
	}
	if best.f.No != f.No {
		// The referee keeps the last sheet it read (f): give it the best again.
		if best.res, best.err = c.ref.Fresh(p, best.f); errors.Is(best.err, context.Canceled) {
			return best.res, best.f, "", best.err
		}
	}
	return best.res, best.f, fmt.Sprintf("; read on %d frames of the still sheet (%s): frame %d kept, the most letters located by a strong read",
		len(reads), strings.Join(labels, "; "), best.f.No), best.err
}

// freshLabel is one read of a fresh sheet, for the log: letters located by a strong read,
// of all letters, and the weak reads.
func freshLabel(r judge.SheetResult, err error) string {
	if err != nil || !r.Found {
		return "no sheet"
	}
	sc := freshScore(r)
	s := fmt.Sprintf("%d/%d letters located", sc.strong, sc.letters)
	var weak []string
	for _, k := range r.Skills {
		if k.Weak() || k.Located < k.Letters {
			weak = append(weak, k.LocatedLabel())
		}
	}
	if len(weak) > 0 {
		s += " (" + strings.Join(weak, ", ") + ")"
	}
	return s
}

// sheetScore ranks reads of one fresh sheet: letters located by a strong read first, then
// letters located at all. (Not the confidence: among reads that locate as much, the first
// is kept, not the one sensor noise favoured.)
type sheetScore struct {
	strong, located, letters int
}

func freshScore(r judge.SheetResult) sheetScore {
	var s sheetScore
	for _, k := range r.Skills {
		s.letters += k.Letters
		s.located += k.Located
		if !k.Weak() {
			s.strong += k.Located
		}
	}
	return s
}

// better reports whether s ranks strictly above t.
func (s sheetScore) better(t sheetScore) bool {
	if s.strong != t.strong {
		return s.strong > t.strong
	}
	return s.located > t.located
}

// replay takes again the frames an earlier watch of the session recorded (Config.Resume),
// in order, each for its player and tear, as they were taken then.
func (c *controller) replay(rs []Replayed) error {
	if len(rs) == 0 {
		return nil
	}
	c.replaying = true
	defer func() { c.replaying = false }()
	for _, r := range rs {
		ps := c.players[r.Player]
		if r.Tear != nil && !c.cfg.Scripted {
			ps.anns = append(ps.anns, *r.Tear)
		}
		if r.PNG == nil {
			n := len(ps.rulings.Tears)
			c.match(r.Player)
			if len(ps.rulings.Tears) > n {
				c.replayGM(r, n+1)
			}
			continue
		}
		// The referee reads the recorded file (PNG); the frame is not decoded again.
		s := settled{kind: settleTaken, no: r.No, frame: gocv.NewMat(), readAt: c.cfg.Now(), png: r.PNG}
		if r.Tear == nil {
			c.fresh(r.Player, s)
			if !ps.fresh {
				return fmt.Errorf("resume: %s's recorded fresh sheet (frame %d) was not taken again", ps.Name, r.No)
			}
			continue
		}
		n := len(ps.rulings.Tears)
		ps.frames = append(ps.frames, s)
		c.match(r.Player)
		if len(ps.rulings.Tears) == n {
			return fmt.Errorf("resume: %s's recorded tear %d (frame %d) was not ruled again", ps.Name, n+1, r.No)
		}
		c.replayGM(r, n+1)
	}
	return nil
}

// replayGM gives again the GM's ruling recorded with the replayed tear n.
func (c *controller) replayGM(r Replayed, n int) {
	if r.GM != nil {
		c.onGM(r.Player, n, r.GM)
	}
}

// onAnnouncement queues an announced tear for its player (or notes whose sheet comes next).
func (c *controller) onAnnouncement(a Announcement) {
	p, err := c.playerFor(a)
	if err != nil {
		c.logf("%v", err)
		return
	}
	if a.GM != nil {
		c.onGM(p, a.GMTear, a.GM)
		return
	}
	if a.Sheet {
		c.sheetOf = p
		c.logf("the next settled sheet is %s's", c.players[p].Name)
		return
	}
	if c.cfg.Scripted {
		c.logf("announcement %s %s ignored: the tears come from the session manifest", a.Tear.Kind, a.Tear.Skill)
		return
	}
	ps := c.players[p]
	if a.Tear.Skill != "" {
		k := slices.IndexFunc(ps.Skills, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), a.Tear.Skill) })
		if k < 0 {
			// A mistyped skill is refused as it is typed, like a mistyped kind: queued, it would
			// take the next torn sheet's place and leave the real tear unannounced.
			c.logf("announcement %s %s ignored: %s has no skill %q (skills: %s); announce the tear again", a.Tear.Kind, a.Tear.Skill, ps.Name, a.Tear.Skill, strings.Join(ps.Skills, ", "))
			return
		}
		// The ruling names the skill as declared, as audit's does ("use archery": Archery).
		a.Tear.Skill = ps.Skills[k]
	}
	if ps.held != nil {
		// A tear announced after the frame that showed nothing removed was held: that frame
		// was the waiting tear's (it removed nothing), not a sheet put back before it was torn.
		c.releaseHeld(p, "the next announcement")
	}
	ps.anns = append(ps.anns, a.Tear)
	c.match(p)
}

// onGM applies the GM's ruling g on player p's ruled tear n (Announcement.GM): the referee
// records it and re-rules the player's tears from n on, whose state (letters left, owed
// tears, out) then follows the GM's ruling, as audit's does with the manifest's gm:. A
// ruling that cannot be applied is said in one line and changes nothing.
func (c *controller) onGM(p, n int, g *judge.GMRuling) {
	ps := c.players[p]
	bad := func(format string, a ...any) {
		c.logf("gm %d for %s ignored: %s; nothing changed", n, ps.Name, fmt.Sprintf(format, a...))
	}
	gr, ok := c.ref.(GMRuler)
	switch {
	case !ok:
		bad("this referee takes no GM ruling")
		return
	case n > len(ps.rulings.Tears):
		bad("%s has %s ruled", ps.Name, count(len(ps.rulings.Tears), "tear", "tears"))
		return
	}
	if sp := c.spec; sp != nil && sp.p == p {
		// A tear judged on a candidate frame, not yet reported, was ruled from the state
		// before the GM's ruling: taken back, the frame is judged anew once it settles.
		if sp.err == nil {
			c.ref.(Retractor).Retract(p)
		}
		c.spec = nil
	}
	old := ps.rulings.Tears[n-1]
	if old.Kind == judge.KindLastDitch {
		bad("a last ditch effort is ruled by the ball (hit or miss), not by a GM's ruling")
		return
	}
	g = mergeGM(old.GMRuling, g)
	if err := g.Check(ps.Skills); err != nil {
		bad("%s", strings.TrimSuffix(err.Error(), ": "+judge.ErrBadGMRuling.Error()))
		return
	}
	tears, err := gr.RuleGM(p, n, g)
	if err != nil {
		bad("%s", oneLine(err.Error()))
		return
	}
	if len(tears) != len(ps.rulings.Tears) {
		bad("the referee re-ruled %s, not %d", count(len(tears), "tear", "tears"), len(ps.rulings.Tears))
		return
	}
	var reruled []judge.TearRuling
	for k := n - 1; k < len(tears); k++ {
		was := ps.rulings.Tears[k]
		r := tears[k]
		// What watch said of the frame stays: its name and its notes.
		r.Index, r.Photo, r.SHA256 = was.Index, was.Photo, was.SHA256
		for _, note := range was.Notes {
			if strings.HasPrefix(note, "watch: ") {
				r.Notes = append(r.Notes, note)
			}
		}
		ps.rulings.Tears[k] = r
		if k >= n && !sameState(was, r) {
			reruled = append(reruled, r)
		}
	}
	ps.rulings.Out = ps.rulings.Tears[len(ps.rulings.Tears)-1].Out
	r := ps.rulings.Tears[n-1]
	if !c.replaying {
		c.logf("%s tear %d: %s", ps.Name, n, judge.GMLine(r))
	}
	c.emit(Event{Player: p, Ruling: &r, GM: true, Reruled: reruled})
}

// mergeGM is the GM's ruling g added to their earlier ruling was on the same tear: a field g
// leaves out keeps was's (a ruling without a verdict adds to the earlier one).
func mergeGM(was, g *judge.GMRuling) *judge.GMRuling {
	out := *g
	out.Overrules = nil
	if was == nil {
		return &out
	}
	if out.Verdict == "" {
		out.Verdict, out.Faults = was.Verdict, slices.Clone(was.Faults)
	}
	if out.Remaining == nil && len(was.Remaining) > 0 {
		out.Remaining = map[string]int{}
		for k, v := range was.Remaining {
			out.Remaining[k] = v
		}
	}
	if out.PaperFitsTemplate == nil {
		out.PaperFitsTemplate = was.PaperFitsTemplate
	}
	if out.Out == "" {
		out.Out = was.Out
	}
	if out.Note == "" {
		out.Note = was.Note
	}
	return &out
}

// sameState reports whether two rulings of a tear leave the character in the same state.
func sameState(a, b judge.TearRuling) bool {
	return judge.LettersLeft(a.Skills) == judge.LettersLeft(b.Skills) && a.OwedTears == b.OwedTears &&
		a.Out == b.Out && a.OutReason == b.OutReason && a.PaperFitsTemplate == b.PaperFitsTemplate &&
		a.Verdict == b.Verdict && slices.Equal(a.Faults, b.Faults) && a.UndecidedReason == b.UndecidedReason
}

func (c *controller) playerFor(a Announcement) (int, error) {
	if a.Player != "" {
		for i, ps := range c.players {
			if strings.EqualFold(ps.Name, a.Player) {
				return i, nil
			}
		}
		return -1, fmt.Errorf("announcement: no player named %q", a.Player)
	}
	if len(c.players) == 1 {
		return 0, nil
	}
	found := -1
	if a.Tear.Skill != "" {
		for i, ps := range c.players {
			for _, s := range ps.Skills {
				if strings.EqualFold(strings.TrimSpace(s), a.Tear.Skill) {
					if found >= 0 && found != i {
						return -1, fmt.Errorf("announcement: %q is a skill of several players; say whose (NAME: %s %s)", a.Tear.Skill, a.Tear.Kind, a.Tear.Skill)
					}
					found = i
				}
			}
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("announcement %s %s: say whose tear it is (NAME: ...)", a.Tear.Kind, a.Tear.Skill)
	}
	return found, nil
}

// nextTear is player ps's next tear to rule: the session's next (Config.Scripted) or the
// first announced; false when there is none.
func (c *controller) nextTear(ps *playerState) (judge.Tear, bool) {
	switch {
	case c.cfg.Scripted && ps.next < len(ps.Tears):
		return ps.Tears[ps.next], true
	case !c.cfg.Scripted && len(ps.anns) > 0:
		return ps.anns[0], true
	}
	return judge.Tear{}, false
}

// match judges every tear of player p that has both its announcement and its frame.
func (c *controller) match(p int) {
	ps := c.players[p]
	if !ps.fresh {
		return
	}
	for {
		t, ok := c.nextTear(ps)
		if !ok {
			return
		}
		if t.Kind == judge.KindLastDitch {
			c.tear(p, t, nil)
		} else if len(ps.frames) > 0 {
			s := ps.frames[0]
			ps.frames = ps.frames[1:]
			c.checkDropped(p, t, &s)
			c.tear(p, t, &s) // ruled, it left the queue; not (covered), it waits for the next frame
			s.close()
		} else {
			return
		}
	}
}

// tear rules tear t of player p on settled frame s (nil for a last-ditch effort); the
// referee has recorded the ruling when it returns, and only then is it reported (and the
// tear leaves the queue). It returns false when s shows no tear to rule (something covers
// the sheet, or nothing removed: held): the tear waits.
func (c *controller) tear(p int, t judge.Tear, s *settled) bool {
	began := c.cfg.Now()
	var r judge.TearRuling
	var annotated []byte
	var err error
	var f *Frame
	if s != nil {
		var fr Frame
		if fr, err = s.asFrame(); err == nil {
			f = &fr
		}
	}
	if err == nil {
		r, annotated, err = c.ref.Tear(p, t, f)
	}
	if s != nil && (c.covered(p, t, s.no, err) || c.holdUntorn(p, t, s, r, err)) {
		return false
	}
	c.report(p, t, s, r, annotated, err, began)
	return true
}

// Doubter is a Referee that can be told, before it rules a frame, that what the frame shows
// removed is in doubt (why): its ruling on that frame is then undecided, saying why, and
// recorded so.
type Doubter interface {
	Doubt(f Frame, why string)
}

// checkDropped compares frame s, on which player p's announced tear t is about to be ruled,
// with the frames of the sheet dropped since the last ruling (ps.dropped): when one of them
// already showed paper removed and s shows more, the sheet changed more than once with one
// tear announced (a missing or late announcement): the ruling on s would add two tears'
// removal up as one, so the referee is told to rule it undecided, naming the dropped frame.
// A dropped frame with nothing removed was the sheet picked up and put back (skipped); one
// with the same paper as s was s's sheet picked up and put back (s is ruled as usual). Each
// comparison is a ruling of the referee (the dropped frame as the tear, then s after it),
// retracted at once. Without a Retractor and a Doubter the dropped frames are not compared.
func (c *controller) checkDropped(p int, t judge.Tear, s *settled) {
	ps := c.players[p]
	rt, ok1 := c.ref.(Retractor)
	dr, ok2 := c.ref.(Doubter)
	if len(ps.dropped) == 0 || !ok1 || !ok2 || c.replaying {
		return
	}
	fs, err := s.asFrame()
	if err != nil {
		return
	}
	why := ""
	for i := range ps.dropped {
		a := &ps.dropped[i]
		fa, err := a.asFrame()
		var ra judge.TearRuling
		if err == nil {
			ra, _, err = c.ref.Tear(p, t, &fa)
		}
		if err != nil {
			why = fmt.Sprintf("frame %d, which settled after the last ruling and was dropped, could not be measured (%s), so whether the sheet changed more than once since the last ruling with one tear announced is not known", a.no, oneLine(err.Error()))
			break
		}
		if nothingRemovedOnly(ra) {
			rt.Retract(p)
			c.logf("frame %d: %s's dropped frame %d shows nothing removed: the sheet was put back untorn before it was torn", s.no, ps.Name, a.no)
			continue
		}
		// a showed paper removed: does s show more? Rule s after a, then take both back.
		rs, _, err := c.ref.Tear(p, t, &fs)
		if err == nil {
			rt.Retract(p)
		}
		rt.Retract(p)
		switch {
		case err != nil:
			why = fmt.Sprintf("frame %d, which settled after the last ruling with paper removed and was dropped, could not be compared with frame %d (%s)", a.no, s.no, oneLine(err.Error()))
		case !nothingRemovedOnly(rs):
			why = fmt.Sprintf("the sheet changed more than once since the last ruling with one tear announced: frame %d, which settled with paper removed and was dropped, is not frame %d's paper; the paper removed since the last ruling may be two tears'", a.no, s.no)
		default:
			c.logf("frame %d: %s's dropped frame %d shows the same paper: the sheet was picked up and put back", s.no, ps.Name, a.no)
		}
		break
	}
	if why != "" {
		c.logf("frame %d: %s's tear %d (%s %s) is undecided: %s", s.no, ps.Name, len(ps.rulings.Tears)+1, t.Kind, t.Skill, why)
		dr.Doubt(fs, why)
	}
}

// forgetDropped frees the frames dropped since player ps's last ruling.
func (c *controller) forgetDropped(ps *playerState) {
	for _, d := range ps.dropped {
		d.close()
	}
	ps.dropped = nil
}

// nothingRemovedOnly reports whether r's only finding is that the tear removed nothing.
func nothingRemovedOnly(r judge.TearRuling) bool {
	return r.Verdict == judge.FauxPas && len(r.Faults) == 1 && r.Faults[0] == judge.FaultNothingRemoved
}

// holdUntorn reports whether tear t of player p, judged on frame s as removing nothing (r),
// is held rather than reported: a settled sheet with nothing removed cannot tell a sheet
// picked up and put back untorn from a tear that removed nothing. The ruling is retracted
// (it needs a Retractor), a copy of s is kept as the player's held frame, and the tear waits
// for the next frame of the sheet that settles (releaseHeld rules it on the held frame when
// none comes before the player's next announcement or the end of the source). A frame
// being ruled as the held frame (ps.held is s) is not held again.
func (c *controller) holdUntorn(p int, t judge.Tear, s *settled, r judge.TearRuling, err error) bool {
	rt, ok := c.ref.(Retractor)
	ps := c.players[p]
	if !ok || err != nil || c.replaying || !nothingRemovedOnly(r) || (ps.held != nil && ps.held.no == s.no) {
		return false
	}
	rt.Retract(p)
	until := "the end of the source"
	if !c.cfg.Scripted {
		until = fmt.Sprintf("the next announcement for %s or the end of the source", ps.Name)
	}
	if ps.held != nil {
		ps.held.close()
	}
	ps.held = &settled{kind: s.kind, no: s.no, frame: s.frame.Clone(), readAt: s.readAt, png: s.png}
	c.logf("frame %d: %s's sheet settled with nothing removed: taken as the sheet put back untorn; tear %d (%s %s) is ruled on the next frame of the sheet that settles (nothing_removed on frame %d if none comes before %s)",
		s.no, ps.Name, len(ps.rulings.Tears)+1, t.Kind, t.Skill, s.no, until)
	return true
}

// releaseHeld rules player p's waiting tear on the held frame (nothing removed), if one is
// held: nothing else of the sheet settled before the player's next announcement or the end
// of the source (why).
func (c *controller) releaseHeld(p int, why string) {
	ps := c.players[p]
	s := ps.held
	if s == nil {
		return
	}
	t, ok := c.nextTear(ps)
	if !ok {
		ps.held = nil
		s.close()
		return
	}
	c.logf("frame %d: no other frame of %s's sheet settled before %s: tear %d (%s %s) is ruled on frame %d", s.no, ps.Name, why,
		len(ps.rulings.Tears)+1, t.Kind, t.Skill, s.no)
	c.tear(p, t, s) // report leaves s to us
	if ps.held == s {
		ps.held = nil
	}
	s.close()
}

// covered reports whether err says that something covered player p's sheet in frame no
// (ErrCovered): the referee recorded nothing, tear t is not ruled on that frame and waits
// for the sheet to settle uncovered, and the capture is re-armed to take it then.
func (c *controller) covered(p int, t judge.Tear, no int, err error) bool {
	if !errors.Is(err, ErrCovered) {
		return false
	}
	ps := c.players[p]
	if idx := len(ps.rulings.Tears) + 1; ps.coveredFor != idx {
		ps.coveredFor = idx
		c.logf("frame %d: %s; %s's tear %d (%s %s) is not ruled on it: waiting for the sheet to settle uncovered",
			no, oneLine(err.Error()), ps.Name, idx, t.Kind, t.Skill)
	}
	c.rearm()
	return true
}

// report finishes a ruling the referee made (and recorded) on frame s (nil for a
// last-ditch effort) and reports it.
func (c *controller) report(p int, t judge.Tear, s *settled, r judge.TearRuling, annotated []byte, err error, began time.Time) {
	ps := c.players[p]
	// The tear leaves the queue: what the event says watch waits for is the next one.
	if c.cfg.Scripted {
		ps.next++
	} else {
		ps.anns = ps.anns[1:]
	}
	var f *Frame
	if s != nil && s.png != nil {
		f = &Frame{No: s.no, Mat: s.frame, PNG: s.png}
	}
	if errors.Is(err, context.Canceled) {
		// Interrupted while judging: nothing was ruled (nor recorded) for this tear. The
		// interruption's one line says so (Result.NotRuled).
		c.notRuled = append(c.notRuled, beingJudged(ps, t, s))
		return
	}
	if err != nil {
		// The referee could not even produce an undecided ruling: say so, never guess.
		c.logf("%s tear %d (%s %s): %v", ps.Name, len(ps.rulings.Tears)+1, t.Kind, t.Skill, err)
		r = judge.TearRuling{Kind: t.Kind, Skill: t.Skill, Verdict: judge.Undecided,
			Faults: []judge.Fault{}, UndecidedReason: oneLine(err.Error()), Skills: []judge.SkillState{},
			LettersAsBefore: true}
	}
	c.forgetDropped(ps)
	r.Index = len(ps.rulings.Tears) + 1
	if f != nil {
		r.Photo, r.SHA256 = PhotoName(s.no), sha256Hex(f.PNG)
	}
	if h := ps.held; h != nil && s != nil {
		if h.no != s.no {
			r.Notes = append(r.Notes, fmt.Sprintf("watch: the sheet settled untorn (nothing removed) on frame %d after the last ruling: taken as picked up and put back; this tear is ruled on frame %d", h.no, s.no))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("watch: nothing removed on frame %d, and no other frame of the sheet settled after it before the next announcement or the end of the source", h.no))
		}
		if h != s {
			h.close()
		}
		ps.held = nil
	}
	ps.rulings.Tears = append(ps.rulings.Tears, r)
	ps.rulings.Out = r.Out
	c.ruled++
	var lat, comp time.Duration
	if s != nil && !c.replaying {
		now := c.cfg.Now()
		lat, comp = now.Sub(s.readAt), now.Sub(began)
		c.lat, c.comp = append(c.lat, lat), append(c.comp, comp)
	}
	c.emit(Event{Player: p, Ruling: &r, Annotated: annotated, Latency: lat, Compute: comp})
	c.reread(p)
}

// reread does the OCR re-read of player p's tears that the referee left for after their
// rulings were reported (Rereader), and reports each ruling it amends (Event.Amended): its
// disagreements as notes, or a verdict it changed.
func (c *controller) reread(p int) {
	rr, ok := c.ref.(Rereader)
	if !ok {
		return
	}
	ps := c.players[p]
	tears, annotated, err := rr.Reread(p)
	switch {
	case errors.Is(err, context.Canceled):
		// Interrupted: the ruling reported is kept, its re-read is left to the session's next
		// audit, and the interruption's one line says the rest.
		return
	case err != nil:
		c.logf("%s tear %d: the OCR re-read of its photo was not done (%s): it is done by the next ruling, or by audit of the frames' manifest", ps.Name, len(ps.rulings.Tears), oneLine(err.Error()))
		return
	case tears == nil:
		return
	case len(tears) != len(ps.rulings.Tears):
		c.logf("%s: the OCR re-read re-ruled %s, not %d: the rulings as reported stand until the next", ps.Name, count(len(tears), "tear", "tears"), len(ps.rulings.Tears))
		return
	}
	for k := range tears {
		was := ps.rulings.Tears[k]
		r := tears[k]
		// What watch said of the frame stays: its name and its notes.
		r.Index, r.Photo, r.SHA256 = was.Index, was.Photo, was.SHA256
		for _, note := range was.Notes {
			if strings.HasPrefix(note, "watch: ") {
				r.Notes = append(r.Notes, note)
			}
		}
		if sameRuling(was, r) {
			continue
		}
		ps.rulings.Tears[k] = r
		ps.rulings.Out = ps.rulings.Tears[len(ps.rulings.Tears)-1].Out
		var img []byte
		if k == len(tears)-1 {
			img = annotated
		}
		c.emit(Event{Player: p, Ruling: &r, Amended: true, Before: &was, Annotated: img})
	}
}

// sameRuling reports whether two rulings of a tear say the same, notes included.
func sameRuling(a, b judge.TearRuling) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// beingJudged names ps's next tear t, interrupted while it was judged on frame s (nil: a
// last-ditch effort), for Result.NotRuled.
func beingJudged(ps *playerState, t judge.Tear, s *settled) string {
	what := fmt.Sprintf("%s's tear %d (%s %s", ps.Name, len(ps.rulings.Tears)+1, t.Kind, t.Skill)
	if s != nil {
		what += fmt.Sprintf(", frame %d", s.no)
	}
	return what + ", being judged)"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// count is n and the noun for n: "1 tear", "2 tears".
func count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// wantsFrame reports whether player ps has an announced tear waiting for its frame.
func (c *controller) wantsFrame(ps *playerState) bool {
	if !ps.fresh || len(ps.frames) > 0 {
		return false
	}
	t, ok := c.nextTear(ps)
	return ok && t.Kind != judge.KindLastDitch
}

// waiting reports whether settled frames are waiting for announcements.
func (c *controller) waiting() bool {
	for _, ps := range c.players {
		if len(ps.frames) > 0 {
			return true
		}
	}
	return false
}

// finish reports and frees what was never paired. An interrupted session (interrupted)
// rules nothing more and logs nothing: tears announced but not ruled are not listed as
// rulings but in notRuled, for the interruption's one line.
func (c *controller) finish(interrupted bool) {
	if c.cand != nil {
		if c.spec != nil && c.spec.err == nil {
			c.ref.(Retractor).Retract(c.spec.p)
		}
		c.spec = nil
		c.cand.close()
		c.cand = nil
	}
	for i, ps := range c.players {
		c.forgetDropped(ps)
		if ps.held != nil {
			if interrupted {
				ps.held.close()
				ps.held = nil
			} else {
				c.releaseHeld(i, "the end of the source")
			}
		}
		for _, s := range ps.frames {
			if !interrupted {
				c.logf("frame %d: %s's sheet settled but no tear was announced for it", s.no, ps.Name)
			}
			s.close()
		}
		ps.frames = nil
		if !ps.fresh && !interrupted {
			c.logf("%s's fresh sheet was never seen", ps.Name)
		}
		pending := len(ps.anns)
		if c.cfg.Scripted {
			pending = len(ps.Tears) - ps.next
		}
		if interrupted && c.cutShort == i {
			pending-- // being judged when interrupted: said already
		}
		if pending > 0 && interrupted {
			c.notRuled = append(c.notRuled, fmt.Sprintf("%s's %s not yet seen", ps.Name, count(pending, "announced tear", "announced tears")))
			ps.anns = nil
		} else if pending > 0 {
			c.logf("%s: %s announced but never seen on the table", ps.Name, count(pending, "tear", "tears"))
			var unseen []judge.Tear
			if c.cfg.Scripted {
				unseen = ps.Tears[ps.next:]
			} else {
				unseen = ps.anns
			}
			for _, t := range unseen {
				ps.rulings.Tears = append(ps.rulings.Tears, unseenRuling(ps, t))
			}
			ps.anns = nil
		}
	}
}

// unseenRuling is the ruling on a tear that was announced but whose torn sheet never settled
// on the table before the source ended: undecided, so that an auditor sees it in the
// rulings document. It is not stored: no frame was judged. The character's standing
// (letters left, owed tears, out) carries from the last ruling unchanged; before any ruling
// it is the fresh sheet's, ruled by judge as audit rules a tear whose photo could not be
// measured (every declared skill with all its letters, the template fitting on the paper).
func unseenRuling(ps *playerState, t judge.Tear) judge.TearRuling {
	reason := "the tear was announced but its torn sheet was never seen settled on the table before the source ended"
	index := len(ps.rulings.Tears) + 1
	n := len(ps.rulings.Tears)
	fresh := judge.NewCharacter(ps.Name, ps.Skills, nil) // no layouts: letters not measured
	if n == 0 && t.Kind != judge.KindLastDitch {
		// Nothing was ruled yet: the same judge code as audit's refused measurement.
		r := fresh.Rule(index, t, judge.Measurement{Refused: reason})
		r.UndecidedReason = reason
		if ps.fresh {
			r.Skills = judge.StandingOf(ps.rulings).Skills
		}
		return r
	}
	r := judge.TearRuling{
		Index: index, Kind: t.Kind, Skill: t.Skill,
		Verdict: judge.Undecided, Faults: []judge.Fault{},
		UndecidedReason: reason, LettersAsBefore: true,
	}
	if n == 0 {
		// A last ditch first, its player's sheet never seen (the tears wait for it).
		r.UndecidedReason = "the last ditch effort was announced but the player's untorn sheet was never seen settled on the table before the source ended: not ruled, the GM records it"
		r.Skills, r.PaperFitsTemplate = fresh.Skills(), fresh.PaperFitsTemplate()
		return r
	}
	if t.Kind == judge.KindLastDitch {
		// A last ditch has no sheet to see: it waited its turn behind tears never seen.
		r.UndecidedReason = "the last ditch effort comes after a tear that was never seen on the table before the source ended: not ruled, the GM records it"
	}
	last := ps.rulings.Tears[n-1]
	r.Skills = append([]judge.SkillState(nil), last.Skills...)
	r.PaperFitsTemplate, r.OwedTears, r.Out, r.OutReason = last.PaperFitsTemplate, last.OwedTears, last.Out, last.OutReason
	return r
}

func (c *controller) result() *Result {
	res := &Result{Settled: c.settled, Latencies: c.lat, Computes: c.comp, Ruled: c.ruled, NotRuled: c.notRuled}
	res.Rulings = c.rulings()
	return res
}

// rulings is the rulings document so far.
func (c *controller) rulings() judge.Rulings {
	players := make([]judge.PlayerRulings, len(c.players))
	for i, ps := range c.players {
		players[i] = ps.rulings
		players[i].Tears = append([]judge.TearRuling(nil), ps.rulings.Tears...)
	}
	return judge.NewRulings(c.cfg.Paper.Name, c.cfg.Template, players)
}
