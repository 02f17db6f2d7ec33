// A Chat Completions adapter in Go (net/http, standard library only) served over
// pytest-toolcall's child-process protocol (docs/protocol.md): one JSON object a line on
// stdin and stdout, logs on stderr. It shows the protocol is language-neutral; the kit's tests
// build it and run the chat cases through it where `go` is installed (tests/test_foreign_go.py).
//
//	go build -o chat-adapter . && pytest --toolcall-provider=openai --toolcall-command=./chat-adapter
//
// TOOLCALL_EXAMPLE_BUG selects a deliberate bug, for the kit's negative controls:
//
//	merge_calls  complete() keys tool calls by name: two calls to one tool collapse
//	drop_text    stream() drops the text deltas
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

var bug = os.Getenv("TOOLCALL_EXAMPLE_BUG")

// One client for the run: kept-alive connections to the fake, and a timeout so that a stalled
// stream fails the request instead of hanging it (keep it under the profile's timeout).
var client = &http.Client{Timeout: 5 * time.Second}

// ---- the canonical shapes (pytest_toolcall/core/model.py, dumped as JSON) ----------------

type ToolCall struct {
	ID           *string         `json:"id"`
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"` // as the provider sent it: text, object or null
	RawArguments *string         `json:"raw_arguments,omitempty"`
}

type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID *string    `json:"tool_call_id,omitempty"`
}

type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

type Request struct {
	Messages          []Message       `json:"messages"`
	Tools             []Tool          `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"` // null, "auto", ..., or {"name": ...}
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	Model             *string         `json:"model"`
}

type Endpoint struct {
	BaseURL string `json:"base_url"`
	APIKey  string `json:"api_key"`
}

type Usage struct {
	InputTokens  *int `json:"input_tokens"`
	OutputTokens *int `json:"output_tokens"`
	TotalTokens  *int `json:"total_tokens"`
}

// ProtocolError is what the kit maps to ProviderError, StreamError or IncompleteStreamError.
type ProtocolError struct {
	Kind         string   `json:"kind"` // provider, stream, incomplete, error
	Message      string   `json:"message"`
	Status       *int     `json:"status,omitempty"`
	ProviderType *string  `json:"provider_type,omitempty"`
	Code         *string  `json:"code,omitempty"`
	RetryAfter   *float64 `json:"retry_after,omitempty"`
	Retryable    *bool    `json:"retryable,omitempty"`
	Name         string   `json:"name,omitempty"`
}

func (e *ProtocolError) Error() string { return e.Message }

// ---- the OpenAI wire format -------------------------------------------------------------

type wireCall struct {
	Index    *int    `json:"index,omitempty"`
	ID       *string `json:"id,omitempty"`
	Type     string  `json:"type,omitempty"`
	Function struct {
		Name      *string         `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
	TotalTokens      *int `json:"total_tokens"`
}

type wireError struct {
	Message *string         `json:"message"`
	Type    *string         `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func usageOf(u *wireUsage) *Usage {
	if u == nil {
		return nil
	}
	return &Usage{u.PromptTokens, u.CompletionTokens, u.TotalTokens}
}

func finishOf(reason *string) *string {
	if reason == nil {
		return nil
	}
	known := map[string]string{"stop": "stop", "tool_calls": "tool_calls",
		"function_call": "tool_calls", "length": "length", "content_filter": "content_filter"}
	out, ok := known[*reason]
	if !ok {
		out = "other"
	}
	return &out
}

// argumentsText: a call's arguments as JSON text to replay (never "", never re-escaped).
func argumentsText(c ToolCall) string {
	raw := bytes.TrimSpace(c.Arguments)
	if len(raw) == 0 || string(raw) == "null" {
		if c.RawArguments != nil && *c.RawArguments != "" {
			return *c.RawArguments
		}
		return "{}"
	}
	return string(raw)
}

func encodeMessage(m Message) map[string]any {
	switch m.Role {
	case "tool":
		return map[string]any{"role": "tool", "tool_call_id": m.ToolCallID, "content": m.Content}
	case "assistant":
		out := map[string]any{"role": "assistant", "content": m.Content}
		if len(m.ToolCalls) > 0 {
			calls := []map[string]any{}
			for _, c := range m.ToolCalls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": argumentsText(c)}})
			}
			out["tool_calls"] = calls
		} else if m.Content == nil {
			out["content"] = ""
		}
		return out
	default: // system, developer, user
		return map[string]any{"role": m.Role, "content": m.Content}
	}
}

func buildBody(r Request, stream bool) map[string]any {
	model := "gpt-4o-mini"
	if r.Model != nil {
		model = *r.Model
	}
	messages := []map[string]any{}
	for _, m := range r.Messages {
		messages = append(messages, encodeMessage(m))
	}
	body := map[string]any{"model": model, "messages": messages}
	if len(r.Tools) > 0 {
		tools := []map[string]any{}
		for _, t := range r.Tools {
			fn := map[string]any{"name": t.Name, "description": t.Description,
				"parameters": t.Parameters}
			if t.Strict != nil {
				fn["strict"] = *t.Strict
			}
			tools = append(tools, map[string]any{"type": "function", "function": fn})
		}
		body["tools"] = tools
		var choice any
		if err := json.Unmarshal(r.ToolChoice, &choice); err == nil && choice != nil {
			if named, ok := choice.(map[string]any); ok {
				body["tool_choice"] = map[string]any{"type": "function",
					"function": map[string]any{"name": named["name"]}}
			} else {
				body["tool_choice"] = choice
			}
		}
		if r.ParallelToolCalls != nil {
			body["parallel_tool_calls"] = *r.ParallelToolCalls
		}
	}
	if stream {
		body["stream"] = true
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	return body
}

// marshal: JSON without HTML escapes (a call's arguments go back as the provider sent them).
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func post(ep Endpoint, body map[string]any) (*http.Response, error) {
	url := strings.TrimRight(ep.BaseURL, "/") + "/chat/completions"
	req, err := http.NewRequest("POST", url, bytes.NewReader(marshal(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("authorization", "Bearer "+ep.APIKey)
	req.Header.Set("content-type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	status := resp.StatusCode
	perr := &ProtocolError{Kind: "provider", Status: &status, Message: string(text)}
	if len(perr.Message) > 500 {
		perr.Message = perr.Message[:500]
	}
	var data struct {
		Error *wireError `json:"error"`
	}
	var code string
	if json.Unmarshal(text, &data) == nil && data.Error != nil {
		if data.Error.Message != nil {
			perr.Message = *data.Error.Message
		}
		perr.ProviderType = data.Error.Type
		if json.Unmarshal(data.Error.Code, &code) == nil {
			perr.Code = &code
		}
	}
	if after, err := strconv.ParseFloat(resp.Header.Get("retry-after"), 64); err == nil {
		perr.RetryAfter = &after
	}
	retryable := status == 408 || status == 409 || status == 429 || status >= 500
	if code == "insufficient_quota" {
		retryable = false
	}
	perr.Retryable = &retryable
	return nil, perr
}

// ---- complete: one call -----------------------------------------------------------------

func complete(r Request, ep Endpoint) (map[string]any, error) {
	resp, err := post(ep, buildBody(r, false))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var data struct {
		Choices []struct {
			Message *struct {
				Content   *string    `json:"content"`
				ToolCalls []wireCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage `json:"usage"`
	}
	if json.Unmarshal(text, &data) != nil || len(data.Choices) == 0 || data.Choices[0].Message == nil {
		head := string(text)
		if len(head) > 200 {
			head = head[:200]
		}
		return nil, &ProtocolError{Kind: "provider",
			Message: "malformed response, no choices[0].message: " + head}
	}
	choice := data.Choices[0]
	calls := []map[string]any{}
	seen := map[string]int{}
	for _, c := range choice.Message.ToolCalls {
		call := map[string]any{"id": c.ID, "name": c.Function.Name, "arguments": c.Function.Arguments}
		if len(c.Function.Arguments) == 0 {
			call["arguments"] = nil
		}
		name := ""
		if c.Function.Name != nil {
			name = *c.Function.Name
		}
		if at, ok := seen[name]; ok && bug == "merge_calls" {
			calls[at] = call
			continue
		}
		seen[name] = len(calls)
		calls = append(calls, call)
	}
	return map[string]any{"text": choice.Message.Content, "tool_calls": calls,
		"finish_reason": finishOf(choice.FinishReason), "usage": usageOf(data.Usage)}, nil
}

// ---- stream: canonical events, calls keyed on index, then on id -------------------------

type slot struct {
	index int
	id    *string
	name  *string
	args  *strings.Builder // nil until an arguments fragment arrives
}

func stream(r Request, ep Endpoint, emit func(map[string]any)) error {
	resp, err := post(ep, buildBody(r, true))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var slots []*slot
	byIndex := map[int]*slot{}
	var finish *string
	var usage *Usage
	reader := bufio.NewReader(resp.Body) // lines of any length, cut anywhere by the network
	for {
		line, readErr := reader.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "data:") {
			payload := strings.TrimSpace(line[5:])
			if payload == "[DONE]" {
				for _, s := range slots {
					call := map[string]any{"id": s.id, "name": "", "arguments": nil}
					if s.name != nil {
						call["name"] = *s.name
					}
					if s.args != nil {
						call["arguments"] = s.args.String()
					}
					emit(map[string]any{"type": "tool_call_complete", "call": call})
				}
				emit(map[string]any{"type": "done", "finish_reason": finishOf(finish), "usage": usage})
				return nil
			}
			var chunk struct {
				Error   *wireError `json:"error"`
				Usage   *wireUsage `json:"usage"`
				Choices []struct {
					Delta struct {
						Content   *string    `json:"content"`
						ToolCalls []wireCall `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(payload), &chunk); err != nil {
				return &ProtocolError{Kind: "stream", Message: "a stream chunk is not JSON: " + err.Error()}
			}
			if chunk.Error != nil {
				message := "stream error"
				if chunk.Error.Message != nil {
					message = *chunk.Error.Message
				}
				retryable := chunk.Error.Type != nil && *chunk.Error.Type == "server_error"
				return &ProtocolError{Kind: "stream", Message: message,
					ProviderType: chunk.Error.Type, Retryable: &retryable}
			}
			if chunk.Usage != nil {
				usage = usageOf(chunk.Usage)
			}
			for _, choice := range chunk.Choices {
				if choice.Delta.Content != nil && *choice.Delta.Content != "" && bug != "drop_text" {
					emit(map[string]any{"type": "text_delta", "text": *choice.Delta.Content})
				}
				for _, frag := range choice.Delta.ToolCalls {
					key := -1 - len(slots) // no index: a slot of its own unless an id matches
					if frag.Index != nil {
						key = *frag.Index
					}
					s := byIndex[key]
					if s == nil || (frag.ID != nil && s.id != nil && *frag.ID != *s.id) {
						s = &slot{index: len(slots), id: frag.ID, name: frag.Function.Name}
						slots = append(slots, s)
						byIndex[key] = s
					}
					if s.id == nil {
						s.id = frag.ID
					}
					if s.name == nil {
						s.name = frag.Function.Name
					}
					delta := ""
					var fragment string
					if len(frag.Function.Arguments) > 0 && string(frag.Function.Arguments) != "null" {
						if json.Unmarshal(frag.Function.Arguments, &fragment) == nil {
							if s.args == nil {
								s.args = &strings.Builder{}
							}
							s.args.WriteString(fragment)
							delta = fragment
						}
					}
					emit(map[string]any{"type": "tool_call_delta", "index": s.index, "id": frag.ID,
						"name": frag.Function.Name, "arguments_delta": delta})
				}
				if choice.FinishReason != nil {
					finish = choice.FinishReason
				}
			}
		}
		if readErr == io.EOF {
			message := "the stream ended without 'data: [DONE]'"
			if finish == nil {
				message += " and without a finish_reason"
			}
			return &ProtocolError{Kind: "incomplete", Message: message}
		}
		if readErr != nil {
			return &ProtocolError{Kind: "incomplete", Message: "the stream was cut: " + readErr.Error()}
		}
	}
}

// ---- the protocol loop --------------------------------------------------------------------

func main() {
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	write := func(message map[string]any) {
		message["v"] = 1
		out.Write(marshal(message)) // one line: Encode ends it with "\n"
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			handle(line, write)
			out.Flush()
		}
		if err != nil {
			return // the kit closed stdin: the session ends
		}
	}
}

func handle(line []byte, write func(map[string]any)) {
	var msg struct {
		ID       int      `json:"id"`
		Type     string   `json:"type"`
		Request  Request  `json:"request"`
		Endpoint Endpoint `json:"endpoint"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		fmt.Fprintf(os.Stderr, "go adapter: a line from the kit that I cannot read: %v\n", err)
		return
	}
	fail := func(err error) {
		perr, ok := err.(*ProtocolError)
		if !ok { // a transport error, a bug: the kit reports it as the adapter raising
			perr = &ProtocolError{Kind: "error", Message: err.Error(), Name: fmt.Sprintf("%T", err)}
		}
		write(map[string]any{"type": "error", "id": msg.ID, "error": perr})
	}
	switch msg.Type {
	case "hello":
		write(map[string]any{"type": "hello", "id": msg.ID, "protocol": 1, "name": "go chat adapter",
			"contracts": []string{"chat"}, "profile": map[string]any{"streaming": true}})
	case "complete":
		response, err := complete(msg.Request, msg.Endpoint)
		if err != nil {
			fail(err)
			return
		}
		write(map[string]any{"type": "result", "id": msg.ID, "response": response})
	case "stream":
		err := stream(msg.Request, msg.Endpoint, func(event map[string]any) {
			write(map[string]any{"type": "event", "id": msg.ID, "event": event})
		})
		if err != nil {
			fail(err)
			return
		}
		write(map[string]any{"type": "result", "id": msg.ID})
	default:
		fail(fmt.Errorf("unknown request type %q", msg.Type))
	}
}
