// Package referee wires the pipeline that turns one session's photos into rulings: for each
// player, the fresh sheet is found and its skills located once (OCR), then every tear's
// photo is registered to the fresh sheet and measured against the last good sheet before it
// (cumulative), and the judge rules it, carrying the character's state from tear to tear.
//
// It depends on vision/ and ocr/ only through the small Eye and Reader interfaces, so the
// pipeline tests run on fakes (referee/fake); CV is the real implementation on gocv and
// gosseract. With a store.DB, every sheet layout and ruling is committed before it is
// reported, and a re-run re-uses the measurements whose inputs (photo SHA-256, manifest
// entries, versions) have not changed.
package referee
