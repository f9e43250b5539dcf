package spooledartifact

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ebbforge/adk/forge"
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

// Encodings lists the encodings artifact_estimate_tokens accepts.
func Encodings() []forge.Encoding {
	return []forge.Encoding{forge.EncodingGPT2, forge.EncodingR50K, forge.EncodingP50K,
		forge.EncodingP50KEdit, forge.EncodingCL100K, forge.EncodingO200K, forge.EncodingClaude}
}

// lineQuerier is what the base methods need from an artifact: *Artifact and
// every kind that embeds it.
type lineQuerier interface {
	forge.Artifact
	Head(ctx context.Context, n int) ([]string, error)
	Tail(ctx context.Context, n int) ([]string, error)
	Cat(ctx context.Context, start, end int) ([]string, error)
	Grep(ctx context.Context, pattern string, opts *GrepOptions) (*GrepResult, error)
	EstimateTokens(ctx context.Context, enc forge.Encoding) (int, error)
}

// BaseMethods returns the seven base query methods, in the original's order:
// artifact_head, artifact_tail, artifact_grep, artifact_cat,
// artifact_byte_length, artifact_line_count, artifact_estimate_tokens.
//
// artifact_grep extends the original's schema with optional maxMatches,
// maxBytes, context (lines before and after each match) and lineNumbers
// (prefix "N:" to matches and "N-" to context lines). With none of them its
// output is the original's: the matching lines joined with '\n'. When a cap
// cuts the result, a last line says so.
func BaseMethods() []Method {
	encs := make([]string, 0, 7)
	for _, e := range Encodings() {
		encs = append(encs, strconv.Quote(string(e)))
	}
	return []Method{
		{
			Tool:        ToolHead,
			Description: "Return the first n lines of a spooled artifact produced earlier in this turn.",
			Params:      json.RawMessage(`{"n":{"type":"integer","minimum":1,"default":10,"description":"Number of lines (default 10)."}}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, err := querier(a)
				if err != nil {
					return "", err
				}
				lines, err := q.Head(ctx, argInt(args, "n", DefaultLines))
				return serialiseLines(lines), err
			},
		},
		{
			Tool:        ToolTail,
			Description: "Return the last n lines of a spooled artifact produced earlier in this turn.",
			Params:      json.RawMessage(`{"n":{"type":"integer","minimum":1,"default":10,"description":"Number of lines (default 10)."}}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, err := querier(a)
				if err != nil {
					return "", err
				}
				lines, err := q.Tail(ctx, argInt(args, "n", DefaultLines))
				return serialiseLines(lines), err
			},
		},
		{
			Tool:        ToolGrep,
			Description: "Return every line matching a regular expression (RE2 syntax; no lookaround or backreferences) in a spooled artifact produced earlier in this turn.",
			Params: json.RawMessage(`{` +
				`"pattern":{"type":"string","description":"Regular expression in RE2 syntax, tested against each line."},` +
				`"flags":{"type":"string","pattern":"^[ims]*$","description":"Optional flags: i (ignore case), m (multi-line), s (dot matches newline)."},` +
				`"maxMatches":{"type":"integer","minimum":1,"description":"Optional cap on the matching lines returned."},` +
				`"maxBytes":{"type":"integer","minimum":1,"description":"Optional cap on the bytes of matching lines returned."},` +
				`"context":{"type":"integer","minimum":0,"description":"Optional number of lines to show before and after each match."},` +
				`"lineNumbers":{"type":"boolean","description":"Prefix lines with their 0-based number (N: for a match, N- for context)."}}`),
			Required: []string{"pattern"},
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				q, err := querier(a)
				if err != nil {
					return "", err
				}
				pattern, _ := args["pattern"].(string)
				flags, _ := args["flags"].(string)
				c := argInt(args, "context", 0)
				res, err := q.Grep(ctx, pattern, &GrepOptions{Flags: flags,
					MaxMatches: argInt(args, "maxMatches", 0), MaxBytes: argInt(args, "maxBytes", 0),
					Before: c, After: c})
				if err != nil {
					return "", err
				}
				numbers, _ := args["lineNumbers"].(bool)
				return serialiseGrep(res, numbers), nil
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
				lines, err := q.Cat(ctx, argInt(args, "start", 0), argInt(args, "end", -1))
				return serialiseLines(lines), err
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
				enc, _ := args["encoding"].(string)
				n, err := q.EstimateTokens(ctx, forge.Encoding(enc))
				return strconv.Itoa(n), err
			},
		},
	}
}

// EffectiveMethods returns the methods of kind k: the base seven followed by
// k's own, the nearest winning by tool name (a kind method named like a base
// one replaces it in place). A nil k gives the base seven.
func EffectiveMethods(k Kind) []Method {
	out := BaseMethods()
	if k == nil {
		return out
	}
	pos := make(map[string]int, len(out))
	for i, m := range out {
		pos[m.Tool] = i
	}
	for _, m := range k.Methods() {
		if i, ok := pos[m.Tool]; ok {
			out[i] = m
			continue
		}
		pos[m.Tool] = len(out)
		out = append(out, m)
	}
	return out
}

func querier(a forge.Artifact) (lineQuerier, error) {
	q, ok := a.(lineQuerier)
	if !ok {
		return nil, fmt.Errorf("spooledartifact: artifact %q of kind %s has no line queries", a.ID(), a.Kind())
	}
	return q, nil
}

// serialiseLines is the original's rendering of a list: lines joined with
// '\n', "(empty list)" for none.
func serialiseLines(lines []string) string {
	if len(lines) == 0 {
		return "(empty list)"
	}
	return strings.Join(lines, "\n")
}

func serialiseGrep(res *GrepResult, lineNumbers bool) string {
	if len(res.Lines) == 0 {
		return "(empty list)"
	}
	s := res.Format(lineNumbers)
	if res.Truncated {
		s += fmt.Sprintf("\n(truncated: showing the first %d matching lines; more lines match. Narrow the pattern or raise maxMatches/maxBytes.)", res.Matches)
	}
	return s
}

// argInt reads an integer argument that JSON decoding may have made a
// float64, json.Number or int; absent or unusable gives def.
func argInt(args map[string]any, key string, def int) int {
	switch v := args[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		if v != math.Trunc(v) || math.IsInf(v, 0) || v > math.MaxInt32*float64(1<<31) || v < -math.MaxInt32*float64(1<<31) {
			return def
		}
		return int(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n)
		}
	}
	return def
}
