// A chat page on the Vercel AI SDK UI message stream, in plain JavaScript:
// it posts the conversation to /api/chat and renders the SSE chunks as they
// arrive. Every text from the server is set with textContent, never parsed
// as HTML, so tool output shows as text whatever it contains.
'use strict';

const api = 'api/chat';
const $ = (sel, root = document) => root.querySelector(sel);
const messagesEl = $('#messages');
const history = []; // {id, role, parts: [{type: 'text', text}]}
let current = null; // the assistant message being streamed: {el, parts: Map, text: string}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setState(state, label) {
  document.body.dataset.state = state;
  $('#status').textContent = label;
  $('#send').disabled = state === 'streaming';
}

function scroll() { messagesEl.scrollTop = messagesEl.scrollHeight; }

// card returns the tool card of a call, creating it on first sight.
function card(id, tool) {
  let c = current.el.querySelector(`.tool-card[data-call-id="${CSS.escape(id)}"]`);
  if (c) return c;
  c = el('div', 'tool-card');
  c.dataset.callId = id;
  c.dataset.tool = tool || '';
  const head = el('div', 'head');
  head.append(el('span', 'name', tool || 'tool'), el('span', 'status', 'running'));
  c.append(head, el('pre', 'args'), el('pre', 'result'));
  c.dataset.status = 'running';
  current.el.append(c);
  return c;
}

function setStatus(c, status, label) {
  c.dataset.status = status;
  $('.status', c).textContent = label || status;
}

function handle(chunk) {
  const parts = current.parts;
  switch (chunk.type) {
    case 'reasoning-start': {
      const d = el('details', 'thought');
      d.append(el('summary', '', 'Thoughts'), el('div', 'body'));
      parts.set('r' + chunk.id, d);
      current.el.append(d);
      break;
    }
    case 'reasoning-delta':
      $('.body', parts.get('r' + chunk.id)).textContent += chunk.delta;
      break;
    case 'text-start': {
      const t = el('div', 'text');
      parts.set('t' + chunk.id, t);
      current.el.append(t);
      break;
    }
    case 'text-delta':
      parts.get('t' + chunk.id).textContent += chunk.delta;
      current.text += chunk.delta;
      break;
    case 'tool-input-start':
      card(chunk.toolCallId, chunk.toolName);
      break;
    case 'tool-input-available':
      $('.args', card(chunk.toolCallId, chunk.toolName)).textContent = JSON.stringify(chunk.input);
      break;
    case 'tool-output-available': {
      const c = card(chunk.toolCallId);
      const out = chunk.output || {};
      setStatus(c, 'done');
      let text = out.text || '';
      if (out.kind === 'handle') { text = out.handle; c.classList.add('handle'); }
      if (out.kind === 'media') text = (out.media || []).map((m) => `[${m.kind} ${m.mimeType} ${m.filename}]`).join('\n');
      $('.result', c).textContent = text;
      break;
    }
    case 'tool-output-error': {
      const c = card(chunk.toolCallId);
      setStatus(c, 'error');
      $('.result', c).textContent = chunk.errorText;
      break;
    }
    case 'tool-output-denied':
      setStatus(card(chunk.toolCallId), 'denied');
      break;
    case 'tool-approval-request':
      askApproval(card(chunk.toolCallId), chunk.approvalId);
      break;
    case 'data-loop-guard':
      current.el.append(el('div', 'warning loop-guard', 'Loop guard: ' + chunk.data.message));
      break;
    case 'data-warning':
      current.el.append(el('div', 'warning', 'Warning: ' + chunk.data.message));
      break;
    case 'error':
      current.el.append(el('div', 'error', chunk.errorText));
      break;
    case 'abort':
      current.el.append(el('div', 'error', 'Cancelled: ' + (chunk.reason || '')));
      break;
  }
  scroll();
}

function askApproval(c, approvalId) {
  setStatus(c, 'awaiting-approval', 'awaiting approval');
  const box = el('div', 'approval');
  const yes = el('button', 'approve', 'Approve');
  const no = el('button', 'deny', 'Deny');
  yes.type = no.type = 'button';
  const answer = (approved) => {
    box.remove();
    setStatus(c, approved ? 'running' : 'denied', approved ? 'approved' : 'denied');
    // The follow-up request carries the answer; the server streams the
    // rest of the same turn.
    stream({
      messages: [...history, {
        id: current.id, role: 'assistant',
        parts: [{ type: 'tool-' + c.dataset.tool, toolCallId: c.dataset.callId, state: 'approval-responded', approval: { id: approvalId, approved } }],
      }],
    });
  };
  yes.addEventListener('click', () => answer(true));
  no.addEventListener('click', () => answer(false));
  box.append(yes, no);
  c.append(box);
  setState('approval', 'waiting for your approval');
}

// stream posts body and renders the response's chunks as they come.
async function stream(body) {
  setState('streaming', 'streaming…');
  let approval = false;
  try {
    const res = await fetch(api, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(await res.text());
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const event = buf.slice(0, i);
        buf = buf.slice(i + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const data = line.slice(6);
          if (data === '[DONE]') continue;
          const chunk = JSON.parse(data);
          if (chunk.type === 'tool-approval-request') approval = true;
          handle(chunk);
        }
      }
    }
  } catch (err) {
    current.el.append(el('div', 'error', String(err.message || err)));
  }
  if (!approval) {
    history.push({ id: current.id, role: 'assistant', parts: [{ type: 'text', text: current.text }] });
    setState('idle', 'done');
  }
}

$('#composer').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('#prompt').value.trim();
  if (!text || document.body.dataset.state === 'streaming') return;
  $('#prompt').value = '';
  const user = { id: 'u' + (history.length + 1), role: 'user', parts: [{ type: 'text', text }] };
  history.push(user);
  messagesEl.append(el('div', 'msg user', text));
  const a = el('div', 'msg assistant');
  messagesEl.append(a);
  current = { id: 'a' + history.length, el: a, parts: new Map(), text: '' };
  stream({ id: 'webui', messages: history });
});
