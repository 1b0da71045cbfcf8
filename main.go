// Command pathgrant is the permission broker for local coding agents: it
// decides which files an agent session may touch, and asks the user when a
// denied read could be approved.
package main

import (
	"os"

	"pathgrant/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
