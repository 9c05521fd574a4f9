// Package realdata finds the real photos nobody on the project made (../shared/realdata
// beside the project, described by its MANIFEST.tsv) for the tests of vision/ and ocr/.
package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names the folder of the real photos when it is somewhere else.
const Env = "TEARCAM_REALDATA"

// Dir returns the folder of the real photos: $TEARCAM_REALDATA if set, else shared/realdata
// beside the module's folder or beside any folder above the working directory, else
// /work/shared/realdata (where the project's machines keep it, so that a clone made elsewhere,
// such as a worktree in /tmp, still runs these tests). It skips the test when none holds a
// MANIFEST.tsv: the photos are not part of the repository.
func Dir(t testing.TB) string {
	t.Helper()
	var tried []string
	if d := os.Getenv(Env); d != "" {
		tried = append(tried, d)
	} else {
		if wd, err := os.Getwd(); err == nil {
			for d := wd; ; d = filepath.Dir(d) {
				tried = append(tried, filepath.Join(d, "shared", "realdata"))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
		tried = append(tried, "/work/shared/realdata")
	}
	for _, d := range tried {
		if _, err := os.Stat(filepath.Join(d, "MANIFEST.tsv")); err == nil {
			return d
		}
	}
	t.Skipf("real photos not found (set %s to the folder holding their MANIFEST.tsv)", Env)
	return ""
}
