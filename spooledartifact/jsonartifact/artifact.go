package jsonartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/tidwall/gjson"
	"github.com/titanous/json5"

	"github.com/ebbforge/adk/spooledartifact"
)

// Artifact is a JSON artifact: the base seven queries plus the JSON ones.
// The format is detected (or the hint checked) on the first query and
// cached; a json/json5 root is then held in memory as compact JSON, while
// JSON Lines records are always streamed from the reader. Safe for
// concurrent use.
type Artifact struct {
	*spooledartifact.Artifact
	kind Kind

	mu     sync.Mutex
	loaded bool
	format Format
	root   []byte // compact JSON of a json/json5 document
	err    error  // a definitive detection error (never a context error)
	count  int    // cached record count of a line format, -1 until known
}

// New returns the JSON artifact over r, stored under id, with k's format
// hint and limits. Nothing is read until the first query.
func New(id string, r spooledartifact.Reader, k Kind) *Artifact {
	return &Artifact{Artifact: spooledartifact.New(id, r), kind: k, count: -1}
}

// Kind returns "SpooledJsonArtifact".
func (a *Artifact) Kind() string { return Name }

// ArtifactKind returns the Kind that built a, limits included.
func (a *Artifact) ArtifactKind() spooledartifact.Kind { return a.kind }

// Format returns the hinted or detected format. Detection reads the whole
// content only when it is at most Kind.MaxDocumentBytes; larger artifacts
// can only be inferred as JSON Lines (from their first MiB).
func (a *Artifact) Format(ctx context.Context) (Format, error) {
	f, _, err := a.load(ctx)
	return f, err
}

// load detects the format once; context errors are not cached.
func (a *Artifact) load(ctx context.Context) (Format, []byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.loaded {
		return a.format, a.root, a.err
	}
	f, root, err := a.detect(ctx)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return "", nil, err
	}
	a.loaded, a.format, a.root, a.err = true, f, root, err
	return f, root, err
}

func (a *Artifact) detect(ctx context.Context) (Format, []byte, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	switch a.kind.Format {
	case FormatJSONL, FormatNDJSON:
		return a.kind.Format, nil, nil
	case FormatJSON, FormatJSON5:
		data, err := a.readDocument(ctx)
		if err != nil {
			return "", nil, err
		}
		root, err := parseDocument(data, a.kind.Format)
		if err != nil {
			return "", nil, err
		}
		return a.kind.Format, root, nil
	case "":
	default:
		return "", nil, ErrUnsupportedFormat.With(nil, "jsonartifact: unknown format hint %q (want json, json5, jsonl or ndjson)", a.kind.Format)
	}
	if a.Reader().ByteLength() > a.kind.maxDocumentBytes() {
		if err := a.sampleLines(ctx); err != nil {
			return "", nil, err
		}
		return FormatJSONL, nil, nil
	}
	data, err := a.readDocument(ctx)
	if err != nil {
		return "", nil, err
	}
	f, root, err := Detect(data)
	return f, root, err
}

// Detect infers the format of data the way an Artifact with no hint does
// (for data within MaxDocumentBytes): strict JSON (after trimming
// whitespace and a leading UTF-8 byte order mark), else JSON Lines (every non-empty line is JSON; an empty input
// is JSON Lines with no records), else JSON5, else ErrUnsupportedFormat. It
// returns the compact JSON root for json and json5. A single-line JSON Lines
// input is json.
//
// Input nested more than MaxDepth deep is ErrTooDeep, whatever its format.
func Detect(data []byte) (Format, []byte, error) {
	data = trimBOM(data)
	trimmed := bytes.TrimSpace(data)
	// Bounds every parse below: a JSON Lines record is within it too.
	if err := checkDepth(trimmed, -1); err != nil {
		return "", nil, err
	}
	if gjson.ValidBytes(trimmed) {
		return FormatJSON, compact(trimmed), nil
	}
	// Line numbers count the lines TrimSpace dropped.
	first := bytes.Count(data[:len(data)-len(bytes.TrimLeftFunc(data, unicode.IsSpace))], []byte{'\n'})
	if ok, err := allLinesValid(trimmed, first); err != nil {
		return "", nil, err
	} else if ok {
		return FormatJSONL, nil, nil
	}
	if root, err := json5ToJSON(trimmed); err == nil {
		return FormatJSON5, root, nil
	}
	return "", nil, ErrUnsupportedFormat.With(nil, "jsonartifact: content is not json, json lines or json5")
}

// allLinesValid reports whether every non-empty line of data is JSON; the
// first is line number first.
func allLinesValid(data []byte, first int) (bool, error) {
	for n := first; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if ok, err := validLine(line, n); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// parseDocument validates one json or json5 document and returns it as
// compact JSON. JSON5 objects keep their members in document order (see
// json5ToJSON); numbers keep their exact text.
func parseDocument(data []byte, f Format) ([]byte, error) {
	data = bytes.TrimSpace(trimBOM(data))
	if err := checkDepth(data, -1); err != nil {
		return nil, err
	}
	if f == FormatJSON {
		if !gjson.ValidBytes(data) {
			return nil, ErrUnsupportedFormat.With(nil, "jsonartifact: content is not valid json")
		}
		return compact(data), nil
	}
	return json5ToJSON(data)
}

// bom is the UTF-8 byte order mark (U+FEFF), which some tools write
// before JSON. The reference trims its input with String.prototype.trim,
// which removes U+FEFF; JSON parsers refuse it.
var bom = []byte{0xEF, 0xBB, 0xBF}

// trimBOM drops a byte order mark that leads data, after whitespace if
// any (with it), as trim does: from a document, and from the first
// non-blank line of JSON Lines (see eachLine), so a record never holds it.
func trimBOM(data []byte) []byte {
	rest := bytes.TrimLeftFunc(data, unicode.IsSpace)
	if r := bytes.TrimPrefix(rest, bom); len(r) < len(rest) {
		return r
	}
	return data
}

// fromJSON5 makes a decoded JSON5 value encodable as JSON: json5.Number
// (which encoding/json would quote) becomes json.Number, rewritten to a
// JSON number when it is hex, has a leading '+' or a bare '.'; NaN and
// ±Infinity, which JSON cannot hold, become the strings "NaN", "Infinity"
// and "-Infinity".
func fromJSON5(v any) any {
	switch t := v.(type) {
	case json5.Number:
		return jsonNumber(string(t))
	case float64:
		switch {
		case math.IsNaN(t):
			return "NaN"
		case math.IsInf(t, 1):
			return "Infinity"
		case math.IsInf(t, -1):
			return "-Infinity"
		}
	case map[string]any:
		for k, e := range t {
			t[k] = fromJSON5(e)
		}
	case []any:
		for i, e := range t {
			t[i] = fromJSON5(e)
		}
	}
	return v
}

func jsonNumber(s string) any {
	if json.Valid([]byte(s)) {
		return json.Number(s)
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10))
	}
	if u, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 0, 64); err == nil {
		return json.Number(strconv.FormatUint(u, 10))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s // keep the text rather than fail the document
	}
	return fromJSON5(f)
}

func compact(data []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return bytes.Clone(data) // unreachable for gjson-valid input; keep the bytes
	}
	return buf.Bytes()
}

// readDocument reads the whole content, refusing more than MaxDocumentBytes.
func (a *Artifact) readDocument(ctx context.Context) ([]byte, error) {
	limit := a.kind.maxDocumentBytes()
	if n := a.Reader().ByteLength(); n > limit {
		return nil, ErrTooLarge.With(nil, "jsonartifact: document is %d bytes, above the %d-byte limit for a single json document (Kind.MaxDocumentBytes)", n, limit)
	}
	rc, err := a.Reader().Open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, ErrTooLarge.With(nil, "jsonartifact: document exceeds the %d-byte limit for a single json document (Kind.MaxDocumentBytes)", limit)
	}
	return data, nil
}

// inferSampleBytes is how much of an artifact above MaxDocumentBytes is
// checked line by line before it is taken for JSON Lines.
const inferSampleBytes = 1 << 20

// sampleLines validates the first lines (at least one record, about
// inferSampleBytes) of an artifact too large to be a single document.
func (a *Artifact) sampleLines(ctx context.Context) error {
	rc, err := a.Reader().Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	seen := 0
	err = eachLine(ctx, rc, a.kind.maxRecordBytes(), func(line []byte, n int) (bool, error) {
		if ok, err := validLine(line, n); err != nil {
			return false, err
		} else if !ok {
			return false, ErrTooLarge.With(nil, "jsonartifact: content is above the %d-byte single-document limit (Kind.MaxDocumentBytes) and is not json lines (line %d is not json)", a.kind.maxDocumentBytes(), n)
		}
		seen += len(line)
		return seen < inferSampleBytes, nil
	})
	return err
}
