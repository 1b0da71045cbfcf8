package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZPrintView(t *testing.T) {
	bin := buildBinary(t)
	e := newExecEnv(t)
	view, _ := e.benchView(&testing.B{}, bin, "/usr/bin/true")
	args := view.Args(os.Geteuid() == 0, []string{"/usr/bin/true"})
	fmt.Println(len(view.Mounts), strings.Join(args, " "))
}
