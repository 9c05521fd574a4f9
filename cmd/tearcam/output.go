package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"tearcam/store"
)

// writeOutput writes a file the user named (--json, --report) and says which one failed:
//   - a regular file, or none yet, is written through a temporary file in its folder and a
//     rename, so that a reader never sees half a file (an existing file keeps its
//     permissions);
//   - a symbolic link is followed: its target is written that way, and the link stays;
//   - anything else (a device such as /dev/full, a FIFO) is opened and written in place, as
//     a shell redirection would (a FIFO waits for its reader); a failed write or close is an
//     error.
func writeOutput(path string, write func(io.Writer) error) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("write %s: is a folder", path)
	case err == nil && !st.Mode().IsRegular():
		return writeInPlace(path, write)
	case err == nil:
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, innerErr(err))
		}
		return writeAtomic(path, target, st.Mode().Perm(), write)
	case errors.Is(err, fs.ErrNotExist):
		// No file yet, or a symbolic link to a file not yet there: create it.
		target, err := danglingTarget(path)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return writeAtomic(path, target, 0o644, write)
	default:
		return fmt.Errorf("write %s: %w", path, innerErr(err))
	}
}

// isSpecialFile reports whether path exists and is neither a regular file nor a folder (a
// device, a FIFO), after its links.
func isSpecialFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && !st.Mode().IsRegular()
}

// writeAtomic writes target (path after its links) through a temporary file and a rename.
func writeAtomic(path, target string, perm fs.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w (cannot create a file in %s)", path, innerErr(err), dir)
	}
	defer os.Remove(f.Name())
	werr := write(f)
	if werr == nil {
		werr = f.Chmod(perm)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), target)
	}
	if werr != nil {
		return fmt.Errorf("write %s: %w", path, innerErr(werr))
	}
	return nil
}

// writeInPlace opens a file that is not a regular one (a device, a FIFO) and writes it.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if errors.Is(err, syscall.EINVAL) {
		// Some special files refuse O_TRUNC.
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, innerErr(err))
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("write %s: %w", path, innerErr(werr))
	}
	return nil
}

// danglingTarget follows path's symbolic links as far as they go: path itself when it is no
// link, else the missing file its last link names.
func danglingTarget(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", innerErr(err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

// innerErr is err without the operation and path of an *fs.PathError or *os.LinkError (they
// name a temporary file or a link's target, not the file the user gave).
func innerErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// writable reports whether this process may write path (access(2) W_OK: false in a
// read-only folder or file system, true for root elsewhere).
func writable(path string) bool { return syscall.Access(path, 2 /* W_OK */) == nil }

// checkOutputFile refuses, before a long audit rather than after it, an output path whose
// folder does not exist, that is a folder, or that cannot be written.
func checkOutputFile(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return usageErrorf("%s %s: is a folder", flag, path)
	case err == nil && !st.Mode().IsRegular():
		if !writable(path) {
			return usageErrorf("%s %s: not writable", flag, path)
		}
		return nil
	}
	target := path
	if err == nil {
		target, err = filepath.EvalSymlinks(path)
	} else {
		target, err = danglingTarget(path)
	}
	if err != nil {
		return usageErrorf("%s %s: %v", flag, path, innerErr(err))
	}
	dir := filepath.Dir(target)
	if err := checkFolder(flag, path, dir); err != nil {
		return err
	}
	if !writable(dir) {
		// The file is replaced through a new file beside it.
		return usageErrorf("%s %s: folder %s is not writable", flag, path, dir)
	}
	return nil
}

// checkFolder refuses an output whose folder dir is missing or is not a folder.
func checkFolder(flag, path, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return usageErrorf("%s %s: folder %s does not exist", flag, path, dir)
	case !st.IsDir():
		return usageErrorf("%s %s: %s is a file, not a folder", flag, path, dir)
	}
	return nil
}

// openDB opens the session database at path (named by flag, "" for the default one) with
// store.Open. A file that is
// not a database (a photo given as --db) is refused in one line naming it, exit 2: SQLite's
// own words were "open database t1.jpg: journal mode: file is not a database (26)".
func openDB(flag, path string) (*store.DB, error) {
	db, err := store.Open(path)
	var se interface{ Code() int }
	if err != nil && errors.As(err, &se) && se.Code()&0xff == sqliteNotADB {
		if flag == "" {
			flag = "session database"
		}
		return nil, usageErrorf("%s %s: not a tearcam session database (not an SQLite database at all): choose another file", flag, path)
	}
	return db, err
}

// dbFlag names the database for openDB: "--db", or "" when db is the default one.
func dbFlag(db string) string {
	if db == "" {
		return ""
	}
	return "--db"
}

// sqliteNotADB is SQLite's SQLITE_NOTADB: the file is not a database.
const sqliteNotADB = 26

// checkDBFile refuses a session database that SQLite could not open for writing: a missing
// folder, a folder it cannot create the database or its journal files in (WAL mode keeps
// -wal and -shm files beside the database), or a read-only database file.
func checkDBFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErrorf("%s %s: is a folder", flag, path)
	} else if err == nil && !st.Mode().IsRegular() {
		return usageErrorf("%s %s: not a regular file (a session database is a file)", flag, path)
	} else if err == nil && !writable(path) {
		return usageErrorf("%s %s: the database file is not writable", flag, path)
	}
	dir := filepath.Dir(path)
	if err := checkFolder(flag, path, dir); err != nil {
		return err
	}
	if !writable(dir) {
		return usageErrorf("%s %s: folder %s is not writable (the session database keeps its journal files beside it)", flag, path, dir)
	}
	return nil
}
