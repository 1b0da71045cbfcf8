package appdirs

import (
	"slices"
	"testing"
)

// TestUILocale: only a C or POSIX locale with a codeset, in the variable
// that decides (LC_ALL, then LC_MESSAGES, then LANG), and no LANGUAGE,
// gets LANGUAGE=en; every other environment is left as it is.
func TestUILocale(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		add  bool
	}{
		{"LANG=C.UTF-8", []string{"HOME=/h", "LANG=C.UTF-8"}, true},
		{"LANG=C.utf8", []string{"LANG=C.utf8"}, true},
		{"LANG=POSIX.UTF-8", []string{"LANG=POSIX.UTF-8"}, true},
		{"LC_ALL=C.UTF-8 over an English LANG", []string{"LANG=en_US.UTF-8", "LC_ALL=C.UTF-8"}, true},
		{"LC_MESSAGES=C.UTF-8", []string{"LC_MESSAGES=C.UTF-8"}, true},
		{"a later LANG wins", []string{"LANG=en_GB.UTF-8", "LANG=C.UTF-8"}, true},
		{"plain C", []string{"LANG=C"}, false},
		{"plain POSIX", []string{"LANG=POSIX"}, false},
		{"an English locale", []string{"LANG=en_US.UTF-8"}, false},
		{"English decides over a C LANG", []string{"LANG=C.UTF-8", "LC_ALL=de_DE.UTF-8"}, false},
		{"LANGUAGE already set", []string{"LANG=C.UTF-8", "LANGUAGE=fr"}, false},
		{"no locale", []string{"HOME=/h"}, false},
		{"a language merely starting with C", []string{"LANG=ca_ES.UTF-8"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.env)
			got := UILocale(in)
			want := tt.env
			if tt.add {
				want = append(slices.Clone(tt.env), "LANGUAGE=en")
			}
			if !slices.Equal(got, want) {
				t.Errorf("UILocale(%q) = %q, want %q", tt.env, got, want)
			}
			if !slices.Equal(in, tt.env) {
				t.Errorf("UILocale changed its argument: %q", in)
			}
		})
	}
}
