package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrNotFound is returned when a session, player or ruling is not in the database.
var ErrNotFound = errors.New("not found")

// DB is an open session database. Its methods are safe for concurrent use.
type DB struct {
	db   *sql.DB
	path string
	// Now is the clock for timestamps (injected in tests); they never reach the rulings JSON.
	Now func() time.Time
}

// Versions are the program versions that made a run's rulings.
type Versions struct {
	Tearcam   string `json:"tearcam"`
	OpenCV    string `json:"opencv"`
	Tesseract string `json:"tesseract"`
}

// Open opens (creating it if needed) the database at path and applies pending migrations.
func Open(path string) (*DB, error) {
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	// SQLite decodes %XX in a file: URI, so characters that would end the path are escaped.
	name := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	sdb, err := sql.Open("sqlite", "file:"+name+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// One connection: writes are serialised in the process anyway, and it keeps the
	// per-connection pragmas in force.
	sdb.SetMaxOpenConns(1)
	db := &DB{db: sdb, path: path, Now: time.Now}
	if err := db.init(context.Background()); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}

// Close closes the database.
func (db *DB) Close() error {
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("close database %s: %w", db.path, err)
	}
	return nil
}

// Path is the database file's path as given to Open.
func (db *DB) Path() string { return db.path }

func (db *DB) init(ctx context.Context) error {
	var mode string
	if err := db.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %s, want wal", mode)
	}
	var fk int
	if err := db.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		return fmt.Errorf("foreign keys not enabled: %v", err)
	}
	var ok string
	if err := db.db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&ok); err != nil {
		return fmt.Errorf("quick check: %w", err)
	} else if ok != "ok" {
		return fmt.Errorf("database is damaged: %s", ok)
	}
	return db.migrate(ctx)
}

// migrate applies the embedded migrations not yet recorded, in name order, each in its own
// transaction.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		base := filepath.Base(name)
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with its number", base)
		}
		if err := db.migrateOne(ctx, v, name); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return nil
}

func (db *DB) migrateOne(ctx context.Context, version int, name string) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(migrationFS, name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		version, filepath.Base(name), db.now()); err != nil {
		return err
	}
	return tx.Commit()
}

// Migrations lists the applied migrations' names, in order.
func (db *DB) Migrations(ctx context.Context) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, "SELECT name FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("list migrations: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (db *DB) now() string { return db.Now().UTC().Format(time.RFC3339Nano) }

// withTx runs fn in a write transaction and commits it.
func (db *DB) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// SessionName is the name a manifest's session is stored under in the database at dbPath:
// the manifest's path relative to the database's folder when it lies inside it, else its
// absolute path, slash-separated.
func SessionName(manifestPath, dbPath string) string {
	m, err1 := filepath.Abs(manifestPath)
	d, err2 := filepath.Abs(dbPath)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(filepath.Clean(manifestPath))
	}
	if r, err := filepath.Rel(filepath.Dir(d), m); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(m)
}
