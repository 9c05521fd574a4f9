// Package judge holds the rules of the tear game (seeds/000_95befa804697ec6b.txt, as
// DESIGN.md "The rules tearcam judges" tabulates them) and the rulings contract
// (DESIGN.md "--json"). It turns measurements made by vision/ and ocr/ into rulings and
// carries each character's state from tear to tear. It is pure Go: no gocv, no gosseract.
//
// A Character (NewCharacter) is ruled tear by tear with Rule, which returns the TearRuling
// and updates the character; RulePlayer rules a whole player and NewRulings assembles the
// --json document deterministically (declaration and manifest order, lists never null).
// Standing and StandingOf say what the throw and check engine needs: which skills still
// have a full letter, tears owed, and whether the character is out.
//
// Decisions where the seed and DESIGN.md are silent (Rule documents each in full):
//   - Undecided leaves owed tears and paper_fits_template unchanged (they wait for the
//     verdict), but applies the letters as measured: a letter torn off is gone whatever the
//     verdict. Only when nothing after the tear was measured reliably (refused, a free-text
//     doubt, a self-contradicting measurement) do the letters carry over too
//     (LettersAsBefore); the letters lost then are caught up by the next measurement, which
//     reports them LetterGone.
//   - A letter state that is unknown or ambiguous makes the ruling undecided when the letter
//     was still whole on the sheet and was located on the fresh sheet (it could change the
//     letters left). A letter never located is counted as left, and makes the ruling
//     undecided only when it could be the one full letter the tear needed.
//   - A letter measured on the sheet or cut (LetterOnSheetOrCut) cannot be the full letter a
//     tear needs, and is counted as left, flagged; one measured removed or cut
//     (LetterRemovedOrCut) is not left, and makes the ruling undecided only when it could be
//     the one full letter the tear needed.
//   - When another fault is certain, a doubt that can flip only one fault (whether a full
//     letter was removed: no_full_letter; a template fit within measurement error:
//     piece_too_small; edge contact: not_edge_to_edge; a strip along the edge that may be a
//     second piece: several_pieces) does not make the ruling undecided: the tear is a faux pas
//     either way and its consequences are the same, so it is ruled faux_pas with the certain
//     faults only, and a note says that the doubted fault may also apply.
//   - Free-text Doubts always make a ruling undecided; structured Uncertain doubts only when
//     the doubted quantity could change the ruling. A doubt about the template's fit on the
//     remaining paper bears on the next tear: that one is undecided (the GM decides whether
//     the character is out) unless its own measurement shows the template still fits.
//   - A penalty tear pays one owed tear even when it is itself a faux pas, which owes another
//     (so the count stays); with nothing owed it pays nothing. A penalty naming no skill
//     needs a full letter of any skill.
//   - A tear for an unknown skill, or naming a lost skill (use, damage or penalty), is
//     undecided ("tear not allowed") and changes nothing; Validate reports it beforehand.
//   - A tear asked of a sheet on which the template no longer fits puts the character out
//     (too_little_paper) and is still ruled on its measurement for the record. Paper only
//     shrinks: once the template does not fit, it never fits again.
//   - last_ditch is ruled valid, records hit or miss, and puts the character out. Every
//     tear after the character is out is undecided, saying since when and why.
//   - The GM's ruling on a tear (RuleGM, GMRuling) keeps tearcam's own verdict, faults and
//     undecided reason, records the GM's beside them (with where it overrules a decided
//     ruling), and the state carried to later tears follows the GM: letters left (the GM's
//     counts, else as measured), owed tears, paper, out.
package judge
