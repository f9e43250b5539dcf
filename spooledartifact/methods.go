package spooledartifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact/internal/method"
)

// Base tool names.
const (
	ToolHead           = "artifact_head"
	ToolTail           = "artifact_tail"
	ToolGrep           = "artifact_grep"
	ToolCat            = "artifact_cat"
	ToolByteLength     = "artifact_byte_length"
	ToolLineCount      = "artifact_line_count"
	ToolEstimateTokens = "artifact_estimate_tokens"
)

// encodings lists the encodings artifact_estimate_tokens accepts.
var encodings = []forge.Encoding{forge.EncodingR50K, forge.EncodingP50K,
	forge.EncodingP50KEdit, forge.EncodingCL100K, forge.EncodingO200K, forge.EncodingClaude}

// lineQuerier is what the base methods need from an artifact: *Artifact and
// every kind that embeds it.
type lineQuerier interface {
	forge.Artifact
	Reader() Reader
	EachLine(ctx context.Context, start, end int, fn func(i int, line []byte) error) error
	GrepFunc(ctx context.Context, pattern string, opts *GrepOptions, fn func(line int, text []byte) bool) error
	EstimateTokens(ctx context.Context, enc forge.Encoding) (int, error)
}

// baseMethods returns the seven base query methods, in the original's order:
// artifact_head, artifact_tail, artifact_grep, artifact_cat,
// artifact_byte_length, artifact_line_count, artifact_estimate_tokens.
//
// An answer of artifact_head, artifact_tail, artifact_cat or artifact_grep
// holds at most limit bytes (< 0: no cap; DefaultMaxAnswerBytes unless
// Forger.MaxAnswerBytes says otherwise): the query stops reading there and the answer's last line
// says so and which start argument continues it. artifact_grep's start
// selects matches, so when its cap falls in the context after a match, the
// note first names the artifact_cat range with the rest of that context:
// following the notes shows every line once and always ends. Below the cap the output
// is the original's: lines joined with '\n', "(empty list)" for none.
//
// artifact_grep extends the original's schema with optional maxMatches,
// maxBytes, context (lines before and after each match), lineNumbers
// (prefix "N:" to matches and "N-" to context lines) and start (the first
// line searched). With none of them its output is the original's: the
// matching lines joined with '\n'. When maxMatches or maxBytes cuts the
// result, a last line says so.
//
// Arguments of the wrong type or sign (a fraction, a string for n, a
// negative start) and a pattern RE2 cannot compile fail the call with an
// error matching forge.ErrInvalidToolArgs.
func baseMethods(limit int) []Method {
	encs := make([]string, 0, 7)
	for _, e := range encodings {
		encs = append(encs, strconv.Quote(string(e)))
	}
	return []Method{
		{
			Tool:        ToolHead,
			Description: "Return the first n lines of a spooled artifact produced earlier in this turn.",
			Params:      json.RawMessage(`{"n":{"type":"integer","minimum":1,"default":10,"description":"Number of lines (default 10)."}}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, n, err := lineCountArgs(a, args)
				if err != nil {
					return "", err
				}
				return catAnswer(ctx, q, 0, n, limit)
			},
		},
		{
			Tool:        ToolTail,
			Description: "Return the last n lines of a spooled artifact produced earlier in this turn.",
			Params:      json.RawMessage(`{"n":{"type":"integer","minimum":1,"default":10,"description":"Number of lines (default 10)."}}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, n, err := lineCountArgs(a, args)
				if err != nil {
					return "", err
				}
				count := q.Reader().LineCount()
				return catAnswer(ctx, q, max(0, count-n), count, limit)
			},
		},
		{
			Tool: ToolGrep,
			Description: "Return every line matching a regular expression (RE2 syntax; no lookaround or backreferences) in a spooled artifact produced earlier in this turn. " +
				"Unlike JavaScript, with the m flag $ does not match before a \\r: write \\r?$ to match the ends of CRLF lines.",
			Params: json.RawMessage(`{` +
				`"pattern":{"type":"string","description":"Regular expression in RE2 syntax, tested against each line."},` +
				`"flags":{"type":"string","pattern":"^[ims]*$","description":"Optional flags: i (ignore case), m (multi-line), s (dot matches newline)."},` +
				`"maxMatches":{"type":"integer","minimum":1,"description":"Optional cap on the matching lines returned."},` +
				`"maxBytes":{"type":"integer","minimum":1,"description":"Optional cap on the bytes of matching lines returned."},` +
				`"context":{"type":"integer","minimum":0,"description":"Optional number of lines to show before and after each match."},` +
				`"lineNumbers":{"type":"boolean","description":"Prefix lines with their 0-based number (N: for a match, N- for context)."},` +
				`"start":{"type":"integer","minimum":0,"description":"Optional first line to search, 0-based (default 0); continues a capped answer."}}`),
			Required: []string{"pattern"},
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, err := querier(a)
				if err != nil {
					return "", err
				}
				g, err := grepArgs(args)
				if err != nil {
					return "", err
				}
				out, err := grepAnswer(ctx, q, g, limit)
				if errors.Is(err, ErrInvalidRegex) || errors.Is(err, ErrUnsupportedRegex) {
					// The model's pattern, not the artifact, is at fault.
					return "", forge.ErrInvalidToolArgs.With(err, "spooledartifact: invalid argument pattern, fix it and call %s again", ToolGrep)
				}
				return out, err
			},
		},
		{
			Tool:        ToolCat,
			Description: "Return the lines of a spooled artifact produced earlier in this turn, optionally bounded to the 0-based range [start, end).",
			Params: json.RawMessage(`{` +
				`"start":{"type":"integer","minimum":0,"description":"First line, inclusive (default 0)."},` +
				`"end":{"type":"integer","minimum":0,"description":"Last line, exclusive (default: the line count)."}}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, err := querier(a)
				if err != nil {
					return "", err
				}
				start, err := method.IntArg(args, "start", 0)
				if err != nil {
					return "", err
				}
				end, err := method.IntArg(args, "end", -1)
				if err != nil {
					return "", err
				}
				return catAnswer(ctx, q, start, end, limit)
			},
		},
		{
			Tool:        ToolByteLength,
			Description: "Return the total byte length of a spooled artifact produced earlier in this turn.",
			Params:      json.RawMessage(`{}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				n, err := a.ByteLength(ctx)
				return strconv.FormatInt(n, 10), err
			},
		},
		{
			Tool:        ToolLineCount,
			Description: "Return the total line count of a spooled artifact produced earlier in this turn.",
			Params:      json.RawMessage(`{}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				n, err := a.LineCount(ctx)
				return strconv.Itoa(n), err
			},
		},
		{
			Tool:        ToolEstimateTokens,
			Description: "Return the estimated token count of a spooled artifact produced earlier in this turn under a token encoding.",
			Params: json.RawMessage(`{"encoding":{"type":"string","enum":[` + strings.Join(encs, ",") +
				`],"description":"Token encoding to count with."}}`),
			Required: []string{"encoding"},
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, err := querier(a)
				if err != nil {
					return "", err
				}
				enc, _, err := method.StringArg(args, "encoding")
				if err != nil {
					return "", err
				}
				n, err := q.EstimateTokens(ctx, forge.Encoding(enc))
				return strconv.Itoa(n), err
			},
		},
	}
}

// grepArgs reads artifact_grep's arguments.
func grepArgs(args map[string]any) (grepQuery, error) {
	var g grepQuery
	var ok bool
	var err error
	if g.pattern, ok, err = method.StringArg(args, "pattern"); err != nil {
		return g, err
	} else if !ok {
		return g, forge.ErrInvalidToolArgs.With(nil, "spooledartifact: pattern is required")
	}
	if g.flags, _, err = method.StringArg(args, "flags"); err != nil {
		return g, err
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"maxMatches", &g.maxMatches}, {"maxBytes", &g.maxBytes}, {"context", &g.context}, {"start", &g.start}} {
		if *f.dst, err = method.IntArg(args, f.name, 0); err != nil {
			return g, err
		}
	}
	if v, present := args["lineNumbers"]; present && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return g, forge.ErrInvalidToolArgs.With(nil, "spooledartifact: lineNumbers must be a boolean, got %T", v)
		}
		g.lineNumbers = b
	}
	return g, nil
}

// EffectiveMethods returns the methods of kind k: the base seven followed by
// k's own, the nearest winning by tool name (a kind method named like a base
// one replaces it in place). A nil k gives the base seven: artifact_head,
// artifact_tail, artifact_grep, artifact_cat, artifact_byte_length,
// artifact_line_count and artifact_estimate_tokens. The base tools' answers
// are capped at DefaultMaxAnswerBytes (see Forger.MaxAnswerBytes) and say
// how to continue; artifact_grep takes optional maxMatches, maxBytes,
// context, lineNumbers and start arguments.
func EffectiveMethods(k Kind) []Method {
	base := baseMethods(DefaultMaxAnswerBytes)
	if k == nil {
		return base
	}
	return mergeMethods(base, k.Methods())
}

// mergeMethods returns base followed by own, the nearest winning by tool
// name: an own method named like an earlier one replaces it in place (the
// last of a name wins), the others follow in the order first seen. It is
// the one merge behind EffectiveMethods and the Forger; base is not
// modified.
func mergeMethods(base, own []Method) []Method {
	out := make([]Method, len(base), len(base)+len(own))
	copy(out, base)
	if len(own) == 0 {
		return out
	}
	pos := make(map[string]int, len(out)+len(own))
	for i, m := range out {
		pos[m.Tool] = i
	}
	for _, m := range own {
		if i, ok := pos[m.Tool]; ok {
			out[i] = m
			continue
		}
		pos[m.Tool] = len(out)
		out = append(out, m)
	}
	return out
}

// lineCountArgs resolves the artifact and the n argument of artifact_head
// and artifact_tail: absent or 0 means DefaultLines, as Head and Tail.
func lineCountArgs(a forge.Artifact, args map[string]any) (lineQuerier, int, error) {
	q, err := querier(a)
	if err != nil {
		return nil, 0, err
	}
	n, err := method.IntArg(args, "n", DefaultLines)
	if err != nil {
		return nil, 0, err
	}
	if n == 0 {
		n = DefaultLines
	}
	return q, n, nil
}

func querier(a forge.Artifact) (lineQuerier, error) {
	q, ok := a.(lineQuerier)
	if !ok {
		return nil, fmt.Errorf("spooledartifact: artifact %q of kind %s has no line queries", a.ID(), a.Kind())
	}
	return q, nil
}
