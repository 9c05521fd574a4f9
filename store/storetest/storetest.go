// Package storetest has test helpers for code that uses the session database.
package storetest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tearcam/store"
)

var dump = flag.Bool("store.dump", false, "keep test databases and print their paths")

// MustOpenDB opens a fresh database in t.TempDir (or, with -store.dump, in a kept temporary
// folder whose path is logged), with a fixed clock, and closes it when the test ends.
func MustOpenDB(tb testing.TB) *store.DB {
	tb.Helper()
	dir := tb.TempDir()
	if *dump {
		var err error
		if dir, err = os.MkdirTemp("", "tearcam-db-"); err != nil {
			tb.Fatal(err)
		}
	}
	path := filepath.Join(dir, "test.db")
	db, err := store.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	if *dump {
		tb.Logf("database kept at %s", path)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	db.Now = func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}
