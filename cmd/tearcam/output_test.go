package main

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
)

// TestAuditWritesThroughSpecialFiles: --json and --report write a FIFO, a symbolic link's
// target and a device in place, and a write that fails (/dev/full) is an error naming the
// file.
func TestAuditWritesThroughSpecialFiles(t *testing.T) {
	manifest := writeFakeSession(t, 0, 0)
	db := filepath.Join(t.TempDir(), "t.db")
	for _, flag := range []string{"--json", "--report"} {
		t.Run(flag+" FIFO", func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "out.fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			got := make(chan []byte, 1)
			go func() {
				b, _ := os.ReadFile(fifo) // blocks until the writer opens it, reads to its close
				got <- b
			}()
			code, _, stderr := execute(t, fakeAudit, manifest, "--db", db, flag, fifo)
			require.Equal(t, 0, code, stderr)
			var b []byte
			select {
			case b = <-got:
			case <-time.After(5 * time.Second):
				// The FIFO was never opened (replaced by a file?): unblock the reader.
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatal("the reader got nothing")
			}
			checkOutput(t, flag, b)
			st, err := os.Lstat(fifo)
			require.NoError(t, err)
			assert.Equal(t, fs.ModeNamedPipe, st.Mode().Type(), "the FIFO is still a FIFO")
		})
		t.Run(flag+" symlink", func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
			target := filepath.Join(dir, "real", "out")
			require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
			link := filepath.Join(dir, "link")
			require.NoError(t, os.Symlink(filepath.Join("real", "out"), link)) // relative to the link's folder
			dangling := filepath.Join(dir, "dangling")
			require.NoError(t, os.Symlink(filepath.Join("real", "new"), dangling))
			for _, path := range []string{link, dangling} {
				code, _, stderr := execute(t, fakeAudit, manifest, "--db", db, flag, path)
				require.Equal(t, 0, code, stderr)
				st, err := os.Lstat(path)
				require.NoError(t, err)
				assert.Equal(t, fs.ModeSymlink, st.Mode().Type(), "the link stays a link")
			}
			b, err := os.ReadFile(target)
			require.NoError(t, err)
			checkOutput(t, flag, b)
			st, err := os.Stat(target)
			require.NoError(t, err)
			assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "the target keeps its permissions")
			b, err = os.ReadFile(filepath.Join(dir, "real", "new"))
			require.NoError(t, err, "a dangling link's target is created")
			checkOutput(t, flag, b)
		})
		t.Run(flag+" /dev/full", func(t *testing.T) {
			if !isDevFull(t) {
				t.Skip("no /dev/full")
			}
			// First through a link: code that replaced what it writes would replace the link
			// (this case fails), never the device; only then /dev/full itself.
			link := filepath.Join(t.TempDir(), "full")
			require.NoError(t, os.Symlink("/dev/full", link))
			for _, path := range []string{link, "/dev/full"} {
				fresh := filepath.Join(t.TempDir(), "t.db") // no re-used rulings to report
				code, _, stderr := execute(t, fakeAudit, manifest, "--db", fresh, flag, path)
				require.True(t, isDevFull(t), "/dev/full is still a device")
				st, err := os.Lstat(link)
				require.NoError(t, err)
				require.Equal(t, fs.ModeSymlink, st.Mode().Type(), "the link to /dev/full stays a link")
				assert.Equal(t, 1, code)
				require.Equal(t, "tearcam: write "+path+": no space left on device\n", stderr)
			}
		})
	}
}

// isDevFull reports whether /dev/full is the character device 1:7.
func isDevFull(t *testing.T) bool {
	t.Helper()
	st, err := os.Stat("/dev/full")
	if err != nil || st.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && unixMajor(sys.Rdev) == 1 && unixMinor(sys.Rdev) == 7
}

func unixMajor(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^0xfff }
func unixMinor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^0xff }

// checkOutput checks b is the JSON rulings (--json) or the HTML report (--report).
func checkOutput(t *testing.T, flag string, b []byte) {
	t.Helper()
	if flag == "--json" {
		var doc judge.Rulings
		require.NoError(t, json.Unmarshal(b, &doc), "%q", b)
		assert.Len(t, doc.Players, 1)
		return
	}
	assert.True(t, strings.HasPrefix(strings.ToLower(string(b)), "<!doctype html>"), "%.40q", b)
	assert.Contains(t, string(b), "</html>")
}

// TestOutputHelperProcess is not a test: runAuditAsUser runs the test binary with
// TEARCAM_OUTPUT_HELPER set (the arguments, as JSON) to audit in a child process, as another
// user when the tests run as root (root writes read-only folders).
func TestOutputHelperProcess(t *testing.T) {
	auditChild(t, "TEARCAM_OUTPUT_HELPER", io.Discard, "tearcam: ")
}

// sharedTempDir is a temporary folder every user may enter (t.TempDir's parent is private to
// the user running the tests).
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tearcam-ro-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o777))
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	return dir
}

// runAuditAsUser audits with args in folder wd, in a child process that cannot write
// read-only folders (as nobody when the tests run as root), and returns its exit status and
// stderr.
func runAuditAsUser(t *testing.T, shared, wd string, args ...string) (int, string) {
	t.Helper()
	exe := os.Args[0]
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// The test binary, where nobody can run it.
		exe = filepath.Join(shared, "tearcam.test")
		if _, err := os.Stat(exe); err != nil {
			b, err := os.ReadFile(os.Args[0])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(exe, b, 0o755))
		}
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	argv, err := json.Marshal(args)
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestOutputHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TEARCAM_OUTPUT_HELPER="+string(argv))
	cmd.Dir = wd
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestAuditReadOnlyFolders: outputs and databases in folders the user cannot write are
// refused before the audit, in one line naming the file the user gave (never a temporary
// file) and saying the folder is not writable.
func TestAuditReadOnlyFolders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	shared := sharedTempDir(t)
	// The fake session in a read-only folder, and a writable folder beside it.
	src := filepath.Dir(writeFakeSession(t, 0, 0))
	ro := filepath.Join(shared, "ro")
	rw := filepath.Join(shared, "rw")
	require.NoError(t, os.Mkdir(ro, 0o755))
	require.NoError(t, os.Mkdir(rw, 0o755))
	require.NoError(t, os.Chmod(rw, 0o777)) // past the umask
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tearcam.db") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(ro, e.Name()), b, 0o644))
	}
	require.NoError(t, os.Chmod(ro, 0o555))
	manifest := filepath.Join(ro, "session.yaml")

	tests := []struct {
		name string
		wd   string
		args []string
		code int
		want string // stderr, all of it
	}{
		{"db in a read-only folder", rw, []string{manifest, "--db", "../ro/t.db"}, 2,
			"tearcam: --db ../ro/t.db: folder ../ro is not writable (the session database keeps its journal files beside it)\n"},
		{"json in a read-only folder", rw, []string{manifest, "--db", "t.db", "--json", "../ro/x.json"}, 2,
			"tearcam: --json ../ro/x.json: folder ../ro is not writable\n"},
		{"report in a read-only folder", rw, []string{manifest, "--db", "t.db", "--report", "../ro/x.html"}, 2,
			"tearcam: --report ../ro/x.html: folder ../ro is not writable\n"},
		{"annotated images into an existing read-only folder", rw, []string{manifest, "--db", "t.db", "--annotate", "../ro"}, 2,
			"tearcam: --annotate ../ro: folder is not writable\n"},
		{"default database, read-only manifest folder and working folder", ro, []string{"session.yaml"}, 2,
			"tearcam: session database: the manifest's folder . is not writable: choose a database file in a writable folder with --db\n"},
		{"default database, read-only manifest folder, writable working folder", rw, []string{manifest}, 0,
			ro + " is read-only: session database in tearcam.db (choose another with --db)\n" +
				"tearcam: ann-3.jpg: not a readable image (Ann's tear 3 is ruled undecided)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runAuditAsUser(t, shared, tc.wd, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.want, stderr)
		})
	}
	_, err = os.Stat(filepath.Join(rw, "tearcam.db"))
	assert.NoError(t, err, "the database went to the working folder")
}
