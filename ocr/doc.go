// Package ocr finds the declared skills on a rectified character sheet, letter by letter, at
// any size and orientation, with Tesseract (gosseract v2) as the reader.
//
// Tesseract does not read handwriting well and reads nothing tilted, so the package treats the
// job as recognition among a few known names:
//
//   - Ink: darker than the local paper (grey closing as the paper level), with the printed
//     lines of ruled paper wiped; a faint word beside much darker ink kept when each of its
//     marks holds a letter's worth of ink near the threshold; images are analysed at 4 px/mm
//     whatever their scale.
//   - Words: connected components grouped at their own letter size (the core band of joined-up
//     writing, so ascenders do not glue lines together; next to a slanted joined-up word, by
//     the distance of the ink, not of the boxes), then pieces in line with each other joined
//     nearest first; dots and accents attached to the word below them.
//   - Reading: each region is turned upright (principal axis refined by the sharpness of its
//     row projection; both ways up; short words also at ±90° and along the sheet's edges),
//     rendered alone at a fixed x-height, writing that leans (italic, a slanted hand) sheared
//     upright by 0.7 of its slant (the shear making its strokes most vertical), and read as
//     one line (page segmentation modes 7 and 13, user_defined_dpi 300) with the declared
//     letters as whitelist.
//   - Matching: regions are also cut at wide gaps into pieces, and in-line neighbours paired
//     (and a pair joined with a third and a fourth region in line with it; the line runs
//     along the larger piece, a piece of letters without ascenders is as high as its core
//     band), so that a skill written in two to four pieces or two skills on one line are
//     all candidates;
//     skills get candidates by normalised edit distance (over both read modes of one
//     orientation), no two sharing ink, by exhaustive branch-and-bound search. Weak reads that
//     cover only part of a name are refused. A skill still not found is looked for once more
//     in the ink no skill took, read without its descenders (big descender loops make
//     Tesseract misread the letters above them), and in the orientation that read most like
//     a missing skill, read again at 1.25 times the size (a handwritten word's read flips on
//     a grey level of stroke: a second sample, pooled with the first) and along its
//     baseline, 12° counterclockwise of its principal axis (a capital rising at the start and
//     descenders hanging at the end turn the axis of a word clockwise; Tesseract reads
//     nothing 10° off) and 4° and 8° either way of it (the axis of a word in a script font
//     misses its baseline by a few degrees, and some read only along it); a read without
//     descenders must be at least 55% like the name. On a text-dense sheet (many candidate words per declared skill) the least
//     similarity rises with that number, since among hundreds of words some read half like
//     any name. A one- or two-letter skill must be read along a sheet edge from ink about as
//     short as its letters, the read spanning it (a letter read out of a longer word is not
//     that word); a single letter must be a word region of its own. A skill not found is
//     reported "not found".
//   - Budget: candidates are read best first, ranked by how plausibly their ink holds one of
//     the declared skills (length along the line per core height per letter, then larger
//     writing first); the search stops once every skill has a good read or after a fixed
//     number of reads, and says so in the notes of the skills it may have missed. A printed
//     page photographed as a sheet is then searched in seconds instead of minutes.
//   - Letters: the word is sheared upright and its marks (connected ink, dots and crossbars
//     attached; marks inside the word that word grouping left out, such as an l written
//     apart, taken in; marks lying over one another along the core band merged, a descender
//     loop reaching back under the letter before not counting) are aligned with the name's
//     letters by dynamic programming: a letter
//     is one mark, several marks, a gap (a letter with no ink found), or a piece of a mark
//     holding joined letters, cut on the column profile of its core band (the x-height rows,
//     where joined letters meet) near the expected letter widths, where the ink is thin and
//     the next letter's body starts (a joining stroke belongs to the letter it leaves; in a
//     word written joined-up and slanted, a script hand, at the end of the thin stroke).
//     Tesseract's symbols place the letters they were read as (edit-distance alignment of the
//     read with the name; a read not good is read again with only the name's letters
//     allowed, in both modes and at 1.25 and 0.8 times the size, and the first such read that
//     is the name exactly places them, one symbol per letter) and the dots place the i's and
//     j's, both as soft priors. Each cut
//     follows the least-ink path between the letters through the core band, words cut apart
//     at the name's spaces when those stand out. Ink above and below the core band
//     (ascenders, descender loops reaching back under a neighbour) goes, piece by piece, to
//     the letter whose core ink it touches most. Outlines are convex hulls of each letter's
//     ink, in millimetres in the sheet frame; notes and confidence say which way.
//   - Confidence: three calibrated estimates per located skill (see calibBias), fitted on
//     873 located skills whose truth is known (TestConfCalibDump): Confidence, that the
//     letters lie on the skill's own word with every letter's centre on its letter;
//     Identity, that the ink is the skill's own word at all (never below Confidence);
//     Outline, that every letter's centre is on its letter given the word is. Identity
//     against the fraction on their own word: [0, 0.5) 50% (8 skills), [0.5, 0.7) 75% (4),
//     [0.7, 0.9) 85% (34), [0.9, 0.95) 89% (28), [0.95, 0.99) 98.9% (92), [0.99, 1] 99.9%
//     (707); each set left out of the fit in turn moved its coefficients by under a third,
//     except the 5 skills not on their sheet (held out, they came out at 0.96 on average:
//     without them nothing tells such a placement from a poor read). Outline, on the skills
//     on their own word, against the fraction right: [0, 0.3) 0% (8), [0.3, 0.5) 50% (20),
//     [0.5, 0.7) 67% (24), [0.7, 0.8) 71% (28), [0.8, 0.9) 83% (100), [0.9, 0.95) 94%
//     (180), [0.95, 1] 97% (498).
//   - Doubts about the word beyond the read: a skill whose name also reads, nearly as well
//     (or well), on other ink no skill took is in doubt (written twice, or a word like it):
//     identity at most 0.45, and SkillLayout.Doubt names both places in mm; when the search
//     was cut short, the unread regions shaped most like each located skill are read first,
//     so that a second copy is seen. A read not good is read once more with only the name's
//     letters allowed: another word forced into them ("hand" for Hound read "hnd") loses
//     Tesseract's confidence, the name misread keeps it; a fall to under 80 of 15 or more
//     caps the identity at 0.3.
//   - A declared skill not on the sheet leaves the others alone: the letters it adds to the
//     whitelist change how other words read ("hand" read "honed" once Cooking's o was
//     allowed), so each located skill is read once more with only the letters of the
//     skills found, and the read more like its name kept (see rereadFound).
//
// A Locator owns one Tesseract client per worker goroutine. Set OMP_THREAD_LIMIT=1 for the
// process: the package parallelises across words instead.
package ocr
