package ipc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"pathgrant/tools"
)

// maxToolAnswer bounds a tool call's answer: file content or two output
// streams of up to 1 MiB each, JSON-escaped, with room to spare.
const maxToolAnswer = 16 << 20

// Tool runs tool for the client's session through POST /v1/tools/{tool}
// (the session named by the client's Session and Token, or by req). A
// denial is a result, not an error: its decision, reason, pending id and
// retry hint are in it. An error is a refusal of the call itself (no
// session, a bad argument) or no daemon.
func (c *Client) Tool(ctx context.Context, tool string, req ToolRequest) (tools.Result, error) {
	var out tools.Result
	httpReq, err := c.newRequest(ctx, http.MethodPost, "/v1/tools/"+url.PathEscape(tool), req)
	if err != nil {
		return out, err
	}
	cc, err := c.conn(ctx)
	if err != nil {
		return out, err
	}
	stop := context.AfterFunc(ctx, func() { cc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	resp, err := cc.exchange(httpReq)
	if err != nil {
		cc.Close()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return out, fmt.Errorf("pathgrant daemon at %s: %w", c.Socket, err)
	}
	err = decodeToolAnswer(resp, &out)
	_, derr := io.Copy(io.Discard, io.LimitReader(resp.Body, maxToolAnswer))
	if derr != nil || resp.Close || !stop() {
		cc.Close()
	} else {
		c.release(cc)
	}
	return out, err
}

// decodeToolAnswer is decodeResponse with room for a tool's output.
func decodeToolAnswer(resp *http.Response, out *tools.Result) error {
	if resp.StatusCode/100 != 2 {
		return decodeResponse(resp, nil)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxToolAnswer)).Decode(out); err != nil {
		return fmt.Errorf("decode tool answer: %w", err)
	}
	return nil
}
