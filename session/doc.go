// Package session reads a session manifest (DESIGN.md "audit"): the paper, the template and,
// per player, the declared skills, the untorn sheet's photo and every tear in order. A tear
// may carry the GM's ruling on it (`gm:`, judge.GMRuling), checked against the player's
// skills: unknown verdicts, faults, skills or fields are a bad manifest.
//
// Paths in a manifest are relative to the manifest's folder and may not leave it. Every
// problem is reported as one line naming the manifest (and the line, where known), so that
// the CLI can print it as it is and exit 2. The package is pure Go: no gocv, no gosseract.
package session
