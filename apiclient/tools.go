package apiclient

import (
	"context"
	"net/http"
	"net/url"

	"pathgrant/tools"
	"pathgrant/wire"
)

// Tool runs tool for the client's session through POST /v1/tools/{tool}
// (the session named by the client's Session and Token, or by req). A
// denial is a result, not an error: its decision, reason, pending id and
// retry hint are in it. An error is a refusal of the call itself (no
// session, a bad argument) or no daemon.
func (c *Client) Tool(ctx context.Context, tool string, req wire.ToolRequest) (tools.Result, error) {
	var out tools.Result
	return out, c.Do(ctx, http.MethodPost, wire.PathTools+"/"+url.PathEscape(tool), req, &out)
}
