package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"pathgrant/appdirs"
)

// localeError is what Fyne logs at start when it cannot parse the
// person's locale.
const localeError = "Error parsing user locale"

// TestNoLocaleError starts this binary (Fyne links and initialises as in
// pathgrant-ui; -test.run=^$ runs no test) with the locale variables
// the daemon (applink's appEnv) and `pathgrant settings` hand it, and
// finds no locale error on its stderr; the same C.UTF-8 environment
// handed over as it was still logs it, so the probe sees the error where
// there is one.
func TestNoLocaleError(t *testing.T) {
	tests := []struct {
		name  string
		vars  []string
		fixed bool // through appdirs.UILocale, as pathgrant starts the app
		logs  bool
	}{
		{"LANG=C.UTF-8", []string{"LANG=C.UTF-8"}, true, false},
		{"LC_ALL=C.UTF-8", []string{"LANG=en_US.UTF-8", "LC_ALL=C.UTF-8"}, true, false},
		{"LANG=C", []string{"LANG=C"}, true, false},
		{"LANG=en_US.UTF-8", []string{"LANG=en_US.UTF-8"}, true, false},
		{"LANG=C.UTF-8 as it was, without pathgrant's", []string{"LANG=C.UTF-8"}, false, true},
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append(withoutLocale(os.Environ()), tt.vars...)
			if tt.fixed {
				env = appdirs.UILocale(env)
			}
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v (stderr %q)", err, stderr.String())
			}
			if logs := strings.Contains(stderr.String(), localeError); logs != tt.logs {
				t.Errorf("stderr %q: locale error %v, want %v", stderr.String(), logs, tt.logs)
			}
		})
	}
}

// withoutLocale is env without any locale variable.
func withoutLocale(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "LANG" && k != "LANGUAGE" && !strings.HasPrefix(k, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}
