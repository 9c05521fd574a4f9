package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"tearcam/judge"
	"tearcam/referee"
	"tearcam/report"
	"tearcam/session"
	"tearcam/store"
)

// auditOptions holds the parsed flags of `tearcam audit`.
type auditOptions struct {
	IO       *IO
	Manifest string
	JSON     string // "" none, "-" stdout
	Report   string
	Annotate string
	DB       string // "" means tearcam.db next to the manifest

	// NewPipeline starts vision and OCR (a fake in tests).
	NewPipeline func() (pipeline, error)
}

func newAuditCmd(iostreams *IO, runF func(*auditOptions) error) *cobra.Command {
	opts := &auditOptions{IO: iostreams, NewPipeline: newCVPipeline}
	cmd := &cobra.Command{
		Use:   "audit SESSION.yaml",
		Short: "Rule every tear of a session from its photos",
		Long: `Rule every player's tears in a session manifest (DESIGN.md): find each untorn sheet and
locate its skills once, register every later photo to it, measure each tear against the sheet
before it, and rule it. Rulings are printed as a table on stdout (unless --json -), committed
to the session database as they are made, and re-used on a re-run when their photos and
manifest entries have not changed: Ctrl-C stops between tears, and running the same command
again resumes from the rulings kept.

Exit status: 0 when rulings were written (whatever they say), 2 for bad usage or a bad
manifest, 1 for anything else. A photo that cannot be read makes its tear undecided.`,
		Example: `  tearcam audit testdata/images/sample/session.yaml --json out/rulings.json --report out/report.html
  tearcam audit session.yaml --json - | jq '.players[].tears[].verdict'`,
		Args: oneArg("SESSION.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Manifest = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runAudit(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.JSON, "json", "", "write the rulings as JSON to `FILE` (- for stdout)")
	f.StringVar(&opts.Report, "report", "", "write a self-contained HTML report to `FILE`")
	f.StringVar(&opts.Annotate, "annotate", "", "write each tear's annotated image into `DIR`")
	f.StringVar(&opts.DB, "db", "", "session database `FILE` (default tearcam.db next to the manifest, or in the working folder)")
	refuseRepeats(f) // a second --json (or any single-value flag) is refused, as judge does
	return cmd
}

func runAudit(ctx context.Context, opts *auditOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// An interrupted audit stops between tears and records its run as failed; every ruling
	// reported so far is already committed, and a re-run resumes from them.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := session.Load(opts.Manifest, session.Audit)
	if err != nil {
		return &UsageError{Err: err}
	}
	if opts.Report == "-" {
		return usageErrorf("--report -: the report is a file (only --json - writes to standard output)")
	}
	for _, out := range []struct{ flag, path string }{{"--json", opts.JSON}, {"--report", opts.Report}} {
		if err := checkOutputFile(out.flag, out.path); err != nil {
			return err
		}
	}
	annotated := annotatedOutputs(opts.Annotate, m)
	if err := checkDistinctFiles(m, append([]namedPath{{"--json", opts.JSON}, {"--report", opts.Report}, {"--db", opts.DB}}, annotated...)); err != nil {
		return err
	}
	if opts.DB != "" {
		if err := checkDBFile("--db", opts.DB); err != nil {
			return err
		}
	}
	if opts.Annotate != "" {
		if err := os.MkdirAll(opts.Annotate, 0o755); err != nil {
			return usageErrorf("--annotate %s: %v", opts.Annotate, errors.Unwrap(err))
		}
		if !writable(opts.Annotate) {
			return usageErrorf("--annotate %s: folder is not writable", opts.Annotate)
		}
	}
	dbPath := opts.DB
	if dbPath == "" {
		// tearcam.db next to the manifest, or in the working folder when the manifest's
		// folder is read-only (SQLite's WAL needs to create files beside the database).
		if dbPath, err = defaultDB(opts.IO, m.Dir); err != nil {
			return err
		}
	}
	if opts.DB == "" { // the default database, against the inputs and outputs too
		if err := checkDistinctFiles(m, append([]namedPath{{"--json", opts.JSON}, {"--report", opts.Report}, {"--db", dbPath}}, annotated...)); err != nil {
			return err
		}
	}
	db, err := openDB(dbFlag(opts.DB), dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	pl, err := opts.NewPipeline()
	if err != nil {
		return err
	}
	defer pl.Close()
	warnUnreadable(opts.IO.ErrOut, m)
	if m.PaperAssumed {
		fmt.Fprintf(opts.IO.ErrOut, "%s: no paper given: A4 assumed (a US letter sheet looks alike in a photo and would be measured at the wrong scale: say paper: letter)\n", opts.Manifest)
	}

	ref := &referee.Referee{Eye: pl, Reader: pl, DB: db, Session: store.SessionName(opts.Manifest, dbPath),
		Command: "audit", Versions: versions(), Images: opts.Report != "" || opts.Annotate != ""}
	var table *rulingsTable
	if opts.JSON != "-" {
		table = newRulingsTable(opts.IO.Out, m)
	}
	bar := newProgress(opts.IO, len(m.Players)+m.Tears(), "auditing "+filepath.Base(opts.Manifest))
	if table != nil && bar != nil {
		table.before = func() { bar.Clear() }
		table.after = func() { bar.RenderBlank() }
	}
	ref.OnSheet = func(player string, s judge.SheetResult, words []referee.Word) {
		if table != nil {
			table.sheet(player, s, words)
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	ruled := 0
	ref.OnRuling = func(player string, r judge.TearRuling, reused bool) {
		ruled++
		if table != nil {
			table.ruling(player, r)
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	res, err := ref.Audit(ctx, m)
	if table != nil {
		table.legend()
	}
	if bar != nil {
		bar.Finish()
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Interrupted (Ctrl-C, SIGTERM): every ruling reported is committed; the documents
		// are not written, since they would be incomplete. What the database keeps is counted
		// there: a resumed audit interrupted before it reported the rulings it re-uses keeps
		// them all the same.
		kept := keptRulings(db, ref.Session, m)
		if kept < ruled {
			kept = ruled
		}
		return fmt.Errorf("audit %s: interrupted after %d of %s %s reported; %s keeps %d of them, and running the same command again resumes from them%s",
			opts.Manifest, ruled, count(m.Tears(), "tear ruling", "tear rulings"), plural(ruled, "was", "were"), dbPath, kept, opts.notWritten())
	}
	if err != nil {
		return fmt.Errorf("audit %s: %w", opts.Manifest, err)
	}
	if res.Reused > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "re-used %s from %s\n", count(res.Reused, "unchanged ruling", "unchanged rulings"), dbPath)
	}
	if err := writeRulings(opts.IO, opts.JSON, res.Rulings); err != nil {
		return err
	}
	if opts.Report != "" {
		page := res.Page("tearcam audit: "+filepath.Base(opts.Manifest), VersionString())
		if err := writeOutput(opts.Report, func(w io.Writer) error { return report.Write(w, page) }); err != nil {
			return err
		}
	}
	if opts.Annotate != "" {
		summary, err := writeAnnotated(opts.Annotate, res)
		if err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.ErrOut, summary)
	}
	warnBadPhotos(opts.IO, res)
	return missingPhotos(opts.IO, m)
}

// notWritten says which of the outputs asked for an interrupted audit did not write
// (" (no --json or --annotate written)"), or "" when none was asked for.
func (opts *auditOptions) notWritten() string {
	var flags []string
	for _, f := range []struct{ flag, path string }{{"--json", opts.JSON}, {"--report", opts.Report}, {"--annotate", opts.Annotate}} {
		if f.path != "" {
			flags = append(flags, f.flag)
		}
	}
	switch len(flags) {
	case 0:
		return ""
	case 1:
		return " (no " + flags[0] + " written)"
	}
	return " (no " + strings.Join(flags[:len(flags)-1], ", ") + " or " + flags[len(flags)-1] + " written)"
}

// warnBadPhotos prints, after the rulings were written, one line on stderr for each photo
// that could not be used as a photo at all (not an image, unreadable), naming the file and
// the tears ruled undecided for it. The exit status stays 0: the rulings were written, and a
// bad photo makes its tear undecided (DESIGN.md); audit and judge say it the same way.
func warnBadPhotos(iostreams *IO, res *referee.Result) {
	for _, line := range res.BadPhotos {
		fmt.Fprintln(iostreams.ErrOut, "tearcam: "+line)
	}
}

// keptRulings counts the current rulings the database keeps for the manifest's tears in
// session: those of this run and of earlier runs, which a re-run re-uses when their photos
// and entries have not changed. A player or ruling it cannot read counts 0.
func keptRulings(db *store.DB, session string, m *session.Manifest) int {
	n := 0
	for _, p := range m.Players {
		sp, err := db.FindPlayer(context.Background(), session, p.Name)
		if err != nil {
			continue
		}
		rs, err := db.Rulings(context.Background(), sp.ID)
		if err != nil {
			continue
		}
		for _, r := range rs {
			if r.Index >= 1 && r.Index <= len(p.Tears) {
				n++
			}
		}
	}
	return n
}

// missingPhotos reports the photos the manifest names that do not exist, after every ruling
// was written: each such tear (or, for a missing sheet, each of that player's tears) is ruled
// undecided and nothing else is lost (DESIGN.md: "a bad photo in an audit makes that tear
// undecided; the other rulings still come out"). The manifest is still wrong, so the exit
// status is 2: every missing photo but the last is one line on stderr, the last is the error.
func missingPhotos(iostreams *IO, m *session.Manifest) error {
	n := len(m.Missing)
	if n == 0 {
		return nil
	}
	for _, e := range m.Missing[:n-1] {
		fmt.Fprintln(iostreams.ErrOut, "tearcam: "+e.Error())
	}
	sheets := 0
	for _, e := range m.Missing {
		if e.Sheet {
			sheets++
		}
	}
	what := "that tear is"
	switch {
	case sheets == n && n == 1:
		what = "all of that player's tears are"
	case sheets > 0:
		what = "those tears, and all tears of a player whose untorn sheet is missing, are"
	case n > 1:
		what = "those tears are"
	}
	return usageErrorf("%v (%s ruled undecided; every other ruling was written)", m.Missing[n-1], what)
}

// defaultDB is the session database when --db is not given: tearcam.db next to the manifest,
// or in the working folder when the manifest's folder is read-only (SQLite needs to create
// its journal files beside the database). When neither folder is writable it says so in one
// line.
func defaultDB(iostreams *IO, manifestDir string) (string, error) {
	path := filepath.Join(manifestDir, "tearcam.db")
	if writable(manifestDir) {
		fmt.Fprintf(iostreams.ErrOut, "session database: %s (the default; choose another with --db)\n", path)
		return path, nil
	}
	if sameDir(manifestDir, ".") || !writable(".") {
		if sameDir(manifestDir, ".") {
			return "", usageErrorf("session database: the manifest's folder %s is not writable: choose a database file in a writable folder with --db", manifestDir)
		}
		return "", usageErrorf("session database: neither the manifest's folder %s nor the working folder is writable: choose a database file in a writable folder with --db", manifestDir)
	}
	path = "tearcam.db"
	fmt.Fprintf(iostreams.ErrOut, "%s is read-only: session database in %s (choose another with --db)\n", manifestDir, path)
	return path, nil
}

// sameDir reports whether a and b are the same folder.
func sameDir(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// newProgress is a progress bar on stderr when stderr is a terminal, else nil.
func newProgress(iostreams *IO, total int, desc string) *progressbar.ProgressBar {
	if !iostreams.ErrTTY || total <= 0 {
		return nil
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(iostreams.ErrOut),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	)
}

// writeRulings writes the --json document: indented, one trailing newline, the same bytes
// for the same rulings.
func writeRulings(iostreams *IO, path string, doc judge.Rulings) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode rulings: %w", err)
	}
	b = append(b, '\n')
	if path == "-" {
		_, err := iostreams.Out.Write(b)
		return err
	}
	return writeOutput(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// annotatedBases is each player's file-name base for the annotated images: the name with
// anything but letters, digits, '_', '.' and '-' replaced, made unique (case-insensitively).
func annotatedBases(names []string) []string {
	used := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		base := strings.Trim(unsafeName.ReplaceAllString(n, "_"), "_.")
		if base == "" || used[strings.ToLower(base)] {
			base = fmt.Sprintf("%s-player%d", base, i+1)
		}
		used[strings.ToLower(base)] = true
		out[i] = base
	}
	return out
}

// annotatedPath is where tear j (0-based) of the player with file-name base goes in dir.
func annotatedPath(dir, base string, j int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%02d.jpg", base, j+1))
}

// annotatedOutputs are the files --annotate DIR will write for manifest m, for the checks
// that no output is an input or another output.
func annotatedOutputs(dir string, m *session.Manifest) []namedPath {
	if dir == "" {
		return nil
	}
	names := make([]string, len(m.Players))
	for i, p := range m.Players {
		names[i] = p.Name
	}
	var out []namedPath
	for i, base := range annotatedBases(names) {
		for j := range m.Players[i].Tears {
			out = append(out, namedPath{"--annotate", annotatedPath(dir, base, j)})
		}
	}
	return out
}

// writeAnnotated writes each tear's annotated image as DIR/<player>-<tear>.jpg, and returns a
// one-line summary that names every tear without an image and why, so that nobody looks for
// it in DIR.
func writeAnnotated(dir string, res *referee.Result) (string, error) {
	names := make([]string, len(res.Players))
	for i, p := range res.Players {
		names[i] = p.Name
	}
	bases := annotatedBases(names)
	written, tears := 0, 0
	var missing []string
	for i, p := range res.Players {
		base := bases[i]
		for j, t := range p.Tears {
			tears++
			if len(t.Annotated) == 0 {
				var r judge.TearRuling
				if i < len(res.Rulings.Players) && j < len(res.Rulings.Players[i].Tears) {
					r = res.Rulings.Players[i].Tears[j]
				}
				missing = append(missing, fmt.Sprintf("%s tear %d: no image: %s", p.Name, j+1, noImageReason(r)))
				continue
			}
			path := annotatedPath(dir, base, j)
			if err := os.WriteFile(path, t.Annotated, 0o644); err != nil {
				return "", fmt.Errorf("annotate: %w", err)
			}
			written++
		}
	}
	summary := fmt.Sprintf("annotated images: %d of %s in %s", written, count(tears, "tear", "tears"), dir)
	if len(missing) > 0 {
		summary += "; " + strings.Join(missing, "; ")
	}
	return summary, nil
}

// noImageReason says why a tear has no annotated image: it has no photo, its measurement
// was refused, or it was not measured (the character was already out, the tear was not
// allowed).
func noImageReason(r judge.TearRuling) string {
	switch {
	case r.Kind == judge.KindLastDitch:
		return "no photo (last ditch)"
	case r.Photo == "":
		return "no photo"
	case r.Verdict == judge.Undecided && strings.Contains(r.UndecidedReason, "measurement refused"):
		return "measurement refused"
	}
	return "not measured"
}

// namedPath is a file given on the command line, with the flag that named it.
type namedPath struct{ flag, path string }

// checkDistinctFiles refuses an output that is one of the audit's inputs (the manifest, the
// template file, a photo) or another output: writing the rulings over a photo, the database
// or the manifest would destroy what the rulings rest on.
func checkDistinctFiles(m *session.Manifest, outs []namedPath) error {
	return checkDistinct("the audit", manifestInputs(m), outs)
}

// manifestInputs are the files an audit of m reads: the manifest, the template file, the
// photos.
func manifestInputs(m *session.Manifest) []namedPath {
	inputs := []namedPath{{"the manifest", m.File}}
	if m.TemplateRef != "" && m.TemplateRef != "default" {
		inputs = append(inputs, namedPath{"the template", m.Path(m.TemplateRef)})
	}
	for _, p := range m.Players {
		if p.Sheet != "" {
			inputs = append(inputs, namedPath{fmt.Sprintf("the photo %s", p.Sheet), m.Path(p.Sheet)})
		}
		for _, t := range p.Tears {
			if t.Photo != "" {
				inputs = append(inputs, namedPath{fmt.Sprintf("the photo %s", t.Photo), m.Path(t.Photo)})
			}
		}
	}
	return inputs
}

// checkDistinct refuses an output (outs) that is one of the inputs the command (who: "the
// audit", "watch") reads, or another output. Files are compared by identity when they exist
// (links and other names for the same file included), and by cleaned absolute path when they
// do not yet.
func checkDistinct(who string, inputs, outs []namedPath) error {
	same := func(a, b string) bool {
		sa, errA := os.Stat(a)
		sb, errB := os.Stat(b)
		if errA == nil && errB == nil {
			return os.SameFile(sa, sb)
		}
		aa, err1 := filepath.Abs(a)
		bb, err2 := filepath.Abs(b)
		return err1 == nil && err2 == nil && aa == bb
	}
	for i, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && same(o.path, in.path) {
				return usageErrorf("%s %s: is %s, which %s reads: choose another file", o.flag, o.path, in.flag, who)
			}
		}
		for _, o2 := range outs[:i] {
			if o2.path != "" && o2.path != "-" && same(o.path, o2.path) {
				what := "the " + o2.flag + " file"
				if strings.HasPrefix(o2.flag, "the ") { // "the frames folder"
					what = o2.flag
				}
				return usageErrorf("%s %s: is also %s: choose another file", o.flag, o.path, what)
			}
		}
	}
	return nil
}
