package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// modelTurn is one scripted model turn: a tool call (tool and its
// arguments) or, with no tool, text that ends the conversation.
type modelTurn struct {
	tool      string
	namespace string // the Responses API's tool namespace (Codex's MCP servers: mcp__SERVER)
	args      map[string]any
	text      string
}

// fakeModel is the conversation state shared by the local stand-ins for
// the OpenAI APIs: the scripted turns, the agent's requests, and when each
// tool call was sent, so that the time until its result came back can be
// measured at the model's side of the wire.
type fakeModel struct {
	mu        sync.Mutex
	turns     []modelTurn
	requests  []map[string]any
	sent      map[int]time.Time // tool-call turn → when its stream ended
	latencies []time.Duration   // tool call sent → request carrying its result
}

// script sets the turns of the next conversation and forgets the last.
func (f *fakeModel) script(turns ...modelTurn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turns, f.requests, f.sent, f.latencies = turns, nil, map[int]time.Time{}, nil
}

// next records a conversation request that already carries results tool
// results and returns the turn that answers it. The turn is the
// number of results, not of requests: a client's retries or side requests
// do not shift the script.
func (f *fakeModel) next(req map[string]any, results int) (modelTurn, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if t, ok := f.sent[results-1]; ok && results > 0 {
		f.latencies = append(f.latencies, time.Since(t))
		delete(f.sent, results-1)
	}
	if results < len(f.turns) {
		return f.turns[results], results
	}
	return modelTurn{text: "done"}, results
}

// record keeps a request that is not a turn of the conversation.
func (f *fakeModel) record(req map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
}

// markSent records that the tool call of turn n has been streamed.
func (f *fakeModel) markSent(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent[n] = time.Now()
}

// toolLatencies returns, for each tool call of the conversation, the time
// from the end of its stream to the arrival of the request carrying its
// result.
func (f *fakeModel) toolLatencies() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.latencies...)
}

func (f *fakeModel) requestsCopy() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.requests...)
}

// requestsJSON is every request of the last conversation, as JSON.
func (f *fakeModel) requestsJSON() string {
	data, _ := json.Marshal(f.requestsCopy())
	return string(data)
}

func callID(n int) string { return fmt.Sprintf("call_e2e_%02d", n) }

// serveFake starts h on loopback only (httptest binds 127.0.0.1) and stops
// it when the test ends.
func serveFake(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func decodeJSONBody(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, fmt.Sprintf("decode request: %v", err), http.StatusBadRequest)
		return nil, false
	}
	return req, true
}

func notFoundJSON(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	io.WriteString(w, `{"error":{"message":"not here","type":"invalid_request_error"}}`)
}

// fakeResponses is a local stand-in for the OpenAI Responses API as Codex
// uses it (wire_api = "responses"): each POST /v1/responses gets the next
// scripted turn as server-sent events: response.created, one
// response.output_item.done (a function_call or a message), and
// response.completed.
type fakeResponses struct{ fakeModel }

func (f *fakeResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		notFoundJSON(w)
		return
	}
	req, ok := decodeJSONBody(w, r)
	if !ok {
		return
	}
	input, _ := req["input"].([]any)
	turn, n := f.next(req, countItems(input, "type", "function_call_output"))
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	event := func(name string, data map[string]any) {
		data["type"] = name
		payload, _ := json.Marshal(data)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", name, payload)
	}
	id := fmt.Sprintf("resp_e2e_%d", time.Now().UnixNano())
	event("response.created", map[string]any{"response": map[string]any{"id": id}})
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id,
		"content": []any{map[string]any{"type": "output_text", "text": turn.text}}}
	if turn.tool != "" {
		args, _ := json.Marshal(turn.args)
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": callID(n), "name": turn.tool, "arguments": string(args)}
		if turn.namespace != "" {
			item["namespace"] = turn.namespace
		}
	}
	event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	event("response.completed", map[string]any{"response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
	bw.Flush()
	if turn.tool != "" {
		f.markSent(n)
	}
}

// toolResult returns the output Codex sent back for the function call id.
func (f *fakeResponses) toolResult(id string) (string, bool) {
	for _, req := range f.requestsCopy() {
		input, _ := req["input"].([]any)
		for _, it := range input {
			m, _ := it.(map[string]any)
			if m["type"] == "function_call_output" && m["call_id"] == id {
				return textOf(m["output"]), true
			}
		}
	}
	return "", false
}

// fakeChat is a local stand-in for an OpenAI-compatible chat completions
// endpoint as Pi uses it (api "openai-completions"): each POST
// /v1/chat/completions gets the next scripted turn as streamed
// chat.completion.chunk events.
type fakeChat struct{ fakeModel }

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") { // Copilot lists the models first
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-4.1","object":"model","owned_by":"e2e"}]}`)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		notFoundJSON(w)
		return
	}
	req, ok := decodeJSONBody(w, r)
	if !ok {
		return
	}
	msgs, _ := req["messages"].([]any)
	turn, n := modelTurn{text: "ok"}, -1
	if _, tools := req["tools"]; tools {
		turn, n = f.next(req, countItems(msgs, "role", "tool"))
	} else { // a side request (a title, a summary): recorded, not a turn of the script
		f.record(req)
	}
	model, _ := req["model"].(string)
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	chunk := func(delta map[string]any, finish any) {
		payload, _ := json.Marshal(map[string]any{"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(bw, "data: %s\n\n", payload)
	}
	if turn.tool != "" {
		args, _ := json.Marshal(turn.args)
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": callID(n), "type": "function",
			"function": map[string]any{"name": turn.tool, "arguments": string(args)}}}}, nil)
		chunk(map[string]any{}, "tool_calls")
	} else {
		chunk(map[string]any{"role": "assistant", "content": turn.text}, nil)
		chunk(map[string]any{}, "stop")
	}
	io.WriteString(bw, "data: [DONE]\n\n")
	bw.Flush()
	if turn.tool != "" {
		f.markSent(n)
	}
}

// toolResult returns the tool message Pi sent back for the tool call id.
func (f *fakeChat) toolResult(id string) (string, bool) {
	for _, req := range f.requestsCopy() {
		msgs, _ := req["messages"].([]any)
		for _, it := range msgs {
			m, _ := it.(map[string]any)
			if m["role"] == "tool" && m["tool_call_id"] == id {
				return textOf(m["content"]), true
			}
		}
	}
	return "", false
}

// countItems counts the objects in list whose key has value.
func countItems(list []any, key, value string) int {
	n := 0
	for _, it := range list {
		if m, ok := it.(map[string]any); ok && m[key] == value {
			n++
		}
	}
	return n
}

// textOf flattens a string or a list of content parts ({text: …}) to text.
func textOf(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var sb strings.Builder
		for _, part := range c {
			if m, ok := part.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					sb.WriteString(s)
				}
			}
		}
		return sb.String()
	}
	return ""
}
