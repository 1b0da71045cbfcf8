package hooks

import (
	"cmp"
	"encoding/json"
	"os"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"pathgrant/wire"
)

// Cline CLI: a PreToolUse hook file, named after its event, in
// $CLINE_DIR/hooks (~/.cline/hooks); install-hooks writes a script of
// pathgrant's own there (ClineHookFor). Read from the shipped code of
// 3.0.65 and run against it. Input: hookName "tool_call", taskId,
// sessionContext.rootSessionId, workspaceRoots, tool_call {id, name,
// input} (the input as the model sent it, before Cline reads it in one
// of several shapes). Output, as JSON on stdout; exit status and stderr
// are ignored, and a timeout or output that is not JSON lets the call
// run, so the script answers with a block whenever the hook fails:
//
//   - overrideInput replaces the call's input (the confining rewrite);
//   - a deny is an input no tool of Cline's own accepts, which fails the
//     call ("Invalid input"), with the reason in contextModification,
//     which the model reads next; a file hook cannot fail one call
//     otherwise. A tool whose input pathgrant does not know (another MCP
//     server's) is stopped with cancel instead, which ends the run;
//   - {} lets the call run.
type clineAdapter struct{}

type clineInput struct {
	Hook    string `json:"hookName"`
	TaskID  string `json:"taskId"`
	Session struct {
		Root string `json:"rootSessionId"`
	} `json:"sessionContext"`
	Roots []string `json:"workspaceRoots"`
	Info  struct {
		Root string `json:"rootPath"`
	} `json:"workspaceInfo"`
	ToolCall *struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_call"`
}

func (clineAdapter) parse(raw []byte) (Call, error) {
	var in clineInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.Hook != "tool_call" || in.ToolCall == nil || in.ToolCall.Name == "" {
		return Call{}, malformed("hookName %q is not a tool call", in.Hook)
	}
	c := Call{Client: "cline", Event: "PreToolUse", Tool: in.ToolCall.Name, ClientSession: orDefault(in.Session.Root, in.TaskID),
		Cwd: orDefault(in.Info.Root, first(in.Roots)), WorkspaceRoots: in.Roots, RequestID: in.ToolCall.ID}
	if touchesNoFile(c.Client, c.Tool) {
		c.NoFiles = true
		return c, nil
	}
	if clineMCP.mark(&c, c.Tool) {
		return c, nil
	}
	return c, clineTool(&c, in.ToolCall.Input)
}

func first(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// clineTool maps Cline's own tools, in every input shape Cline accepts.
func clineTool(c *Call, input json.RawMessage) error {
	switch c.Tool {
	case "read_files":
		paths, err := clinePaths(input)
		if err != nil {
			return err
		}
		if len(paths) == 0 {
			return malformed("tool read_files: no paths")
		}
		for _, p := range paths {
			for _, v := range clineReadVariants(under(c.Cwd, p)) {
				c.Accesses = append(c.Accesses, readAccess(v))
			}
		}
	case "editor":
		f, err := decodeObject(input, "input")
		if err != nil {
			return err
		}
		p, err := f.needPath(clinePathKeys, c.Tool, "path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, writeAccess(under(c.Cwd, p)))
	case "apply_patch":
		return patchAccesses(c, input)
	case "search_codebase": // searches the workspace it runs in
		c.Accesses = append(c.Accesses, treeAccess(c.Cwd))
	case "run_commands":
		text, err := clineCommands(input)
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, shellCommand(c.Cwd, text))
		c.Shell, c.ToolInput = true, json.RawMessage(mustMarshal(map[string]string{"command": text}))
	default:
		return unknownTool(c.Client, c.Tool)
	}
	return nil
}

// clinePathKeys are the keys a Cline tool input may name its paths with:
// objects naming one (path, file_path, filePath) or listing them (files,
// file_paths, paths). An object holding two of them is refused: which one
// Cline's parser reads is its own choice.
var clinePathKeys = []string{"path", "file_path", "filePath", "files", "file_paths", "paths"}

// clinePaths are the files of a read_files input: a path, a list of
// them, or objects naming them under one of clinePathKeys.
func clinePaths(raw json.RawMessage) ([]string, error) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, nil
	}
	var out []string
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			k, err := keysOf(x).one(clinePathKeys...)
			if err != nil || k == "" {
				return err
			}
			return walk(x[k])
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	return out, nil
}

// clineReadVariants are the files Cline 3.0.65's read_files may open for
// the path p (resolveExistingFilePath in @cline/shared's storage): p when
// it exists, else the first that exists of its name with a narrow
// no-break space before AM/PM, the whole path in NFD, with curly
// apostrophes (U+2019), NFD with curly apostrophes, and last any entry of
// its folder whose name, in NFC with Unicode spaces made plain, is p's
// name so read. Each may be another file than p, or a link out of the
// workspace ("/w/a b" missing, "/w/a\u00a0b" a link to a key), and which
// exists when Cline looks is Cline's: every variant is checked, with the
// folder's entries as they are now.
func clineReadVariants(p string) []string {
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i+1], p[i+1:]
	}
	nfd := norm.NFD.String(p)
	curly := func(s string) string { return strings.ReplaceAll(s, "'", "\u2019") }
	out := []string{p}
	add := func(v string) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, v := range []string{dir + piAMPM(name), nfd, curly(p), curly(nfd)} {
		add(v)
	}
	if dir == "" {
		return out
	}
	loose := func(s string) string { return piSpaces.Replace(norm.NFC.String(s)) }
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if loose(e.Name()) == loose(name) {
			add(dir + e.Name())
		}
	}
	return out
}

// clineCommands is a run_commands input as one shell text, a command a
// line: a command, a list of them, an object with command, cmd or
// commands, and {command, args} (run without a shell: its words quoted).
func clineCommands(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", malformed("tool run_commands: %v", err)
	}
	var lines []string
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case string:
			lines = append(lines, x)
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			// Which of two keys Cline would run is its parser's choice:
			// an input naming more than one is refused.
			if k, err := keysOf(x).one(commandKeys...); err != nil || k == "" {
				return cmp.Or(err, malformed("tool run_commands: an object with none of commands, command and cmd"))
			}
			if list, ok := x["commands"]; ok {
				return walk(list)
			}
			cmd, ok := x["command"].(string)
			if !ok {
				cmd, ok = x["cmd"].(string)
			}
			if !ok {
				return malformed("tool run_commands: a command that is not a string")
			}
			if args, ok := x["args"].([]any); ok {
				words := []string{wire.ShellQuote(cmd)}
				for _, a := range args {
					s, ok := a.(string)
					if !ok {
						return malformed("tool run_commands: an argument that is not a string")
					}
					words = append(words, wire.ShellQuote(s))
				}
				cmd = strings.Join(words, " ")
			}
			lines = append(lines, cmd)
		default:
			return malformed("tool run_commands: input of an unknown shape")
		}
		return nil
	}
	if err := walk(v); err != nil {
		return "", err
	}
	if len(lines) == 0 {
		return "", malformed("tool run_commands: no commands")
	}
	return strings.Join(lines, "\n"), nil
}

// keysOf is a decoded object's keys, for fields.one.
func keysOf(x map[string]any) fields {
	f := make(fields, len(x))
	for k := range x {
		f[k] = nil
	}
	return f
}

func mustMarshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil { // maps of strings always marshal
		panic(err)
	}
	return data
}

type clineOutput struct {
	Cancel  bool            `json:"cancel,omitempty"`
	Message string          `json:"errorMessage,omitempty"`
	Context string          `json:"contextModification,omitempty"`
	Input   json.RawMessage `json:"overrideInput,omitempty"`
}

// clineKnownInput are Cline's own tools, whose inputs all refuse an
// object holding only pathgrant_denied.
var clineKnownInput = []string{"read_files", "editor", "apply_patch", "search_codebase", "run_commands"}

func (clineAdapter) render(c Call, v Verdict) Output {
	switch {
	case v.Allow && v.Rewrite != nil:
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(v.Rewrite, &in) != nil || in.Command == "" {
			return clineBlock(c, "pathgrant: cannot rewrite this command to run confined: denied")
		}
		return jsonOutput(clineOutput{Input: mustMarshal(map[string][]string{"commands": {in.Command}})})
	case v.Allow || v.Defer:
		return jsonOutput(struct{}{})
	}
	return clineBlock(c, v.Reason)
}

// clineBlock fails the call, or stops the run where its input is not
// known to refuse pathgrant's (see above).
func clineBlock(c Call, reason string) Output {
	for _, t := range clineKnownInput {
		if c.Tool == t {
			return jsonOutput(clineOutput{Input: mustMarshal(map[string]string{"pathgrant_denied": reason}), Context: reason})
		}
	}
	return jsonOutput(clineOutput{Cancel: true, Message: reason, Context: reason})
}

// block answers input the hook could not understand: Cline ignores exit
// statuses, so the run is stopped instead.
func (clineAdapter) block(reason string) Output {
	return jsonOutput(clineOutput{Cancel: true, Message: reason, Context: reason})
}
