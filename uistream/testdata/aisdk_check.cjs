// Checks UI message streams the Go handler produced with the `ai` package's
// own client code: every chunk must pass uiMessageChunkSchema and carry no
// field the protocol does not define, the streams must end with [DONE], and
// readUIMessageStream must build a message validateUIMessages accepts.
//
// usage: node aisdk_check.cjs <approve|deny|none|error> <stream file>...
// The streams continue one assistant message, as useChat does after an
// approval. With approve/deny, the approval requests left open are answered
// after each stream the way addToolApprovalResponse does. With error, the
// errors the client reports are collected rather than ending the check.
// Prints {"message": ..., "errors": [...]} as JSON.
const { readFileSync } = require('node:fs');
const { readUIMessageStream, uiMessageChunkSchema, validateUIMessages } = require('ai');

async function main() {
// The fields each chunk type defines (protocol v1); anything else is an
// extra field a strict client rejects.
const common = ['type'];
const fields = {
  'start': ['messageId', 'messageMetadata'],
  'start-step': [], 'finish-step': [],
  'finish': ['finishReason', 'messageMetadata'],
  'abort': ['reason'],
  'error': ['errorText'],
  'text-start': ['id', 'providerMetadata'], 'text-delta': ['id', 'delta', 'providerMetadata'], 'text-end': ['id', 'providerMetadata'],
  'reasoning-start': ['id', 'providerMetadata'], 'reasoning-delta': ['id', 'delta', 'providerMetadata'], 'reasoning-end': ['id', 'providerMetadata'],
  'tool-input-start': ['toolCallId', 'toolName'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': ['toolCallId', 'toolName', 'input'],
  'tool-approval-request': ['approvalId', 'toolCallId'],
  'tool-output-available': ['toolCallId', 'output'],
  'tool-output-error': ['toolCallId', 'errorText'],
  'tool-output-denied': ['toolCallId'],
};

function parseSSE(text, file) {
  const data = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
    const payload = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    for (const l of lines) {
      if (!l.startsWith('data: ') && !l.startsWith('id: ')) throw new Error(`${file}: unexpected SSE line ${JSON.stringify(l)}`);
    }
    if (payload.length > 1) throw new Error(`${file}: one data line per event expected`);
    if (payload.length === 1) data.push(payload[0]);
  }
  if (data.at(-1) !== '[DONE]') throw new Error(`${file}: the stream does not end with [DONE]`);
  return data.slice(0, -1).map((d) => JSON.parse(d));
}

const [mode, ...files] = process.argv.slice(2);
const schema = uiMessageChunkSchema();
let message;
const errors = [];
for (const file of files) {
  const chunks = parseSSE(readFileSync(file, 'utf8'), file);
  for (const c of chunks) {
    const res = await schema.validate(c);
    if (!res.success) throw new Error(`${file}: invalid chunk ${JSON.stringify(c)}: ${res.error}`);
    const allowed = c.type.startsWith('data-') ? ['id', 'data', 'transient'] : fields[c.type];
    if (!allowed) throw new Error(`${file}: chunk type ${c.type} is not one the kit may send`);
    for (const k of Object.keys(c)) {
      if (!common.includes(k) && !allowed.includes(k)) throw new Error(`${file}: extra field ${k} in ${JSON.stringify(c)}`);
    }
  }
  const stream = new ReadableStream({ start(ctrl) { for (const c of chunks) ctrl.enqueue(c); ctrl.close(); } });
  for await (const m of readUIMessageStream({ message, stream, terminateOnError: mode !== 'error', onError: (e) => errors.push(String(e.message || e)) })) message = m;
  if (mode === 'approve' || mode === 'deny') {
    for (const p of message.parts) {
      if (p.state === 'approval-requested') {
        p.state = 'approval-responded';
        p.approval = { ...p.approval, approved: mode === 'approve' };
      }
    }
  }
}
await validateUIMessages({ messages: [message] });
process.stdout.write(JSON.stringify({ message, errors }));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
