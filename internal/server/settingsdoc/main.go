// Command settingsdoc rewrites the configuration tables of README.md and
// docs/configuration.md from internal/server's settings table. It runs
// through `go generate ./internal/server`; its one argument is the
// repository's root.
package main

import (
	"fmt"
	"os"

	"github.com/agentry/agentry/internal/server"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	if err := server.WriteSettingsDocs(root); err != nil {
		fmt.Fprintln(os.Stderr, "settingsdoc:", err)
		os.Exit(1)
	}
}
