package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"pathgrant/guard"
)

// errUsage marks a usage error, as opposed to bad input files (both exit
// 2 from check); it carries the usage line.
var errUsage error = &usageError{msg: "usage: pathgrant check --policy FILE [--grant OP:PATH]... (--op OP PATH | --shell 'CMD')"}

// repeated collects a flag given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type checkArgs struct {
	policy   string
	grants   repeated
	op       string
	shell    string
	path     string
	shellSet bool
}

// runCheck implements `pathgrant check`: offline evaluation, one JSON
// object on stdout, exit 0 allow, 1 deny, 2 usage or input error.
func runCheck(args []string, stdout, stderr io.Writer) int {
	decision, err := check(args)
	if err != nil {
		fail(stderr, "check", err)
		return exitUsage // every error of check, input errors too
	}
	out, err := json.Marshal(decision)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant check: encode decision: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s\n", out)
	if decision.Verdict == guard.Allow {
		return exitOK
	}
	return exitFail
}

func check(args []string) (guard.Decision, error) {
	ca, err := parseCheckArgs(args)
	if err != nil {
		return guard.Decision{}, err
	}
	home, _ := os.UserHomeDir()
	policy, err := loadPolicy(ca.policy, home)
	if err != nil {
		return guard.Decision{}, err
	}
	grants, err := parseGrants(ca.grants, policy)
	if err != nil {
		return guard.Decision{}, err
	}
	req := guard.Request{Shell: ca.shell}
	if !ca.shellSet {
		op, err := guard.ParseOp(ca.op)
		if err != nil {
			return guard.Decision{}, err
		}
		req = guard.Request{Op: op, Path: ca.path}
	} else if strings.TrimSpace(ca.shell) == "" {
		return guard.Decision{}, errors.New("empty shell command")
	}
	return guard.Evaluate(policy, grants, req)
}

// parseCheckArgs accepts flags before and after the path operand.
func parseCheckArgs(args []string) (checkArgs, error) {
	var ca checkArgs
	fs := newFlags("check")
	fs.StringVar(&ca.policy, "policy", "", "policy JSON file")
	fs.Var(&ca.grants, "grant", "OP:PATH grant, repeatable")
	fs.StringVar(&ca.op, "op", "", "operation: read, write, move, delete, execute")
	fs.Func("shell", "shell command to analyse", func(s string) error {
		ca.shell, ca.shellSet = s, true
		return nil
	})
	operands, err := parseFlags(fs, args)
	if err != nil {
		return ca, fmt.Errorf("%v; %w", err, errUsage)
	}
	switch {
	case ca.policy == "":
		return ca, fmt.Errorf("--policy is required; %w", errUsage)
	case ca.shellSet && (ca.op != "" || len(operands) > 0):
		return ca, fmt.Errorf("--shell takes no --op or PATH; %w", errUsage)
	case !ca.shellSet && (ca.op == "" || len(operands) != 1):
		return ca, fmt.Errorf("give --op OP and exactly one PATH, or --shell; %w", errUsage)
	case !ca.shellSet:
		ca.path = operands[0]
	}
	return ca, nil
}

// loadPolicy reads the policy file strictly: unknown fields are errors, so
// a misspelt root never silently becomes an empty one.
func loadPolicy(path, home string) (*guard.Compiled, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p guard.Policy
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("policy %s: trailing data after the JSON object", path)
	}
	compiled, err := p.Compile(home)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	return compiled, nil
}

// parseGrants turns OP:PATH flags into an in-memory grant set. A path that
// is an existing directory is a folder grant; anything else a file grant.
func parseGrants(specs []string, p *guard.Compiled) (*guard.GrantSet, error) {
	set := guard.NewGrantSet()
	for i, spec := range specs {
		opName, path, ok := strings.Cut(spec, ":")
		if !ok {
			return nil, fmt.Errorf("--grant %q: want OP:PATH", spec)
		}
		op, err := guard.ParseOp(opName)
		if err != nil {
			return nil, fmt.Errorf("--grant %q: %w", spec, err)
		}
		canon, err := p.Canonicalizer().Canonical(path, p.Cwd(), true)
		if err != nil {
			return nil, fmt.Errorf("--grant %q: %w", spec, err)
		}
		kind := guard.KindFile
		if fi, err := os.Stat(canon); err == nil && fi.IsDir() {
			kind = guard.KindFolder
		}
		set.Add(guard.Grant{ID: fmt.Sprintf("cli-%d", i+1), Op: op, Path: canon, Kind: kind})
	}
	return set, nil
}
