// Checks AG-UI event streams the Go handler produced with @ag-ui/core's own
// schemas: every SSE data line must parse as one of EventSchemas, the run
// must open with RUN_STARTED and end with RUN_FINISHED or RUN_ERROR, and
// every message, reasoning and tool call opened must be closed. The request
// bodies given with --input must pass RunAgentInputSchema.
//
// usage: node agui_check.cjs [--input body.json]... <stream file>...
// Prints {"events": [[...types of each stream...]], "finals": [last event of each]}.
const { readFileSync } = require('node:fs');
const { EventSchemas, RunAgentInputSchema } = require('@ag-ui/core/schemas');

async function main() {
const args = process.argv.slice(2);
const streams = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--input') {
    const r = RunAgentInputSchema.safeParse(JSON.parse(readFileSync(args[++i], 'utf8')));
    if (!r.success) throw new Error(`input ${args[i]}: ${r.error}`);
  } else streams.push(args[i]);
}
const out = { events: [], finals: [] };
for (const file of streams) {
  const events = [];
  for (const block of readFileSync(file, 'utf8').split('\n\n')) {
    for (const l of block.split('\n')) {
      if (l === '' || l.startsWith(':') || l.startsWith('id: ')) continue;
      if (!l.startsWith('data: ')) throw new Error(`${file}: unexpected SSE line ${JSON.stringify(l)}`);
      const ev = JSON.parse(l.slice(6));
      const r = EventSchemas.safeParse(ev);
      if (!r.success) throw new Error(`${file}: invalid event ${JSON.stringify(ev)}: ${r.error}`);
      events.push(ev);
    }
  }
  if (events[0]?.type !== 'RUN_STARTED') throw new Error(`${file}: does not start with RUN_STARTED`);
  const last = events.at(-1);
  if (last.type !== 'RUN_FINISHED' && last.type !== 'RUN_ERROR') throw new Error(`${file}: ends with ${last.type}`);
  const open = new Map();
  for (const ev of events) {
    const pairs = { TEXT_MESSAGE_START: 'TEXT_MESSAGE_END', REASONING_MESSAGE_START: 'REASONING_MESSAGE_END', TOOL_CALL_START: 'TOOL_CALL_END', STEP_STARTED: 'STEP_FINISHED' };
    const key = ev.messageId ?? ev.toolCallId ?? ev.stepName;
    if (pairs[ev.type]) open.set(pairs[ev.type] + key, ev);
    if (Object.values(pairs).includes(ev.type)) {
      if (!open.delete(ev.type + key)) throw new Error(`${file}: ${ev.type} ${key} was never started`);
    }
  }
  for (const [k] of open) throw new Error(`${file}: ${k} never came`);
  out.events.push(events.map((e) => e.type));
  out.finals.push(last);
}
process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
