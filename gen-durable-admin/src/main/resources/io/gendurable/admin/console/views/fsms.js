// The FSMs view: nodes, registered FSMs, schedules and step durations.

import {append, clearError, h, replace, s} from '../dom.js';
import {ago, durationSeconds, fmtInstant, fmtSeconds} from '../format.js';
import {api, me, nodes} from '../api.js';
import {confirmAction} from '../dialog.js';

export function fsmsView(main) {
  const root = h('div', {id: 'fsms'});
  append(main, h('div', {class: 'view-head'}, h('h1', {}, 'FSMs and nodes')), root);
  return {
    async update() {
      const n = await nodes();
      clearError();
      if (!n) {
        replace(root, h('p', {class: 'muted', id: 'no-node-data'}, 'No node data: this server\'s admin API has no nodes endpoint, so the registered FSMs and step timings are not known here.'));
        return;
      }
      const fsms = new Map();
      for (const node of n.nodes) {
        for (const f of node.fsms || []) {
          const key = f.name + '\u0000' + f.version;
          const e = fsms.get(key) || Object.assign({nodes: []}, f);
          e.nodes.push(node);
          fsms.set(key, e);
        }
      }
      const rows = [...fsms.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version - b.version);
      replace(root,
        h('section', {class: 'card', 'aria-labelledby': 'h-nodes'}, h('h2', {id: 'h-nodes'}, 'Nodes'),
          h('div', {class: 'table-wrap'}, h('table', {id: 'nodes-table'},
            h('thead', {}, h('tr', {}, ['Node', 'State', 'Queues', 'Rate limits', 'Gates', 'Started', 'Seen'].map(c => h('th', {scope: 'col'}, c)))),
            h('tbody', {}, n.nodes.map(node => h('tr', {'data-node': node.node},
              h('td', {}, node.node), h('td', {}, h('span', {class: 'badge ' + (node.live ? 'live' : 'gone')}, node.live ? 'live' : 'not seen')),
              h('td', {}, (node.queues || []).join(', ')), h('td', {}, (node.rateLimits || []).join(', ') || '—'),
              h('td', {}, (node.gates || []).join(', ') || '—'), h('td', {}, fmtInstant(node.startedAt)), h('td', {}, ago(node.seenAt)))))))),
        h('section', {class: 'card', 'aria-labelledby': 'h-registered'}, h('h2', {id: 'h-registered'}, 'Registered FSMs'),
          rows.length ? h('div', {class: 'table-wrap'}, h('table', {id: 'fsm-table'},
            h('thead', {}, h('tr', {}, ['FSM', 'Version', 'Kind', 'Queue', 'Nodes', ''].map(c => h('th', {scope: 'col'}, c)))),
            h('tbody', {}, rows.map(f => h('tr', {'data-fsm': f.name},
              h('td', {}, h('strong', {}, f.name)), h('td', {class: 'num'}, String(f.version)), h('td', {}, f.kind), h('td', {}, f.queue),
              h('td', {}, f.nodes.map(x => h('span', {class: 'node-chip'}, x.node))),
              h('td', {}, h('a', {href: '#/search?' + new URLSearchParams({fsm: f.name, fsmVersion: f.version})}, 'instances')))))))
            : h('p', {class: 'muted'}, 'No FSM registered on a reporting node.')),
        h('section', {class: 'card', 'aria-labelledby': 'h-schedules'}, h('h2', {id: 'h-schedules'}, 'Schedules'),
          schedulesTable(await schedules())),
        h('section', {class: 'card', 'aria-labelledby': 'h-timings'}, h('h2', {id: 'h-timings'}, 'Step durations'),
          h('p', {class: 'muted'}, 'Per node, recent window: the bar spans p50 to p90, the tick is p99, the line reaches the max.'),
          stepTimings(n.nodes)));
    }
  };
}

/** @return the recurring schedules, or null when the server's admin API has no schedules endpoint */
async function schedules() {
  try {
    return await api('schedules');
  } catch (e) {
    if (e.status === 404 || e.status === 405) return null;
    throw e;
  }
}

function schedulesTable(list) {
  if (list === null) return h('p', {class: 'muted'}, 'This server\'s admin API has no schedules endpoint.');
  if (!list.length) return h('p', {class: 'muted', id: 'no-schedules'}, 'No recurring schedule (@DurableSchedule, defineSchedule).');
  return h('div', {class: 'table-wrap'}, h('table', {id: 'schedules-table'},
    h('thead', {}, h('tr', {}, ['Schedule', 'FSM', 'Cron', 'Misfires', 'Next fire', 'Last fire', 'State', me().admin ? 'Actions' : null]
      .filter(c => c !== null).map(c => h('th', {scope: 'col'}, c)))),
    h('tbody', {}, list.map(sc => h('tr', {'data-schedule': sc.name},
      h('td', {}, h('strong', {}, sc.name), h('div', {class: 'muted'}, sc.origin === 'api' ? 'defined at run time' : 'declared')),
      h('td', {}, sc.fsm), h('td', {}, h('code', {}, sc.cron), ' ', h('span', {class: 'muted'}, sc.zone)),
      h('td', {}, sc.misfire === 'CATCH_UP' ? 'catch up ' + sc.maxCatchUp : 'skip'),
      h('td', {}, fmtInstant(sc.nextFireAt)),
      h('td', {}, sc.lastFireAt ? fmtInstant(sc.lastFireAt) : '—',
        sc.lastInstanceId ? [' ', h('a', {href: '#/instance/' + sc.lastInstanceId}, '#' + sc.lastInstanceId)] : null),
      h('td', {}, sc.paused
        ? h('span', {class: 'badge paused', title: `paused by ${sc.pausedBy || '?'}${sc.reason ? ': ' + sc.reason : ''}`}, 'paused')
        : h('span', {class: 'badge live'}, 'active'),
        sc.cannotFire ? [' ', h('span', {class: 'badge alert cannot-fire', title: sc.cannotFire}, 'cannot fire'),
          h('div', {class: 'muted'}, sc.cannotFire)] : null),
      me().admin ? h('td', {}, h('div', {class: 'actions'},
        sc.paused
          ? h('button', {type: 'button', class: 'resume', 'aria-label': 'Resume schedule ' + sc.name, onclick: () => scheduleAction(sc, 'resume')}, 'Resume')
          : h('button', {type: 'button', class: 'pause', 'aria-label': 'Pause schedule ' + sc.name, onclick: () => scheduleAction(sc, 'pause')}, 'Pause'),
        h('button', {type: 'button', class: 'trigger', 'aria-label': 'Trigger schedule ' + sc.name + ' now', onclick: () => scheduleAction(sc, 'trigger')}, 'Trigger now')))
        : null)))));
}

function scheduleAction(sc, verb) {
  const path = 'schedules/' + encodeURIComponent(sc.name) + (verb === 'trigger' ? '/trigger' : '/pause');
  const text = {
    pause: ['Pause schedule ' + sc.name, 'No fire time inserts an instance until it is resumed, on every node; missed fire times follow its misfire policy.', 'Pause schedule'],
    resume: ['Resume schedule ' + sc.name, 'Its next fire times insert instances again.', 'Resume schedule'],
    trigger: ['Trigger schedule ' + sc.name, 'Inserts one instance of ' + sc.fsm + ' now; the next fire time does not move.', 'Trigger now']
  }[verb];
  confirmAction(text[0], h('p', {}, text[1]), text[2], async () => {
    const answer = await api(path, {method: verb === 'pause' ? 'PUT' : verb === 'resume' ? 'DELETE' : 'POST',
      body: verb === 'pause' ? '{}' : undefined});
    return verb === 'trigger' ? 'Instance ' + answer.id + ' inserted.' : 'Schedule ' + sc.name + (verb === 'pause' ? ' paused.' : ' resumed.');
  });
}

function stepTimings(nodeList) {
  const rows = [];
  for (const node of nodeList) {
    for (const t of node.stepTimings || []) rows.push(Object.assign({node: node.node}, t));
  }
  if (!rows.length) return h('p', {class: 'muted'}, 'No step has run recently.');
  rows.sort((a, b) => a.fsm.localeCompare(b.fsm) || a.step.localeCompare(b.step) || a.node.localeCompare(b.node));
  const max = Math.max(...rows.map(r => durationSeconds(r.max) || durationSeconds(r.p99) || 0), 0.001);
  const w = 320, rowH = 26, labelW = 0;
  const x = v => labelW + (w - labelW) * Math.sqrt(v / max);  // square-root scale: fast and slow steps both visible
  return h('div', {class: 'table-wrap'}, h('table', {id: 'timings'},
    h('thead', {}, h('tr', {}, ['FSM', 'Step', 'Node', 'Runs', 'p50', 'p90', 'p99', 'Max', 'Distribution'].map(c => h('th', {scope: 'col'}, c)))),
    h('tbody', {}, rows.map(r => {
      const p50 = durationSeconds(r.p50) || 0, p90 = durationSeconds(r.p90) || 0, p99 = durationSeconds(r.p99) || 0, mx = durationSeconds(r.max) || 0;
      const label = `${r.fsm} ${r.step}: p50 ${fmtSeconds(p50)}, p90 ${fmtSeconds(p90)}, p99 ${fmtSeconds(p99)}, max ${fmtSeconds(mx)}`;
      return h('tr', {'data-step': r.fsm + '/' + r.step},
        h('td', {}, r.fsm), h('td', {}, r.step), h('td', {}, r.node), h('td', {class: 'num'}, String(r.count)),
        h('td', {class: 'num'}, fmtSeconds(p50)), h('td', {class: 'num'}, fmtSeconds(p90)), h('td', {class: 'num'}, fmtSeconds(p99)), h('td', {class: 'num'}, fmtSeconds(mx)),
        h('td', {}, s('svg', {viewBox: `0 0 ${w} ${rowH}`, width: w, height: rowH, role: 'img', 'aria-label': label, class: 'dist'},
          s('title', {}, label),
          s('line', {x1: x(p50), x2: x(mx), y1: rowH / 2, y2: rowH / 2, class: 'whisker'}),
          s('rect', {x: x(p50), y: 6, width: Math.max(x(p90) - x(p50), 2), height: rowH - 12, rx: 2, class: 'iqr'}),
          s('line', {x1: x(p99), x2: x(p99), y1: 4, y2: rowH - 4, class: 'p99'}))));
    }))));
}
