package hooks_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/hooks"
)

func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestWireMatchesIPC keeps the hook's own wire types in step with the
// daemon's: the same check request fields (the daemon refuses unknown
// ones), and answer fields the daemon really sends.
func TestWireMatchesIPC(t *testing.T) {
	if got, want := jsonNames(reflect.TypeFor[hooks.CheckRequest]()), jsonNames(reflect.TypeFor[ipc.CheckRequest]()); !slices.Equal(got, want) {
		t.Errorf("hooks.CheckRequest fields %v, ipc.CheckRequest %v", got, want)
	}
	daemon := jsonNames(reflect.TypeFor[ipc.Answer]())
	for _, n := range jsonNames(reflect.TypeFor[hooks.Answer]()) {
		if !slices.Contains(daemon, n) {
			t.Errorf("hooks.Answer field %q is not in ipc.Answer", n)
		}
	}

	req := hooks.CheckRequest{SessionID: "s", ClientSession: "c", EnvSession: "e", Agent: "a", Workflow: "w",
		Execution: "x", Tool: "t", RequestID: "r", Op: "read", Path: "/p", Command: "ls", Cwd: "/w",
		WorkspaceRoots: []string{"/w"}, WaitMS: 5}
	data, _ := json.Marshal(req)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var got ipc.CheckRequest
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("the daemon would refuse the hook's request: %v", err)
	}
	want := ipc.CheckRequest{SessionID: "s", ClientSession: "c", EnvSession: "e", Agent: "a", Workflow: "w",
		Execution: "x", Tool: "t", RequestID: "r", Op: guard.OpRead, Path: "/p", Command: "ls", Cwd: "/w",
		WorkspaceRoots: []string{"/w"}, WaitMS: 5}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}

	ans := ipc.Answer{Decision: guard.Deny, Session: "s", Tool: "t", RequestID: "r", Op: guard.OpRead, Path: "/p",
		Reason: "why", Rule: guard.RuleOutside, Eligible: true, Pending: "p1", Grants: []string{"g"}}
	data, _ = json.Marshal(ans)
	var back hooks.Answer
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Decision != "deny" || back.Session != "s" || back.Path != "/p" || back.Reason != "why" ||
		back.Rule != "outside_policy" || !back.Eligible || back.Pending != "p1" || !slices.Equal(back.Grants, []string{"g"}) {
		t.Errorf("answer decoded as %+v", back)
	}
}
