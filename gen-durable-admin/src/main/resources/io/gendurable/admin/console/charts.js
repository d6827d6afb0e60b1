// Charts (inline SVG) of a queue's last hour.

import {h, s} from './dom.js';

/** Bars per minute over the last hour: completed (and failed stacked on top). */
export function throughputChart(points, label) {
  const w = 240, hgt = 48, n = 60;
  const now = Math.floor(Date.now() / 60000);
  const byMinute = new Map();
  for (const p of points) {
    const m = Math.floor(new Date(p.minute).getTime() / 60000);
    const e = byMinute.get(m) || {completed: 0, failed: 0};
    e.completed += p.completed || 0;
    e.failed += p.failed || 0;
    byMinute.set(m, e);
  }
  let max = 1, total = 0, failed = 0;
  for (const [, e] of byMinute) {
    max = Math.max(max, e.completed + e.failed);
    total += e.completed;
    failed += e.failed;
  }
  const bw = w / n;
  const bars = [];
  for (let i = 0; i < n; i++) {
    const e = byMinute.get(now - (n - 1 - i));
    if (!e) continue;
    const ch = (e.completed / max) * (hgt - 2), fh = (e.failed / max) * (hgt - 2);
    const x = (i * bw).toFixed(1);
    if (ch > 0) bars.push(s('rect', {x, y: (hgt - ch).toFixed(1), width: Math.max(bw - 1, 1).toFixed(1), height: ch.toFixed(1), class: 'bar-ok'}));
    if (fh > 0) bars.push(s('rect', {x, y: (hgt - ch - fh).toFixed(1), width: Math.max(bw - 1, 1).toFixed(1), height: fh.toFixed(1), class: 'bar-failed'}));
  }
  const text = `${label}: ${total} completed, ${failed} failed in the last hour`;
  return h('figure', {class: 'chart'},
    s('svg', {viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', 'aria-label': text, preserveAspectRatio: 'none'},
      s('title', {}, text), s('line', {x1: 0, y1: hgt - 0.5, x2: w, y2: hgt - 0.5, class: 'axis'}), bars),
    h('figcaption', {}, h('strong', {}, String(total)), ' done / h', failed ? [' · ', h('strong', {class: 'bad'}, String(failed)), ' failed'] : ''));
}

/** The failure rate per minute (failed / all outcomes) over the last hour, as a line. */
export function failureChart(points, label) {
  const w = 240, hgt = 48, n = 60;
  const now = Math.floor(Date.now() / 60000);
  const byMinute = new Map();
  for (const p of points) {
    const m = Math.floor(new Date(p.minute).getTime() / 60000);
    const e = byMinute.get(m) || {completed: 0, failed: 0};
    e.completed += p.completed || 0;
    e.failed += p.failed || 0;
    byMinute.set(m, e);
  }
  let all = 0, failed = 0;
  const coords = [];
  for (let i = 0; i < n; i++) {
    const e = byMinute.get(now - (n - 1 - i));
    const rate = e && e.completed + e.failed > 0 ? e.failed / (e.completed + e.failed) : 0;
    if (e) { all += e.completed + e.failed; failed += e.failed; }
    coords.push(`${(i * w / (n - 1)).toFixed(1)},${(hgt - 1 - rate * (hgt - 2)).toFixed(1)}`);
  }
  const pct = all ? (100 * failed / all) : 0;
  const text = `${label}: failure rate ${pct.toFixed(1)} % over the last hour`;
  return h('figure', {class: 'chart'},
    s('svg', {viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', 'aria-label': text, preserveAspectRatio: 'none'},
      s('title', {}, text), s('line', {x1: 0, y1: hgt - 0.5, x2: w, y2: hgt - 0.5, class: 'axis'}),
      s('polyline', {points: coords.join(' '), class: pct > 0 ? 'line-failed' : 'line-ok'})),
    h('figcaption', {}, h('strong', {class: pct > 0 ? 'bad' : ''}, pct.toFixed(1) + ' %'), ' failed / h'));
}
