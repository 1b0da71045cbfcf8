package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"

	"pathgrant/appdirs"
	"pathgrant/tcc"
)

// privacyHost is what the privacy check asks of the machine, so that a
// test can play a Mac on Linux.
type privacyHost struct {
	GOOS string
	// List reads one entry of dir as this process, which is what macOS
	// privacy controls refuse (opening the folder alone may pass).
	List func(dir string) error
}

func systemPrivacyHost() privacyHost {
	return privacyHost{GOOS: runtime.GOOS, List: listOne}
}

// listOne reads the first name in dir; an empty folder is fine.
func listOne(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// privacyChecks say, on macOS, whether its privacy controls let this
// process read each eligible root they guard (~/Downloads by default):
// where they do not, every read the person approves there fails with
// "Operation not permitted", which looks like pathgrant refusing. On Linux
// there is nothing to say, and nothing is said.
func privacyChecks(env doctorEnv) []doctorCheck {
	return privacyChecksOn(env, systemPrivacyHost())
}

func privacyChecksOn(env doctorEnv, host privacyHost) []doctorCheck {
	if host.GOOS != "darwin" {
		return nil
	}
	home, err := appdirs.Home(env.Getenv)
	if err != nil {
		return nil // the store's line says so
	}
	p, _, err := deviceFileOf(env)
	if err != nil {
		return nil // the confinement line says so
	}
	app := tcc.App(env.Getenv, "")
	var out []doctorCheck
	for _, root := range p.EligibleReadOnly {
		if f, ok := tcc.Guarding(home, root); ok {
			out = append(out, privacyCheck(root, f, app, host.List(root)))
		}
	}
	if len(out) == 0 {
		out = append(out, doctorCheck{Name: "privacy controls", Status: doctorOK,
			Detail: "no eligible root is in a folder macOS privacy controls guard"})
	}
	return out
}

// privacyCheck is the line for one guarded eligible root, from what
// listing it answered.
func privacyCheck(root string, f tcc.Folder, app string, err error) doctorCheck {
	c := doctorCheck{Name: "privacy controls"}
	who := app
	if who == "" {
		who = "this terminal"
	}
	switch {
	case err == nil:
		c.Status, c.Detail = doctorOK, fmt.Sprintf("%s: readable: macOS lets %s into %s", root, who, f.Name)
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = doctorInfo, root+": does not exist"
	case errors.Is(err, syscall.EPERM):
		c.Status = doctorFail
		c.Detail = fmt.Sprintf("%s: macOS privacy controls refuse %s (Operation not permitted): reads approved there fail, and look like pathgrant refusing", root, who)
		c.Fix = tcc.Fix(f, app)
	default:
		c.Status, c.Detail = doctorWarn, root+": "+oneLine(err.Error())
	}
	return c
}
