// Package store is tearcam's session database, SQLite through the pure-Go modernc.org/sqlite
// driver: sessions, players and their declared skills, the fresh sheet's letter layout,
// every photo's SHA-256 and path, every ruling (the judge.TearRuling JSON, with the
// measurement it was made from) and event (last ditch efforts, throws and checks from the
// engine), and the tearcam, OpenCV and Tesseract versions of the run that made each.
//
// Migrations are embedded (migrations/*.sql) and applied in order, each in its own
// transaction, and recorded in schema_migrations. The database is opened in WAL mode with
// foreign keys on and synchronous=FULL: a ruling saved by SaveRuling is on disk when it
// returns, so a process killed right after reporting it loses nothing.
//
// Rulings are kept, not overwritten: each carries the input key it was computed from (the
// caller's hash of the photos, manifest entries and versions it depends on). A re-run finds
// the ruling for an unchanged key with FindRuling and re-uses it; a changed input makes a
// new ruling current and keeps the old one as history.
package store
