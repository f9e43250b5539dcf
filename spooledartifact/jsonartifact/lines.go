package jsonartifact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// scanBufferSize is the initial line buffer; it grows for longer lines, up
// to Kind.MaxRecordBytes.
const scanBufferSize = 256 << 10

// eachLine calls fn for every non-empty (after trimming whitespace, and a
// byte order mark from line 0) line of r, in order, with its 0-based line number; line is only valid during the
// call, and fn returns false to stop. A line longer than max bytes (not
// counting its "\r\n" or "\n") is ErrTooLarge.
//
// Why not the core's Artifact.EachLine (LineRanger): it assembles a line
// whatever its length before fn can check it, so one long line costs its
// whole size in memory, several times over while it grows. BenchmarkLines
// on a 256 MiB DiskStore artifact (2 shared cores; JSONL_BENCH_BYTES=268435456
// go test -run XXX -bench BenchmarkLines -benchtime 3x): JSON Lines of
// 110-byte records scan at the same speed either way (1.5-2.0 GB/s; 0.25 MiB
// allocated here, 16 KiB by EachLine), but one 256 MiB line allocates
// 1527 MiB through EachLine (0.15-0.26 GB/s) and 192 MiB here, refused at
// the default 64 MiB MaxRecordBytes; a 1 GiB minified JSON document spooled
// to disk would cost gigabytes. bufio.Scanner caps its buffer at max, so
// memory stays bounded by MaxRecordBytes whatever the input. Switch to the
// core once its line iteration can refuse long lines without assembling
// them.
func eachLine(ctx context.Context, r io.Reader, max int, fn func(line []byte, lineNo int) (bool, error)) error {
	sc := bufio.NewScanner(r)
	// +2: the buffer holds a line of max bytes and its "\r\n"; ScanLines
	// drops both, so len(line) > max below catches a line one byte over.
	sc.Buffer(make([]byte, min(scanBufferSize, max+2)), max+2)
	n := 0
	first := true  // no record yet: a byte order mark may still lead one
	unchecked := 0 // bytes read since ctx was last checked
	for ; sc.Scan(); n++ {
		// ctx is checked every 1024 lines, and before any line once a
		// MiB was read since the last check: large records are parsed
		// and searched one by one, and a query stops soon after ctx ends.
		if n&1023 == 0 || unchecked >= 1<<20 {
			unchecked = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line := sc.Bytes()
		unchecked += len(line)
		if len(line) > max {
			return tooLong(n, max)
		}
		if first {
			line = trimBOM(line)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		first = false
		if more, err := fn(line, n); err != nil || !more {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return tooLong(n, max)
		}
		return err
	}
	return nil
}

func tooLong(line, max int) error {
	return ErrTooLarge.With(nil, "jsonartifact: line %d exceeds %d bytes (Kind.MaxRecordBytes)", line, max)
}
