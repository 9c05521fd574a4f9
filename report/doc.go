// Package report writes an audit's rulings as one self-contained HTML page: per player the
// untorn sheet and the skills located on it, per tear the photos before and after, the
// annotated image, the verdict, faults, undecided reason and the letters left per skill.
// Images are inlined as base64 JPEG; the page needs no network and reads on a phone. Text is
// escaped by html/template. The package is pure Go.
package report
