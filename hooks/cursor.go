package hooks

import (
	"encoding/json"
	"fmt"
)

// Cursor: hooks.json events beforeShellExecution ({command, cwd}),
// beforeReadFile ({file_path, content, attachments}) and
// beforeMCPExecution ({tool_name, tool_input, ...}); every event carries
// conversation_id, generation_id and workspace_roots. Output:
// {"permission": "allow"|"deny", "user_message", "agent_message"}.
//
// An MCP tool does whatever its server does with files; nothing in the
// call says what. pathgrant's own bridge (its command is `pathgrant mcp`)
// checks each call itself and is allowed; any other server's tool is
// "ask" (Cursor asks its user) unless unknown_tools = "deny".

type cursorInput struct {
	ConversationID string          `json:"conversation_id"`
	GenerationID   string          `json:"generation_id"`
	Event          string          `json:"hook_event_name"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Command        string          `json:"command"`
	Cwd            string          `json:"cwd"`
	FilePath       string          `json:"file_path"`
	Attachments    []cursorAttach  `json:"attachments"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	URL            string          `json:"url"`
}

type cursorAttach struct {
	Type      string `json:"type"`
	FilePath  string `json:"file_path"`
	FilePath2 string `json:"filePath"`
}

type cursorAdapter struct{}

func (cursorAdapter) parse(raw []byte) (Call, error) {
	var in cursorInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	c := Call{Client: "cursor", Event: in.Event, ClientSession: in.ConversationID, RequestID: in.GenerationID,
		WorkspaceRoots: in.WorkspaceRoots, Cwd: in.Cwd}
	if c.Cwd == "" && len(in.WorkspaceRoots) > 0 {
		c.Cwd = in.WorkspaceRoots[0]
	}
	switch in.Event {
	case "beforeShellExecution":
		c.Tool = "shell"
		if in.Command == "" {
			return Call{}, malformed("beforeShellExecution: no command")
		}
		c.Accesses = append(c.Accesses, shellCommand(c.Cwd, in.Command))
		c.Shell, c.ToolInput = true, raw // its "command" is the shell text; Cursor cannot rewrite it
	case "beforeReadFile":
		c.Tool = "read_file"
		if in.FilePath == "" {
			return Call{}, malformed("beforeReadFile: no file_path")
		}
		c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, in.FilePath)))
		for _, a := range in.Attachments {
			if a.FilePath != "" && a.FilePath2 != "" {
				return Call{}, fmt.Errorf("%w (\"file_path\" and \"filePath\" of an attachment)", errTwoKeys)
			}
			if p := orDefault(a.FilePath, a.FilePath2); p != "" {
				c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, p)))
			}
		}
	case "beforeMCPExecution":
		c.Tool = "mcp:" + in.ToolName
		server := cursorMCPServer(in.Command, in.URL)
		mcpTool(&c, server, bridgeTool(server, in.ToolName))
	default:
		return Call{}, malformed("event %q is not beforeShellExecution, beforeReadFile or beforeMCPExecution", in.Event)
	}
	return c, nil
}

type cursorOutput struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

func (cursorAdapter) render(_ Call, v Verdict) Output {
	if v.Defer {
		return jsonOutput(cursorOutput{Permission: "ask", UserMessage: v.Reason})
	}
	if v.Allow {
		return jsonOutput(cursorOutput{Permission: "allow"})
	}
	return jsonOutput(cursorOutput{Permission: "deny", UserMessage: v.Reason, AgentMessage: v.Reason})
}
