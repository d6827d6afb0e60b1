// The queues view: a card per queue with its counts, in-flight steps, charts and alerts.

import {$, append, clearError, h, replace} from '../dom.js';
import {STATUSES, durationSeconds, fmtInstant, fmtSeconds} from '../format.js';
import {api, me, nodes} from '../api.js';
import {confirmAction, field} from '../dialog.js';
import {failureChart, throughputChart} from '../charts.js';

export function queuesView(main) {
  const list = h('div', {id: 'queues', class: 'queue-grid'});
  const nodeNote = h('p', {id: 'node-note', class: 'muted', hidden: true});
  append(main, h('div', {class: 'view-head'}, h('h1', {}, 'Queues'),
    h('p', {class: 'muted', id: 'summary-at'})), nodeNote, list);
  return {
    async update() {
      const [summary, n] = await Promise.all([api('summary'), nodes()]);
      clearError();
      $('#summary-at').textContent = 'Counts at ' + fmtInstant(summary.at);
      const live = n ? n.nodes.filter(x => x.live) : [];
      nodeNote.hidden = !!(n && n.nodes.length);
      nodeNote.textContent = n ? 'No node has reported yet.' : 'No node data: this server\'s admin API has no nodes endpoint.';
      const alerts = summary.alerts || [];
      const names = new Set(summary.queues.map(q => q.queue));
      const lines = summary.queues.slice();
      for (const p of summary.paused || []) {
        if (!names.has(p.queue)) { lines.push({queue: p.queue, counts: {}, total: 0, paused: true}); names.add(p.queue); }
      }
      for (const a of alerts) {
        if (!names.has(a.queue)) { lines.push({queue: a.queue, counts: {}, total: 0, paused: false}); names.add(a.queue); }
      }
      for (const node of live) {
        for (const q of node.queues || []) {
          if (!names.has(q)) { lines.push({queue: q, counts: {}, total: 0, paused: false}); names.add(q); }
        }
      }
      lines.sort((a, b) => a.queue.localeCompare(b.queue));
      replace(list, lines.length ? lines.map(q => queueCard(q, summary, n, live, alerts.filter(a => a.queue === q.queue)))
        : h('p', {class: 'muted'}, 'No queue has instances yet.'));
    }
  };
}

function queueCard(q, summary, n, live, alerts) {
  const pause = (summary.paused || []).find(p => p.queue === q.queue);
  const counts = h('ul', {class: 'counts', 'aria-label': 'Instances of ' + q.queue + ' by status'},
    STATUSES.map(st => {
      const c = (q.counts || {})[st] || 0;
      return h('li', {class: 'count status-' + st.toLowerCase() + (c ? '' : ' zero'), 'data-status': st, 'data-count': c},
        h('a', {href: '#/search?' + new URLSearchParams({queue: q.queue, status: st}), 'aria-label': `${c} ${st} in ${q.queue}: search them`},
          h('span', {class: 'n'}, String(c)), h('span', {class: 'label'}, st.replace('_', ' ').toLowerCase())));
    }));
  const inFlight = live.map(node => ({node: node.node, count: (node.inFlight || {})[q.queue] || 0}))
    .filter(x => x.count > 0 || live.some(node => (node.queues || []).includes(q.queue) && node.node === x.node));
  const points = n ? n.nodes.flatMap(node => (node.throughput || []).filter(t => t.queue === q.queue)) : [];
  const actions = me().admin ? h('div', {class: 'actions'},
    pause
      ? h('button', {type: 'button', class: 'resume', 'aria-label': 'Resume queue ' + q.queue, onclick: () => resumeQueue(q.queue)}, 'Resume')
      : h('button', {type: 'button', class: 'pause', 'aria-label': 'Pause queue ' + q.queue, onclick: () => pauseQueue(q.queue)}, 'Pause'))
    : null;
  const age = q.oldestRunnableSince ? durationSeconds(q.oldestRunnableAge) : null;  // none due: no age
  return h('section', {class: 'card queue' + (pause ? ' is-paused' : '') + (alerts.length ? ' has-alert' : ''),
    id: 'queue-' + q.queue, 'data-queue': q.queue, 'aria-labelledby': 'queue-title-' + q.queue},
  h('div', {class: 'card-head'},
    h('h2', {id: 'queue-title-' + q.queue}, q.queue),
    pause ? h('span', {class: 'badge paused', title: `paused by ${pause.pausedBy || '?'} at ${fmtInstant(pause.pausedAt)}${pause.reason ? ': ' + pause.reason : ''}`}, 'paused') : null,
    alerts.map(a => h('span', {class: 'badge alert', 'data-alert': a.kind, title: a.detail, role: 'note', 'aria-label': 'Alert: ' + a.detail},
      a.kind === 'NO_NODE_SERVES' ? 'no node serves it' : a.kind === 'UNKNOWN_RATE_LIMIT' ? 'unknown rate limit' : a.kind.toLowerCase())),
    h('span', {class: 'spacer'}), actions),
  alerts.length ? h('ul', {class: 'alert-details'}, alerts.map(a => h('li', {}, a.detail))) : null,
  pause && pause.reason ? h('p', {class: 'muted pause-reason'}, 'Paused by ', pause.pausedBy || '?', ': ', pause.reason) : null,
  counts,
  h('dl', {class: 'facts'},
    h('div', {}, h('dt', {}, 'Total'), h('dd', {class: 'total'}, String(q.total || 0))),
    h('div', {}, h('dt', {}, 'Oldest runnable'), h('dd', {class: 'oldest' + (age > 60 ? ' warn' : '')}, age === null ? '—' : fmtSeconds(age))),
    h('div', {}, h('dt', {}, 'In flight'), h('dd', {class: 'in-flight'},
      !n ? h('span', {class: 'muted'}, 'no node data')
        : inFlight.length ? inFlight.map(x => h('span', {class: 'node-chip', 'data-node': x.node}, x.node, ': ', h('strong', {}, String(x.count))))
          : h('span', {class: 'muted'}, 'no live node serves it')))),
  n ? h('div', {class: 'charts'}, throughputChart(points, 'Throughput of ' + q.queue), failureChart(points, 'Failures of ' + q.queue))
    : null);
}

function pauseQueue(queue) {
  const reason = h('input', {maxlength: 500, placeholder: 'e.g. carrier down'});
  confirmAction('Pause queue ' + queue, [
    h('p', {}, 'No node claims from ', h('strong', {}, queue), ' any more (within one poll); running steps finish. The pause survives restarts.'),
    field('pause-reason', 'Reason (optional)', reason)], 'Pause queue', async () => {
    await api('queues/' + encodeURIComponent(queue) + '/pause', {method: 'PUT',
      body: JSON.stringify(reason.value.trim() ? {reason: reason.value.trim()} : {})});
    return 'Queue ' + queue + ' paused.';
  });
}

function resumeQueue(queue) {
  confirmAction('Resume queue ' + queue, h('p', {}, 'Every node claims from ', h('strong', {}, queue), ' again within one poll.'),
    'Resume queue', async () => {
      await api('queues/' + encodeURIComponent(queue) + '/pause', {method: 'DELETE'});
      return 'Queue ' + queue + ' resumed.';
    });
}
