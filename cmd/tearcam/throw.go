package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"tearcam/engine"
	"tearcam/judge"
	"tearcam/store"
)

// characterSource is where `throw` and `check` find a character's standing (from the judge's
// rulings) and record every throw and roll with what produced it.
type characterSource interface {
	Standing(player string) (judge.Standing, error)
	// Notes are the notes of the player's last ruling (nil before any): they say why a
	// count is not certain (weakReadOf).
	Notes(player string) ([]string, error)
	RecordRoll(player, kind string, roll any) error
	Close() error
}

// storeSource is a characterSource on the session database.
type storeSource struct {
	db      *store.DB
	session string // "" means the player's most recent session
}

var _ characterSource = (*storeSource)(nil)

// openStoreSource opens an existing session database (it is never created here: a typo in
// --db must not make an empty database that knows no player).
func openStoreSource(path, session string) (characterSource, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, usageErrorf("--db %s: %w", path, errors.Unwrap(err))
	}
	// The roll is recorded there: SQLite must be able to write the file and its journal.
	if err := checkDBFile("--db", path); err != nil {
		return nil, err
	}
	db, err := openDB("--db", path)
	if err != nil {
		return nil, err
	}
	return &storeSource{db: db, session: session}, nil
}

func (s *storeSource) Standing(player string) (judge.Standing, error) {
	st, err := s.db.PlayerState(context.Background(), s.session, player)
	if err != nil {
		return judge.Standing{}, err
	}
	return st.Standing, nil
}

func (s *storeSource) Notes(player string) ([]string, error) {
	ctx := context.Background()
	p, err := s.db.FindPlayer(ctx, s.session, player)
	if err != nil {
		return nil, err
	}
	rs, err := s.db.Rulings(ctx, p.ID)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return rs[len(rs)-1].Ruling.Notes, nil
}

func (s *storeSource) RecordRoll(player, kind string, roll any) error {
	_, err := s.db.RecordRoll(context.Background(), s.session, player, kind, roll)
	return err
}

func (s *storeSource) Close() error { return s.db.Close() }

// characterFlags are the flags that take the character from the session database.
type characterFlags struct {
	DB      string
	Player  string
	Session string
	// GMConfirms: the GM confirms that the skill still has a full letter on the sheet where
	// tearcam counts none but that count is not certain (measured: false).
	GMConfirms bool
	// OpenSource opens the database (a stub in tests).
	OpenSource func(path, session string) (characterSource, error)
	warn       io.Writer // status messages (stderr)
	// confirmed says what the GM confirmed (GMConfirms used), for the record; "" otherwise.
	confirmed string
	// declared is the skill as the character's sheet declares it (--skill typed in another
	// case finds it), set by openCharacter: it is shown and recorded, as the player is.
	declared string
}

func (c *characterFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.DB, "db", "", "session database `FILE` to take the character from (with --player)")
	cmd.Flags().StringVar(&c.Player, "player", "", "the player whose character acts (with --db)")
	cmd.Flags().StringVar(&c.Session, "session", "", "session name in the database (default: the player's most recent)")
	cmd.Flags().BoolVar(&c.GMConfirms, "gm-confirms", false, "the GM sees a full letter of --skill on the sheet where tearcam's count of 0 is not certain (0? in the rulings)")
}

// openCharacter checks that the character may use skill and returns the source to record
// in; nil when no database was given.
func (c *characterFlags) openCharacter(skill string) (characterSource, error) {
	if c.DB == "" && c.Player == "" {
		return nil, nil
	}
	if c.DB == "" || c.Player == "" {
		return nil, usageErrorf("--db and --player go together")
	}
	if strings.TrimSpace(skill) == "" {
		return nil, usageErrorf("--skill is required with --player")
	}
	open := c.OpenSource
	if open == nil {
		open = openStoreSource
	}
	src, err := open(c.DB, c.Session)
	if err != nil {
		return nil, err
	}
	st, err := src.Standing(c.Player)
	if err == nil {
		if st.Name != "" {
			// The player as declared, not as typed ("breta" finds Breta): in what is shown
			// and recorded.
			c.Player = st.Name
		}
		err = st.CanUse(skill)
	}
	if k, ok := skillOf(st, skill); ok && errors.Is(err, judge.ErrSkillLost) && !k.Measured {
		// A count of 0 that is not certain (a letter too close to call, counted as gone; a
		// skill located by a weak read) is the GM's call, never enforced silently.
		// Letters too close to call are counted as left, so a 0 is uncertain only because
		// a weak read located the skill (judge.WeakReadConfidence); the last ruling's note
		// says how weak.
		weak := "a weak read"
		if notes, nerr := src.Notes(c.Player); nerr == nil {
			if conf, ok := weakReadOf(notes, k.Name); ok {
				weak = fmt.Sprintf("a weak read at %.0f%%", 100*conf)
			}
		}
		if c.GMConfirms {
			c.confirmed = fmt.Sprintf("tearcam counts no full letter of %q left, not certainly (%s located it on the fresh sheet); the GM confirmed one is left", k.Name, weak)
			if c.warn != nil {
				fmt.Fprintf(c.warn, "note: %s: %s\n", c.Player, c.confirmed)
			}
			err = nil
		} else {
			err = uncertainLoss(fmt.Sprintf("%s has no full letter of %q left by tearcam's count, but that count is not certain: %s located %q on the fresh sheet, so the letters counted gone may be another word's; if the GM sees a full letter of %q on the sheet, run again with --gm-confirms",
				st.Name, k.Name, weak, k.Name, k.Name))
		}
	}
	if k, ok := skillOf(st, skill); ok && err == nil && !k.Measured && k.Remaining > 0 && c.warn != nil {
		// A count above 0 that is not certain (an unmeasured tear since, a letter too close
		// to call, a weak read): the skill is used, and the GM is told to look.
		fmt.Fprintf(c.warn, "note: %s: tearcam's count of %d %s of %q left is not certain (the last ruling's notes say why): the GM looks at the sheet, and if no full letter of it is left there, the skill is lost and this roll does not stand\n", c.Player, k.Remaining, plural(k.Remaining, "letter", "letters"), k.Name)
	}
	if k, ok := skillOf(st, skill); ok && err == nil {
		c.declared = k.Name
	}
	if err == nil && st.Owed > 0 && c.warn != nil {
		fmt.Fprintf(c.warn, "note: %s still owes %d %s after a faux pas\n", c.Player, st.Owed, plural(st.Owed, "tear", "tears"))
	}
	if err != nil {
		src.Close()
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, judge.ErrOut) ||
			errors.Is(err, judge.ErrSkillLost) || errors.Is(err, judge.ErrUnknownSkill) {
			return nil, &UsageError{Err: fmt.Errorf("%s: %w", c.DB, err)}
		}
		return nil, err
	}
	return src, nil
}

// uncertainLoss is a refusal for a count of 0 that is not certain: errors.Is(err,
// judge.ErrSkillLost) holds, but its text does not end "skill lost", which it may not be.
type uncertainLoss string

func (e uncertainLoss) Error() string { return string(e) }
func (e uncertainLoss) Unwrap() error { return judge.ErrSkillLost }

// weakReadOf finds, in a ruling's notes, the confidence of the weak read that located skill
// on the fresh sheet: judge's note "letters left not certain (the skill was located on the
// fresh sheet by a weak read, ...): Hopscotch 0 (21%), ...".
func weakReadOf(notes []string, skill string) (float64, bool) {
	for _, n := range notes {
		if !strings.Contains(n, "by a weak read") {
			continue
		}
		_, list, ok := strings.Cut(n, "): ")
		if !ok {
			continue
		}
		for _, item := range strings.Split(list, ", ") {
			// "NAME N (P%)"
			head, pct, ok := strings.Cut(strings.TrimSuffix(item, "%)"), " (")
			if !ok {
				continue
			}
			i := strings.LastIndexByte(head, ' ')
			p, err := strconv.ParseFloat(pct, 64)
			if i < 0 || err != nil || !strings.EqualFold(strings.TrimSpace(head[:i]), strings.TrimSpace(skill)) {
				continue
			}
			return p / 100, true
		}
	}
	return 0, false
}

// skillOf is the state of the skill named (as Standing.CanUse matches it).
func skillOf(st judge.Standing, skill string) (judge.SkillState, bool) {
	for _, k := range st.Skills {
		if k.Name == skill || strings.EqualFold(strings.TrimSpace(k.Name), strings.TrimSpace(skill)) {
			return k, true
		}
	}
	return judge.SkillState{}, false
}

// diceSource is the random source: seeded with --seed, crypto/rand otherwise.
func diceSource(cmd *cobra.Command, seed uint64) engine.Source {
	if cmd != nil && cmd.Flags().Changed("seed") {
		return engine.SeededRand(seed)
	}
	return engine.CryptoRand()
}

// throwOptions holds the parsed flags of `tearcam throw`.
type throwOptions struct {
	IO *IO
	characterFlags

	Skill          string
	Attribute      int
	AttributeName  string
	AllowAttribute bool
	Series         int
	Focus          bool

	Choices   []string // the player's choices, round by round
	GMChoices []string // the GM's (or opponent's)
	GM        string   // random | prompt: the GM's side once GMChoices run out

	Commit       string   // make a commitment for this choice and stop
	PlayerCommit []string // commit-reveal: each side's commitments and reveals per round
	PlayerReveal []string
	GMCommit     []string
	GMReveal     []string

	Seed uint64
	JSON bool

	// Source is the random source (set from --seed).
	Source engine.Source
	// NewNonce makes commit nonces (a stub in tests).
	NewNonce func() (string, error)
}

func newThrowCmd(iostreams *IO, runF func(*throwOptions) error) *cobra.Command {
	opts := &throwOptions{IO: iostreams}
	cmd := &cobra.Command{
		Use:   "throw",
		Short: "Make a Throw: Stones, Scrolls, Swords against the GM, best of 1, 3 or 5",
		Long: `Make a Throw (rock-paper-scissors as Stones, Scrolls, Swords; Stones beats Swords,
Swords beats Scrolls, Scrolls beats Stones) and print the Outcome Number: the Attribute
modifier, +1 for winning the series or -1 for losing it, and one per draw in the winner's
direction. Focus starts the thrower one round up.

The player's choices come from --choice (one per round, draws included) or are typed at the
prompt; the GM's from --gm-choice, then at random (--gm random) or at the prompt (--gm prompt).
Both are revealed together each round.

For play at a distance, commit-reveal: each side runs "tearcam throw --commit CHOICE" per round
and publishes the commitment (keeping the reveal secret); once both are published, each
reveals, and --player-commit/--player-reveal/--gm-commit/--gm-reveal resolve the throw,
refusing any reveal that does not match its commitment.

With --db and --player the character comes from the session database: it can throw only
with a skill that still has a full letter on its sheet, and not at all once out; the throw
is recorded there. A count of 0 letters that is not certain (0? in the rulings) refuses the
skill too, unless the GM, having looked at the sheet, says --gm-confirms.`,
		Example: `  tearcam throw --skill Swordsmanship --attribute 2 --series 3 --choice stones,swords
  tearcam throw --db tearcam.db --player Ann --skill Archery --attribute 1 --focus --seed 7 --json
  tearcam throw --commit scrolls`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = diceSource(cmd, opts.Seed)
			if runF != nil {
				return runF(opts)
			}
			return runThrow(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Skill, "skill", "", "the skill used for the Throw")
	f.IntVar(&opts.Attribute, "attribute", 0, "the Attribute modifier, -3..+3")
	f.StringVar(&opts.AttributeName, "attribute-name", "", "the Attribute: Stones, Scrolls, Swords or Sorcery (informational)")
	f.BoolVar(&opts.AllowAttribute, "allow-attribute", false, "allow an Attribute modifier outside -3..+3")
	opts.Series = 1
	f.Var((*seriesValue)(&opts.Series), "series", "Series Length: best of 1, 3 or 5 (also bo1, bo3, bo5)")
	f.BoolVar(&opts.Focus, "focus", false, "Focus with the Skill: start one round up")
	f.StringSliceVar(&opts.Choices, "choice", nil, "the player's choices, one per round (stones, scrolls, swords)")
	f.StringSliceVar(&opts.GMChoices, "gm-choice", nil, "the GM's choices, one per round")
	f.StringVar(&opts.GM, "gm", "random", "the GM's side once --gm-choice runs out: random or prompt")
	f.StringVar(&opts.Commit, "commit", "", "print a commitment and a reveal for this choice, then stop")
	f.StringSliceVar(&opts.PlayerCommit, "player-commit", nil, "the player's published commitments, one per round")
	f.StringSliceVar(&opts.PlayerReveal, "player-reveal", nil, "the player's reveals (CHOICE:NONCE), one per round")
	f.StringSliceVar(&opts.GMCommit, "gm-commit", nil, "the GM's published commitments, one per round")
	f.StringSliceVar(&opts.GMReveal, "gm-reveal", nil, "the GM's reveals (CHOICE:NONCE), one per round")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed the random source for reproducible play (default: crypto/rand)")
	f.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	opts.characterFlags.add(cmd)
	refuseRepeats(f)
	return cmd
}

// throwReport is what `throw` prints with --json and records in the database.
type throwReport struct {
	Player string `json:"player,omitempty"`
	// GMConfirmed: the skill was used on the GM's word (--gm-confirms), and what was confirmed.
	GMConfirmed string `json:"gm_confirmed,omitempty"`
	engine.ThrowResult
}

func runThrow(opts *throwOptions) error {
	if opts.Commit != "" {
		return runCommit(opts)
	}
	spec := engine.ThrowSpec{Skill: opts.Skill, Attribute: opts.AttributeName, Modifier: opts.Attribute,
		AllowModifier: opts.AllowAttribute, Series: opts.Series, Focus: opts.Focus}
	if err := spec.Validate(); err != nil {
		if errors.Is(err, engine.ErrAttribute) {
			return usageErrorf("--attribute %+d is outside -3..+3 (use --allow-attribute to exceed it)", opts.Attribute)
		}
		if errors.Is(err, engine.ErrSeriesLength) {
			return usageErrorf("--series %d: the series is best of 1, 3 or 5", opts.Series)
		}
		return &UsageError{Err: err}
	}
	used := &sources{}
	opts.warn = opts.IO.ErrOut
	player, gm, err := throwChoosers(opts, used)
	if err != nil {
		return err
	}
	src, err := opts.openCharacter(opts.Skill)
	if err != nil {
		return err
	}
	if src != nil {
		defer src.Close()
	}
	if opts.declared != "" {
		// Shown and recorded as the sheet declares it (a tester: "HAND" recorded for hand).
		opts.Skill, spec.Skill = opts.declared, opts.declared
	}
	res, err := engine.Throw(spec, player, gm)
	if err != nil {
		if errors.Is(err, engine.ErrBadChoice) {
			return &UsageError{Err: fmt.Errorf("throw: %w", err)}
		}
		return fmt.Errorf("throw: %w", err)
	}
	res.Source = used.String()
	rep := throwReport{Player: opts.Player, GMConfirmed: opts.confirmed, ThrowResult: res}
	if src != nil {
		// Recorded before it is reported: nothing is shown that the database lacks.
		if err := src.RecordRoll(opts.Player, "throw", rep); err != nil {
			return fmt.Errorf("record throw: %w", err)
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, rep)
	}
	return printThrow(opts.IO.Out, rep)
}

// sources notes where each side's choices came from, for the record.
type sources struct{ player, gm []string }

func (s *sources) String() string {
	if len(s.player)+len(s.gm) == 0 {
		return "no round thrown"
	}
	join := func(v []string) string {
		if len(v) == 0 {
			return "none"
		}
		return strings.Join(v, ", ")
	}
	return "player: " + join(s.player) + "; GM: " + join(s.gm)
}

// tracked is a Chooser that notes its name in *used the first time it gives a choice.
type tracked struct {
	name string
	c    engine.Chooser
	used *[]string
}

func (t tracked) Choose(round int) (engine.Choice, error) {
	c, err := t.c.Choose(round)
	if err == nil && !slices.Contains(*t.used, t.name) {
		*t.used = append(*t.used, t.name)
	}
	return c, err
}

func (opts *throwOptions) usesCommitReveal() bool {
	return len(opts.PlayerCommit)+len(opts.PlayerReveal)+len(opts.GMCommit)+len(opts.GMReveal) > 0
}

// throwChoosers builds both sides' choosers from the flags; used learns which gave choices.
func throwChoosers(opts *throwOptions, used *sources) (player, gm engine.Chooser, err error) {
	if opts.usesCommitReveal() {
		if len(opts.Choices)+len(opts.GMChoices) > 0 {
			return nil, nil, usageErrorf("--choice and --gm-choice do not mix with commit-reveal")
		}
		p, err := committed("player", opts.PlayerCommit, opts.PlayerReveal)
		if err != nil {
			return nil, nil, err
		}
		g, err := committed("gm", opts.GMCommit, opts.GMReveal)
		if err != nil {
			return nil, nil, err
		}
		return tracked{"commit-reveal", p, &used.player}, tracked{"commit-reveal", g, &used.gm}, nil
	}
	pc, err := parseChoices("--choice", opts.Choices)
	if err != nil {
		return nil, nil, err
	}
	gc, err := parseChoices("--gm-choice", opts.GMChoices)
	if err != nil {
		return nil, nil, err
	}
	prompt := newPrompter(opts.IO.In, opts.IO.ErrOut)
	player = engine.Then{First: tracked{"--choice", pc, &used.player},
		Next: tracked{"prompt", promptChooser{p: prompt, who: "player"}, &used.player}}
	var next engine.Chooser
	switch opts.GM {
	case "random":
		next = tracked{opts.Source.Name, engine.Random{Rand: opts.Source}, &used.gm}
	case "prompt":
		next = tracked{"prompt", promptChooser{p: prompt, who: "GM"}, &used.gm}
	default:
		return nil, nil, usageErrorf("--gm %q: want random or prompt", opts.GM)
	}
	gm = engine.Then{First: tracked{"--gm-choice", gc, &used.gm}, Next: next}
	return player, gm, nil
}

func parseChoices(flag string, in []string) (engine.Fixed, error) {
	var out engine.Fixed
	for _, s := range in {
		c, err := engine.ParseChoice(s)
		if err != nil {
			return nil, usageErrorf("%s: %w", flag, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func committed(side string, commits, reveals []string) (engine.Chooser, error) {
	if len(commits) == 0 || len(commits) != len(reveals) {
		return nil, usageErrorf("commit-reveal: --%s-commit and --%s-reveal need one entry each per round (%d and %d given)",
			side, side, len(commits), len(reveals))
	}
	c := engine.Committed{Commitments: commits}
	for _, r := range reveals {
		rv, err := engine.ParseReveal(r)
		if err != nil {
			return nil, usageErrorf("--%s-reveal: %w", side, err)
		}
		c.Reveals = append(c.Reveals, rv)
	}
	return c, nil
}

// runCommit prints a commitment and the matching reveal for one round's choice.
func runCommit(opts *throwOptions) error {
	c, err := engine.ParseChoice(opts.Commit)
	if err != nil {
		return usageErrorf("--commit: %w", err)
	}
	newNonce := opts.NewNonce
	if newNonce == nil {
		newNonce = engine.NewNonce
	}
	nonce, err := newNonce()
	if err != nil {
		return err
	}
	rv := engine.Reveal{Choice: c, Nonce: nonce}
	commitment := engine.Commitment(c, nonce)
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			Commitment string `json:"commitment"`
			Reveal     string `json:"reveal"`
		}{commitment, rv.String()})
	}
	_, err = fmt.Fprintf(opts.IO.Out, "commitment %s\nreveal %s\n", commitment, rv)
	if err == nil {
		fmt.Fprintln(opts.IO.ErrOut, "publish the commitment now; keep the reveal secret until both sides have published theirs")
	}
	return err
}

// prompter reads choices typed at the terminal, or piped in.
type prompter struct {
	in  *bufio.Reader
	out io.Writer
	// tty is true when in is a terminal: prompt before reading. Otherwise a prompt is
	// written only when there is something to read, so that empty input gives the error
	// alone.
	tty bool
	// pending is true when a prompt ends the last line written to out.
	pending bool
}

func newPrompter(in io.Reader, out io.Writer) *prompter {
	f, ok := in.(*os.File)
	return &prompter{in: bufio.NewReader(in), out: out, tty: ok && isatty.IsTerminal(f.Fd())}
}

type promptChooser struct {
	p   *prompter
	who string
}

// noThrow is the error for input that ended before round's throw: it ends the prompt's
// line and names the flag that gives this side's throws.
func (c promptChooser) noThrow(round int) error {
	if c.p.pending {
		fmt.Fprintln(c.p.out)
		c.p.pending = false
	}
	if c.who == "GM" {
		return usageErrorf("no throw for round %d: the input ended (give the GM's throws with --gm-choice, or --gm random)", round)
	}
	return usageErrorf("no throw for round %d: the input ended (give the player's throws with --choice, e.g. --choice stones,swords)", round)
}

func (c promptChooser) Choose(round int) (engine.Choice, error) {
	for {
		if !c.p.tty {
			if _, err := c.p.in.Peek(1); err != nil {
				return 0, c.noThrow(round)
			}
		}
		fmt.Fprintf(c.p.out, "round %d, %s's throw (stones, scrolls, swords): ", round, c.who)
		c.p.pending = true
		line, err := c.p.in.ReadString('\n')
		if c.p.tty && strings.HasSuffix(line, "\n") {
			c.p.pending = false // the terminal echoed the newline
		}
		if strings.TrimSpace(line) == "" {
			if err != nil {
				return 0, c.noThrow(round)
			}
			continue
		}
		ch, perr := engine.ParseChoice(line)
		if perr == nil {
			return ch, nil
		}
		if err != nil {
			return 0, usageErrorf("round %d: %w", round, perr)
		}
		c.p.pending = false
		fmt.Fprintf(c.p.out, "%v\n", perr)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printThrow(w io.Writer, r throwReport) error {
	var b strings.Builder
	s := r.Spec
	fmt.Fprintf(&b, "Throw")
	if r.Player != "" {
		fmt.Fprintf(&b, " by %s", r.Player)
	}
	if s.Skill != "" {
		fmt.Fprintf(&b, " with %s", s.Skill)
	}
	attr := "Attribute"
	if s.Attribute != "" {
		attr = s.Attribute
	}
	fmt.Fprintf(&b, ": %s %+d, best of %d", attr, s.Modifier, s.Series)
	if s.Focus {
		b.WriteString(", Focus (one round up)")
	}
	b.WriteString("\n")
	for i, rd := range r.Rounds {
		res := map[int]string{1: "won", -1: "lost", 0: "draw"}[rd.Result]
		fmt.Fprintf(&b, "round %d: %s vs %s: %s\n", i+1, rd.Player, rd.Opponent, res)
	}
	verb := "lost"
	if r.Won {
		verb = "won"
	}
	fmt.Fprintf(&b, "series %s %d-%d, %d %s\n", verb, r.PlayerWins, r.OpponentWins, r.Draws, plural(r.Draws, "draw", "draws"))
	sign := "negative"
	if r.Positive {
		sign = "positive"
	}
	fmt.Fprintf(&b, "Outcome Number %+d (%s) = Attribute %+d, Throw Winner %+d, Draw Break %+d\n",
		r.Outcome, sign, s.Modifier, r.Winner, r.DrawBreak)
	_, err := io.WriteString(w, b.String())
	return err
}

// count is n and the noun for n: "1 tear", "4 tears" (plural).
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// seriesValue is the --series flag: 1, 3 or 5, or bo1, bo3, bo5.
type seriesValue int

func (v *seriesValue) String() string { return strconv.Itoa(int(*v)) }
func (v *seriesValue) Type() string   { return "1|3|5" }
func (v *seriesValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "bo"))
	if err != nil || (n != 1 && n != 3 && n != 5) {
		return fmt.Errorf("%q: the series is best of 1, 3 or 5", s)
	}
	*v = seriesValue(n)
	return nil
}
