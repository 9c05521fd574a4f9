// Package ocr finds the declared skills on a rectified character sheet, letter by letter, at
// any size and orientation, with Tesseract (gosseract v2) as the reader.
//
// Tesseract does not read handwriting well and reads nothing tilted, so the package treats the
// job as recognition among a few known names: it finds the ink's word regions itself (ink
// darker than the local paper, connected components grouped at the word's own scale), turns
// each region upright (principal axis, refined by the sharpness of its row projection; both
// ways up, and ±90° for short words), reads each crop as one line restricted to the declared
// letters, and assigns regions to skills by an optimal assignment on normalised edit distance.
// Letters are then cut from the matched region's ink: one letter per ink mark when the counts
// agree, else along the baseline at Tesseract's symbol boxes or evenly, each cut moved to the
// thinnest ink column nearby. Outlines are boxes in the word's reading frame, in millimetres
// in the sheet frame.
//
// Set OMP_THREAD_LIMIT=1 for the process: a Locator parallelises across words with one
// Tesseract client per goroutine.
package ocr
