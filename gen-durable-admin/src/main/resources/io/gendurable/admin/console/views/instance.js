// The instance view: its facts, state, family, waits, inbox and step history, and its actions.

import {append, h, replace} from '../dom.js';
import {STATUSES, ago, fmtInstant, fmtSeconds, json, statusBadge} from '../format.js';
import {ApiError, api, me} from '../api.js';
import {confirmAction, field} from '../dialog.js';

export function instanceView(main, arg) {
  const id = arg;
  const root = h('div', {id: 'instance'});
  append(main, root);
  let shown = null;  // the answer on screen: an unchanged one is not redrawn (no flicker, focus kept)
  return {
    async update() {
      let d;
      try {
        d = await api('instances/' + encodeURIComponent(id));
      } catch (e) {
        replace(root, h('div', {class: 'view-head'}, h('h1', {}, 'Instance ' + id)), h('p', {class: 'error', role: 'alert', id: 'view-error'}, e.message));
        return;
      }
      const key = JSON.stringify(d);
      if (key !== shown) {
        shown = key;
        renderInstance(root, d);
      }
    }
  };
}

function renderInstance(root, d) {
  const i = d.instance;
  const fact = (label, value, cls) => h('div', {class: cls || null}, h('dt', {}, label), h('dd', {}, value === null || value === undefined || value === '' ? '—' : value));
  const actions = me().admin ? h('div', {class: 'actions', id: 'instance-actions', role: 'group', 'aria-label': 'Actions'},
    h('button', {type: 'button', id: 'action-retry', onclick: () => retryDialog(d)}, 'Retry…'),
    h('button', {type: 'button', id: 'action-run-now', onclick: () => runNowDialog(i)}, 'Run now…'),
    h('button', {type: 'button', id: 'action-signal', onclick: () => signalDialog(i)}, 'Send signal…'),
    h('button', {type: 'button', id: 'action-cancel', class: 'danger', onclick: () => cancelDialog(i)}, 'Cancel…')) : null;
  const childLinks = STATUSES.filter(st => (d.children || {})[st]).map(st =>
    h('a', {href: '#/search?' + new URLSearchParams({parentId: i.id, status: st}), class: 'child-count', 'data-status': st},
      statusBadge(st), ' ', String(d.children[st])));
  const sections = [
    h('div', {class: 'view-head'},
      h('h1', {}, 'Instance ', h('span', {id: 'instance-id'}, String(i.id))),
      h('span', {id: 'instance-status'}, statusBadge(i.status)),
      h('span', {class: 'spacer'}), actions),
    h('section', {class: 'card', 'aria-labelledby': 'h-overview'},
      h('h2', {id: 'h-overview'}, 'Overview'),
      h('dl', {class: 'facts wide'},
        fact('FSM', [i.fsm, h('span', {class: 'muted'}, ' version ' + i.fsmVersion)]),
        fact('Step', h('span', {id: 'instance-step'}, i.step)),
        fact('Attempt', h('span', {id: 'instance-attempt'}, String(i.attempt))),
        fact('Queue', h('a', {href: '#/search?' + new URLSearchParams({queue: i.queue})}, i.queue)),
        fact('Priority', String(i.priority)),
        fact('Correlation key', i.correlationKey ? h('a', {href: '#/search?' + new URLSearchParams({correlationKey: i.correlationKey})}, i.correlationKey) : null),
        fact('Concurrency key', i.concurrencyKey),
        fact('Eligible at', i.eligibleAt ? [fmtInstant(i.eligibleAt), h('span', {class: 'muted'}, ' (' + ago(i.eligibleAt) + ')')] : null),
        i.awaits && i.awaits.length ? fact('Awaits', [i.awaits.join(', '), i.awaitDeadline ? h('span', {class: 'muted'}, ' until ' + fmtInstant(i.awaitDeadline)) : '']) : null,
        d.claim ? fact('Claimed by', [d.claim.worker, h('span', {class: 'muted'}, ' lease until ' + fmtInstant(d.claim.leaseExpiresAt))]) : null,
        fact('Inserted', fmtInstant(i.insertedAt)),
        fact('Updated', [fmtInstant(i.updatedAt), h('span', {class: 'muted'}, ' (' + ago(i.updatedAt) + ')')]))),
    i.lastError ? h('section', {class: 'card error-card', 'aria-labelledby': 'h-error'},
      h('h2', {id: 'h-error'}, i.status === 'FAILED' ? 'Error' : i.status === 'CANCELLED' ? 'Reason' : 'Last error'),
      h('pre', {id: 'instance-error', class: 'stack', tabindex: 0}, i.lastError)) : null,
    h('div', {class: 'two'},
      h('section', {class: 'card', 'aria-labelledby': 'h-state'}, h('h2', {id: 'h-state'}, 'State'),
        h('pre', {id: 'instance-state', class: 'json', tabindex: 0}, json(i.state))),
      h('section', {class: 'card', 'aria-labelledby': 'h-result'}, h('h2', {id: 'h-result'}, 'Result'),
        h('pre', {id: 'instance-result', class: 'json', tabindex: 0}, json(i.result)))),
    h('div', {class: 'two'},
      h('section', {class: 'card', 'aria-labelledby': 'h-family'}, h('h2', {id: 'h-family'}, 'Parent and children'),
        h('dl', {class: 'facts'},
          fact('Parent', d.parent ? [h('a', {href: '#/instance/' + d.parent.id, id: 'parent-link'}, d.parent.fsm + ' ' + d.parent.id), ' ', statusBadge(d.parent.status)]
            : i.parentId ? h('a', {href: '#/instance/' + i.parentId}, String(i.parentId)) : null),
          fact('Children', d.childrenTotal ? [h('a', {href: '#/search?' + new URLSearchParams({parentId: i.id}), id: 'children-link'}, d.childrenTotal + ' in all'),
            i.childrenPending ? h('span', {class: 'muted'}, ', ' + i.childrenPending + ' pending') : ''] : '0'),
          childLinks.length ? h('div', {class: 'child-counts'}, childLinks) : null)),
      h('section', {class: 'card', 'aria-labelledby': 'h-waits'}, h('h2', {id: 'h-waits'}, 'Gate and rate limit'),
        !d.gate && !d.rateLimit ? h('p', {class: 'muted'}, 'Waits on no gate and no rate limit.') : null,
        d.gate ? h('dl', {class: 'facts', id: 'gate'},
          fact('Gate', d.gate.name + ' (' + d.gate.concurrencyKey + ')'),
          fact('In use', d.gate.configured ? `${d.gate.executing} of ${d.gate.limit} (${d.gate.available} free)` : h('span', {class: 'bad'}, 'not configured on this node'))) : null,
        d.rateLimit ? h('dl', {class: 'facts', id: 'rate-limit'},
          fact('Rate limit', d.rateLimit.name + ' (' + d.rateLimit.key + ')'),
          fact('Tokens', d.rateLimit.configured ? `${Number(d.rateLimit.available).toFixed(1)} of ${d.rateLimit.burst} (${d.rateLimit.perSecond}/s), weight ${d.rateLimit.weight}` : h('span', {class: 'bad'}, 'not configured on this node'))) : null)),
    h('section', {class: 'card', 'aria-labelledby': 'h-inbox'},
      h('h2', {id: 'h-inbox'}, 'Pending inbox ', h('span', {class: 'muted', id: 'inbox-count'}, '(' + d.pendingSignalCount + ')')),
      d.pendingSignals.length ? h('div', {class: 'table-wrap'}, h('table', {id: 'inbox'},
        h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Signal'), h('th', {scope: 'col'}, 'Payload'), h('th', {scope: 'col'}, 'Dedup key'), h('th', {scope: 'col'}, 'Delivered'))),
        h('tbody', {}, d.pendingSignals.map(p => h('tr', {},
          h('td', {}, p.name), h('td', {}, h('code', {}, JSON.stringify(p.payload))), h('td', {}, p.dedupKey || '—'), h('td', {}, fmtInstant(p.insertedAt)))))))
        : h('p', {class: 'muted'}, 'No pending signal.')),
    h('section', {class: 'card', 'aria-labelledby': 'h-history'}, h('h2', {id: 'h-history'}, 'Step history'), timeline(d.history || []))
  ];
  replace(root, sections);
}

function timeline(history) {
  if (!history.length) {
    return h('p', {class: 'muted'}, 'No step recorded (the step history is off for this FSM: gendurable.history.enabled or @DurableFsm(history = true)).');
  }
  const t0 = Math.min(...history.map(r => new Date(r.startedAt).getTime()));
  const t1 = Math.max(...history.map(r => new Date(r.finishedAt || r.startedAt).getTime()));
  const span = Math.max(t1 - t0, 1);
  return h('ol', {class: 'timeline', id: 'history'}, history.map(r => {
    const start = new Date(r.startedAt).getTime(), end = new Date(r.finishedAt || r.startedAt).getTime();
    const bar = h('span', {class: 'tl-bar' + (r.error ? ' failed' : '')});
    bar.style.marginLeft = (100 * (start - t0) / span).toFixed(2) + '%';
    bar.style.width = Math.max(100 * (end - start) / span, 0.8).toFixed(2) + '%';
    return h('li', {class: r.error ? 'failed' : ''},
      h('div', {class: 'tl-head'},
        h('strong', {}, r.step), h('span', {class: 'muted'}, ' attempt ' + r.attempt), ' → ',
        h('span', {class: 'outcome'}, r.outcome),
        h('span', {class: 'muted tl-meta'}, fmtInstant(r.startedAt) + ' · ' + fmtSeconds((end - start) / 1000) + (r.node ? ' · ' + r.node : ''))),
      h('div', {class: 'tl-track', 'aria-hidden': 'true'}, bar),
      r.error ? h('pre', {class: 'stack small'}, r.error) : null);
  }));
}

function instanceDone(verb) {
  return i => `${verb}: instance ${i.id} is ${i.status} at step ${i.step}.`;
}

function cancelDialog(i) {
  const reason = h('input', {maxlength: 1000, placeholder: 'cancelled by an operator'});
  const desc = h('input', {type: 'checkbox'});
  confirmAction('Cancel instance ' + i.id, [
    h('p', {}, 'It ends CANCELLED with the reason as its last error; a step running for it commits nothing.'),
    field('cancel-reason', 'Reason', reason),
    h('label', {class: 'check'}, desc, ' Also cancel its live descendants')], 'Cancel instance', async () => {
    const body = {};
    if (reason.value.trim()) body.reason = reason.value.trim();
    if (desc.checked) body.withDescendants = true;
    const r = await api('instances/' + i.id + '/cancel', {method: 'POST', body: JSON.stringify(body)});
    return instanceDone('Cancelled')(r.instance) + (r.childrenCancelled ? ` ${r.childrenCancelled} descendants cancelled.` : '');
  });
  desc.id = 'cancel-descendants';
}

function retryDialog(d) {
  const i = d.instance;
  const steps = [...new Set((d.history || []).map(r => r.step).concat([i.step]))];
  const from = h('input', {list: 'retry-steps', placeholder: i.step, autocomplete: 'off'});
  confirmAction('Retry instance ' + i.id, [
    h('p', {}, 'Runnable again, due now, attempts from 1, with its state.'),
    field('retry-from', 'From step', from, 'Empty: the step it ended in (' + i.step + ').'),
    h('datalist', {id: 'retry-steps'}, steps.map(st => h('option', {value: st})))], 'Retry', async () => {
    const body = from.value.trim() ? {fromStep: from.value.trim()} : {};
    return instanceDone('Retried')(await api('instances/' + i.id + '/retry', {method: 'POST', body: JSON.stringify(body)}));
  });
}

function runNowDialog(i) {
  confirmAction('Run instance ' + i.id + ' now', h('p', {}, 'A runnable instance becomes due now (its backoff or schedule is skipped).'),
    'Run now', async () => instanceDone('Due now')(await api('instances/' + i.id + '/run-now', {method: 'POST'})));
}

function signalDialog(i) {
  const name = h('input', {required: true, placeholder: (i.awaits && i.awaits[0]) || 'payment_settled', maxlength: 200});
  if (i.awaits && i.awaits.length) name.value = i.awaits[0];
  const payload = h('textarea', {rows: 5, spellcheck: 'false', placeholder: '{"ref": "psp-981"}'});
  const dedup = h('input', {maxlength: 200});
  confirmAction('Send a signal to instance ' + i.id, [
    field('signal-name', 'Signal name', name),
    field('signal-payload', 'Payload (JSON, optional)', payload, 'Sent as typed; the API checks it.'),
    field('signal-dedup', 'Dedup key (optional)', dedup)], 'Send signal', async () => {
    // the payload goes into the body as typed, so that the API (not the page) judges it
    let body = '{"id":' + i.id + ',"name":' + JSON.stringify(name.value.trim());
    if (payload.value.trim()) body += ',"payload":' + payload.value.trim();
    if (dedup.value.trim()) body += ',"dedupKey":' + JSON.stringify(dedup.value.trim());
    body += '}';
    const r = await api('signals', {method: 'POST', body});
    if (r.result === 'NO_TARGET') throw new ApiError(200, {detail: 'NO_TARGET: the instance is no longer live; nothing was delivered.'});
    return 'Signal ' + name.value.trim() + ': ' + r.result + '.';
  });
}
