package uistream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/turnrunner"
)

// benchEvents is one turn as the runner emits it: three iterations, each
// with streamed thoughts and text (short deltas, Full growing as it does),
// two tool calls announced, executed and completed, and the telemetry
// around them.
func benchEvents() []turnrunner.Event {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	evs := []turnrunner.Event{turnrunner.TurnStart{TurnID: "t", StartedAt: t0}, turnrunner.DispatchStart{TurnID: "t", DispatchID: "d", StartedAt: t0}}
	for it := 1; it <= 3; it++ {
		evs = append(evs, turnrunner.IterationStart{DispatchID: "d", Iteration: it, StartedAt: t0})
		var full strings.Builder
		for i := range 20 {
			d := fmt.Sprintf("thought %d ", i)
			full.WriteString(d)
			evs = append(evs, turnrunner.ThoughtDelta{ID: "th", Delta: d, Full: full.String(), CreatedAt: t0})
		}
		evs = append(evs, turnrunner.ThoughtDelta{ID: "th", Full: full.String(), IsComplete: true, CreatedAt: t0, CompletedAt: t0})
		full.Reset()
		for i := range 100 {
			d := fmt.Sprintf("w%d <b> ", i)
			full.WriteString(d)
			evs = append(evs, turnrunner.MessageDelta{ID: "m", Delta: d, Full: full.String(), CreatedAt: t0})
		}
		evs = append(evs, turnrunner.MessageDelta{ID: "m", Full: full.String(), IsComplete: true, CreatedAt: t0, CompletedAt: t0},
			turnrunner.GenerationStats{DispatchID: "d", Iteration: it, StopReason: "tool_use", Duration: time.Second})
		for c := range 2 {
			id := fmt.Sprintf("c%d-%d", it, c)
			args := json.RawMessage(`{"query":"orders of last week","limit":50}`)
			evs = append(evs,
				turnrunner.ToolCallContent{ID: id, Tool: "search", Args: args, Checksum: strings.Repeat("ab", 32), CreatedAt: t0, UpdatedAt: t0},
				turnrunner.ToolExecutionStart{TurnID: "t", DispatchID: "d", ToolName: "search", ToolCallID: "c1", Checksum: id, Args: map[string]any{"query": "orders of last week", "limit": 50}, StartedAt: t0},
				turnrunner.ToolExecutionEnd{TurnID: "t", DispatchID: "d", ToolName: "search", ToolCallID: "c1", Checksum: id, StartedAt: t0, EndedAt: t0},
				turnrunner.ToolCallContent{ID: id, Tool: "search", Args: args, Checksum: strings.Repeat("ab", 32), IsComplete: true,
					Results:   forge.TextResults(forge.NewTokenizable(strings.Repeat("order 1234: shipped <ok>\n", 8))),
					CreatedAt: t0, UpdatedAt: t0, CompletedAt: t0})
		}
		evs = append(evs, turnrunner.IterationEnd{DispatchID: "d", Iteration: it, StartedAt: t0, EndedAt: t0})
	}
	return append(evs, turnrunner.DispatchEnd{TurnID: "t", DispatchID: "d", Status: turnrunner.TurnCompleted, Iterations: 3, StartedAt: t0, EndedAt: t0},
		turnrunner.TurnEnd{TurnID: "t", Status: turnrunner.TurnCompleted, StartedAt: t0, EndedAt: t0})
}

// Method-less copies of the event types: encoding/json's reflective
// encoding of the bare structs, without the wire form's MarshalJSON.
type (
	bareTurnStart       turnrunner.TurnStart
	bareTurnEnd         turnrunner.TurnEnd
	bareDispatchStart   turnrunner.DispatchStart
	bareDispatchEnd     turnrunner.DispatchEnd
	bareIterationStart  turnrunner.IterationStart
	bareIterationEnd    turnrunner.IterationEnd
	bareThoughtDelta    turnrunner.ThoughtDelta
	bareMessageDelta    turnrunner.MessageDelta
	bareToolCallContent turnrunner.ToolCallContent
	bareExecStart       turnrunner.ToolExecutionStart
	bareExecEnd         turnrunner.ToolExecutionEnd
	bareStats           turnrunner.GenerationStats
)

func bare(ev turnrunner.Event) any {
	switch e := ev.(type) {
	case turnrunner.TurnStart:
		return bareTurnStart(e)
	case turnrunner.TurnEnd:
		return bareTurnEnd(e)
	case turnrunner.DispatchStart:
		return bareDispatchStart(e)
	case turnrunner.DispatchEnd:
		return bareDispatchEnd(e)
	case turnrunner.IterationStart:
		return bareIterationStart(e)
	case turnrunner.IterationEnd:
		return bareIterationEnd(e)
	case turnrunner.ThoughtDelta:
		return bareThoughtDelta(e)
	case turnrunner.MessageDelta:
		return bareMessageDelta(e)
	case turnrunner.ToolCallContent:
		return bareToolCallContent(e)
	case turnrunner.ToolExecutionStart:
		return bareExecStart(e)
	case turnrunner.ToolExecutionEnd:
		return bareExecEnd(e)
	case turnrunner.GenerationStats:
		return bareStats(e)
	}
	panic(fmt.Sprintf("bare: %T", ev))
}

// plain marshals every event's bare struct with encoding/json and writes
// it as an SSE data line: the yardstick (what a handler written with
// json.Marshal alone pays).
func plain(evs []turnrunner.Event, w io.Writer) {
	for _, ev := range evs {
		b, _ := json.Marshal(bare(ev))
		_, _ = w.Write([]byte("data: "))
		_, _ = w.Write(b)
		_, _ = w.Write([]byte("\n\n"))
	}
}

// wireForm writes every event's wire form (turnrunner.MarshalEvent).
func wireForm(evs []turnrunner.Event, w io.Writer) {
	for _, ev := range evs {
		b, _ := turnrunner.MarshalEvent(context.Background(), ev)
		_, _ = w.Write([]byte("data: "))
		_, _ = w.Write(b)
		_, _ = w.Write([]byte("\n\n"))
	}
}

// encode runs the events through a protocol's encoder and SSE framing
// (sequence ids, replay buffer) as a handler does, writing to w.
func encode(p protocol, evs []turnrunner.Event, w io.Writer) {
	t := &turn{id: "3f2504e0-4f89-11d3-9a0c-0305e82c3301"}
	t.enc = p.encoder(t.id, request{thread: "th", run: "r"})
	emit := func(b []byte) { _, _ = w.Write(t.record(b, 1024)) }
	t.enc.open(emit, request{}, false)
	for _, ev := range evs {
		t.enc.event(emit, ev)
	}
	emitDone(t, emit)
}

// withoutFull is evs with the cumulative Full text of the deltas cleared:
// a stricter yardstick carrying only what the protocols send.
func withoutFull(evs []turnrunner.Event) []turnrunner.Event {
	out := slices.Clone(evs)
	for i, ev := range out {
		switch e := ev.(type) {
		case turnrunner.MessageDelta:
			e.Full = ""
			out[i] = e
		case turnrunner.ThoughtDelta:
			e.Full = ""
			out[i] = e
		}
	}
	return out
}

func BenchmarkEncoders(b *testing.B) {
	evs := benchEvents()
	deltas := withoutFull(evs)
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"plain-json", func() { plain(evs, io.Discard) }},
		{"plain-json-no-full", func() { plain(deltas, io.Discard) }},
		{"wire-form", func() { wireForm(evs, io.Discard) }},
		{"aisdk", func() { encode(aiSDK{}, evs, io.Discard) }},
		{"agui", func() { encode(agUI{}, evs, io.Discard) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.run()
			}
			b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkEncoderRatio alternates rounds of the yardsticks and both
// encoders over the same events and reports the median time of each
// encoder as a multiple of each yardstick's (the target is under 1.5).
func BenchmarkEncoderRatio(b *testing.B) {
	evs := benchEvents()
	deltas := withoutFull(evs)
	var plainT, deltaT, aiT, agT []float64
	timed := func(f func()) float64 {
		start := time.Now()
		for range 20 {
			f()
		}
		return float64(time.Since(start))
	}
	for b.Loop() {
		plainT = append(plainT, timed(func() { plain(evs, io.Discard) }))
		deltaT = append(deltaT, timed(func() { plain(deltas, io.Discard) }))
		aiT = append(aiT, timed(func() { encode(aiSDK{}, evs, io.Discard) }))
		agT = append(agT, timed(func() { encode(agUI{}, evs, io.Discard) }))
	}
	median := func(x []float64) float64 {
		x = slices.Clone(x)
		slices.Sort(x)
		return x[len(x)/2]
	}
	p := median(plainT)
	b.ReportMetric(median(aiT)/p, "aisdk/plain")
	b.ReportMetric(median(agT)/p, "agui/plain")
	d := median(deltaT)
	b.ReportMetric(median(aiT)/d, "aisdk/plain-no-full")
	b.ReportMetric(median(agT)/d, "agui/plain-no-full")
	b.ReportMetric(float64(len(evs))*20/(p/1e9), "plain-events/s")
	b.ReportMetric(float64(len(evs))*20/(median(aiT)/1e9), "aisdk-events/s")
	b.ReportMetric(float64(len(evs))*20/(median(agT)/1e9), "agui-events/s")
}
