package spooledartifact

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/ebbforge/adk/forge"
)

// tokenChunkBytes is the size above which EstimateTokens counts in chunks.
// Up to it the count is exact (one call to the estimator over the whole
// content). Above it the content is cut after a '\n' near every
// tokenChunkBytes and the chunk counts are summed: a BPE merge never spans a
// chunk boundary, which can change the total by about one token per cut
// (well under 0.1% for 4 MiB chunks) in exchange for bounded memory.
const tokenChunkBytes = 4 << 20

// EstimateTokens estimates the tokens of the whole content under enc with
// forge's built-in estimators. Content over 4 MiB is counted in chunks cut
// after a '\n' and summed, in bounded memory; a BPE merge never spans a
// cut, which can change the total by about one token per 4 MiB.
func (a *Artifact) EstimateTokens(ctx context.Context, enc forge.Encoding) (int, error) {
	return a.EstimateTokensWith(ctx, nil, enc)
}

// EstimateTokensWith is EstimateTokens with custom estimators layered over
// the built-ins; est may be nil.
func (a *Artifact) EstimateTokensWith(ctx context.Context, est *forge.Estimators, enc forge.Encoding) (int, error) {
	count := func(s string) (int, error) { return est.Estimate(s, enc) } // a nil est counts with the built-ins
	return estimateStream(ctx, a.r, count)
}

func estimateStream(ctx context.Context, r Reader, count func(string) (int, error)) (int, error) {
	rc, err := r.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	// One byte over tokenChunkBytes: io.ReadFull reports no EOF when it
	// fills the buffer exactly, so only a full buffer proves the content
	// longer than a chunk, and content of exactly tokenChunkBytes is
	// counted whole.
	buf := make([]byte, tokenChunkBytes+1)
	carry := 0
	total := 0
	for {
		n, rerr := io.ReadFull(ctxReader{ctx, rc}, buf[carry:])
		end := carry + n
		eof := errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF)
		if rerr != nil && !eof {
			return 0, rerr
		}
		cut := end // at EOF, end <= tokenChunkBytes
		if !eof {
			// The buffer is full: cut the chunk within its first
			// tokenChunkBytes, after the last '\n'; with none, anywhere
			// but inside a UTF-8 sequence.
			chunk := buf[:tokenChunkBytes]
			if q := bytes.LastIndexByte(chunk, '\n'); q >= 0 {
				cut = q + 1
			} else {
				cut = utf8Cut(chunk)
			}
			if cut == 0 { // no safe cut: count the whole chunk
				cut = tokenChunkBytes
			}
		}
		if cut > 0 || eof {
			c, err := count(string(buf[:cut]))
			if err != nil {
				return 0, err
			}
			total += c
		}
		if eof {
			return total, nil
		}
		carry = copy(buf, buf[cut:end])
	}
}

// utf8Cut returns a cut point in b that does not split a UTF-8 sequence.
func utf8Cut(b []byte) int {
	for i := len(b); i > 0 && i > len(b)-4; i-- {
		if c := b[i-1]; c < 0x80 {
			return i
		} else if c >= 0xC0 { // a lead byte: cut before it
			return i - 1
		}
	}
	return len(b)
}
