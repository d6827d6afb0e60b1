// Formatting: instants, durations, JSON and status badges.

import {h} from './dom.js';

export const STATUSES = ['RUNNABLE', 'EXECUTING', 'AWAITING_SIGNAL', 'AWAITING_CHILDREN', 'DONE', 'FAILED', 'CANCELLED'];

export function fmtInstant(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/Z$/, ' UTC');
}

export function ago(iso) {
  if (!iso) return '';
  const secs = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  return secs >= 0 ? fmtSeconds(secs) + ' ago' : 'in ' + fmtSeconds(-secs);
}

/** @return seconds of an ISO-8601 duration such as PT1M30.5S or P1DT2H, or null */
export function durationSeconds(iso) {
  if (!iso) return null;
  const m = /^(-)?P(?:(\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?)?$/.exec(iso);
  if (!m) return null;
  const v = (+m[2] || 0) * 86400 + (+m[3] || 0) * 3600 + (+m[4] || 0) * 60 + (+m[5] || 0);
  return m[1] ? -v : v;
}

export function fmtSeconds(secs) {
  if (secs === null || secs === undefined) return '—';
  if (secs > 0 && secs < 0.001) return '< 1 ms';
  if (secs < 1) return Math.round(secs * 1000) + ' ms';
  if (secs < 60) return (secs < 10 ? secs.toFixed(1).replace(/\.0$/, '') : Math.round(secs)) + ' s';
  if (secs < 3600) return Math.floor(secs / 60) + ' min ' + Math.round(secs % 60) + ' s';
  if (secs < 86400) return Math.floor(secs / 3600) + ' h ' + Math.round((secs % 3600) / 60) + ' min';
  return Math.floor(secs / 86400) + ' d ' + Math.round((secs % 86400) / 3600) + ' h';
}

export function json(v) {
  return v === null || v === undefined ? 'null' : JSON.stringify(v, null, 2);
}

export function statusBadge(status) {
  return h('span', {class: 'badge status-' + String(status).toLowerCase()}, String(status).replace('_', ' '));
}
