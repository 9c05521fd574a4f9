package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/session"
	"tearcam/template"
)

// judgePlayer is the player's name in the one-tear rulings document of `tearcam judge`.
const judgePlayer = "player"

// judgeOptions holds the parsed flags of `tearcam judge`.
type judgeOptions struct {
	IO     *IO
	Before string
	After  string
	Skills string // comma-separated
	Tear   string // kind:skill
	Paper  string
	// PaperGiven: --paper was given. Without it A4 is assumed, and the ruling says so.
	PaperGiven bool
	Template   string
	JSON       bool

	// NewPipeline starts vision and OCR (a fake in tests).
	NewPipeline func() (pipeline, error)
}

func newJudgeCmd(iostreams *IO, runF func(*judgeOptions) error) *cobra.Command {
	opts := &judgeOptions{IO: iostreams, NewPipeline: newCVPipeline}
	cmd := &cobra.Command{
		Use:   "judge --before FRESH.jpg --after TORN.jpg --skills \"A,B,...\" --tear use:A",
		Short: "Rule one tear from a photo of the untorn sheet and one after the tear",
		Long: `Rule one tear: the untorn sheet's photo (--before), the photo after the tear (--after), the
declared skills and the tear as announced (--tear KIND:SKILL, KIND one of use, damage, penalty).
Prints the ruling as a table, or with --json the rulings document (DESIGN.md) on stdout with one
player named "player" and one tear.

Exit status: 0 when a ruling was written (whatever it says, undecided included), 2 for bad
usage, 1 for anything else.`,
		Example: `  tearcam judge --before ann-0.jpg --after ann-1.jpg --skills "Swordsmanship,Investigation,Tea Ceremony,Hopscotch,Archery,Cooking" --tear use:Swordsmanship --json`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PaperGiven = cmd.Flags().Changed("paper")
			if runF != nil {
				return runF(opts)
			}
			return runJudge(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Before, "before", "", "photo of the untorn sheet (required)")
	f.StringVar(&opts.After, "after", "", "photo of the sheet after the tear (required)")
	f.StringVar(&opts.Skills, "skills", "", "the declared skills, comma-separated (required)")
	f.StringVar(&opts.Tear, "tear", "", "the tear as announced, KIND:SKILL, e.g. use:Archery (required)")
	f.StringVar(&opts.Paper, "paper", "a4", "paper size: a4, letter or WxH in millimetres")
	f.StringVar(&opts.Template, "template", "default", "template JSON `FILE`, or default: a 38.1 x 25.4 mm rectangle")
	f.BoolVar(&opts.JSON, "json", false, "print the rulings document as JSON")
	for _, name := range []string{"before", "after", "skills", "tear"} {
		cmd.MarkFlagRequired(name)
	}
	// judge rules one tear: a flag given twice (a second --tear) is refused, never the last
	// silently taken.
	refuseRepeats(f)
	return cmd
}

// manifest turns the flags into a one-player, one-tear manifest.
func (opts *judgeOptions) manifest() (*session.Manifest, error) {
	paper, err := template.ParsePaper(opts.Paper)
	if err != nil {
		return nil, usageErrorf("--paper: %v", err)
	}
	tpl, err := template.Load(opts.Template)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if err := tpl.CheckPaper(paper); err != nil {
		return nil, usageErrorf("--template %s: %v", opts.Template, err)
	}
	skills, err := skillList("--skills", opts.Skills)
	if err != nil {
		return nil, err
	}
	kind, skill, ok := strings.Cut(opts.Tear, ":")
	kind, skill = strings.TrimSpace(kind), session.Name(skill)
	t := session.Tear{Tear: judge.Tear{Kind: judge.Kind(kind)}, Photo: opts.After}
	switch t.Kind {
	case judge.KindUse, judge.KindDamage, judge.KindPenalty:
	default:
		return nil, usageErrorf("--tear %q: want KIND:SKILL with KIND use, damage or penalty", opts.Tear)
	}
	if !ok || skill == "" {
		if t.Kind != judge.KindPenalty {
			return nil, usageErrorf("--tear %q: name the skill, e.g. %s:%s", opts.Tear, kind, skills[0])
		}
	} else {
		for _, s := range skills {
			if strings.EqualFold(s, skill) {
				t.Skill = s
			}
		}
		if t.Skill == "" {
			return nil, usageErrorf("--tear %q: %q is not among --skills", opts.Tear, skill)
		}
	}
	for _, p := range []struct{ flag, path string }{{"--before", opts.Before}, {"--after", opts.After}} {
		st, err := os.Stat(p.path)
		switch {
		case err != nil:
			return nil, usageErrorf("%s %s: %v", p.flag, p.path, errors.Unwrap(err))
		case !st.Mode().IsRegular():
			return nil, usageErrorf("%s %s: not a regular file", p.flag, p.path)
		}
	}
	return &session.Manifest{File: "judge", Dir: ".", PaperName: paper.Name, PaperAssumed: !opts.PaperGiven, Paper: paper, TemplateRef: opts.Template,
		Template: tpl, Players: []session.Player{{Name: judgePlayer, Skills: skills, Sheet: opts.Before, Tears: []session.Tear{t}}}}, nil
}

func runJudge(ctx context.Context, opts *judgeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	m, err := opts.manifest()
	if err != nil {
		return err
	}
	pl, err := opts.NewPipeline()
	if err != nil {
		return err
	}
	defer pl.Close()
	warnUnreadable(opts.IO.ErrOut, m)
	ref := &referee.Referee{Eye: pl, Reader: pl, Command: "judge", Versions: versions(), GMAdvice: judgeGMAdvice}
	var table *rulingsTable
	if !opts.JSON {
		table = newRulingsTable(opts.IO.Out, m)
		ref.OnSheet = func(player string, s judge.SheetResult, words []referee.Word) { table.sheet(player, s, words) }
		ref.OnRuling = func(player string, r judge.TearRuling, reused bool) { table.ruling(player, r) }
	}
	res, err := ref.Audit(ctx, m)
	if table != nil {
		table.legend()
	}
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	if m.PaperAssumed {
		// Said in the ruling (its notes, a line under the table), not on stderr: judge's
		// stderr is one line per bad photo, and tests outside the project read it.
		note := paperAssumedNote(m.PaperName)
		for i := range res.Rulings.Players {
			for j := range res.Rulings.Players[i].Tears {
				t := &res.Rulings.Players[i].Tears[j]
				t.Notes = append(t.Notes, note)
			}
		}
		if table != nil {
			fmt.Fprintf(opts.IO.Out, "  %3s  %s\n", "", note)
		}
	}
	if opts.JSON {
		if err := writeRulings(opts.IO, "-", res.Rulings); err != nil {
			return err
		}
	}
	warnBadPhotos(opts.IO, res)
	return nil
}

// paperAssumedNote says that judge assumed paper (the --paper default) as none was given: A4
// and US letter look alike in a photo (the sheet's shape differs by 9%), and a letter sheet
// measured as A4 is 6% off in height and 3% in width.
func paperAssumedNote(paper string) string {
	return fmt.Sprintf("paper assumed %s (--paper not given): a US letter sheet looks alike in a photo and would be measured at the wrong scale (6%% in height): give --paper a4 or --paper letter", paper)
}

// judgeGMAdvice is how the GM records a ruling after judge, where an undecided reason's
// advice ends: judge keeps no record (no manifest, no database), so the GM's ruling stands as
// given, and an audit is where it is recorded (DESIGN.md: the manifest's tears).
func judgeGMAdvice(string, int) string {
	return "rules on this tear (tearcam judge keeps no record; tearcam audit records the ruling as this tear's gm: in the session manifest)"
}

// skillList parses a comma-separated list of skills given to flag (judge --skills, watch
// --skills for one player): names tidied as a manifest's are (session.Name), each with
// letters, none empty, none twice; at least one. Errors are usage errors.
func skillList(flag, list string) ([]string, error) {
	var skills []string
	seen := map[string]string{} // lower case: as first given
	empty := strings.TrimSpace(strings.ReplaceAll(list, ",", "")) == ""
	for i, s := range strings.Split(list, ",") {
		s = session.Name(s) // one skill typed two ways is one skill
		switch {
		case s == "" && empty:
			continue
		case s == "":
			return nil, usageErrorf("%s %q: skill %d is empty", flag, list, i+1)
		case judge.Letters(s) == 0:
			return nil, usageErrorf("%s: %q has no letters", flag, s)
		case seen[strings.ToLower(s)] != "":
			return nil, usageErrorf("%s: %q given twice%s", flag, s, session.Spellings(seen[strings.ToLower(s)], s))
		}
		seen[strings.ToLower(s)] = s
		skills = append(skills, s)
	}
	if len(skills) == 0 {
		return nil, usageErrorf("%s: no skill given", flag)
	}
	return skills, nil
}
