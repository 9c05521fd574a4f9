// Command tearcam referees a paper-tearing role-playing game through a camera or photos.
// See DESIGN.md for the command-line and JSON contract.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], DefaultIO()))
}
