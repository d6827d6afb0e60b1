// The search view: the filters in the page's address, a page of instances, cursor paging.

import {append, clearError, h, replace} from '../dom.js';
import {STATUSES, ago, fmtInstant, statusBadge} from '../format.js';
import {api} from '../api.js';
import {go} from '../router.js';
import {field} from '../dialog.js';

const FILTERS = ['fsm', 'fsmVersion', 'status', 'queue', 'step', 'correlationKey', 'correlationKeyPrefix',
  'concurrencyKey', 'parentId', 'insertedFrom', 'insertedTo', 'updatedFrom', 'updatedTo', 'errorContains'];

export function searchView(main, arg, params) {
  const input = (name, attrs = {}) => h('input', Object.assign({name, value: params.get(name) || ''}, attrs));
  const chosen = new Set((params.get('status') || '').split(',').filter(Boolean));
  const statusBoxes = h('fieldset', {class: 'statuses'}, h('legend', {}, 'Status'),
    STATUSES.map(st => h('label', {class: 'check'},
      h('input', {type: 'checkbox', name: 'status', value: st, checked: chosen.has(st)}), st.replace('_', ' ').toLowerCase())));
  const order = h('select', {name: 'order'},
    h('option', {value: 'NEWEST_FIRST', selected: params.get('order') !== 'OLDEST_FIRST'}, 'newest first'),
    h('option', {value: 'OLDEST_FIRST', selected: params.get('order') === 'OLDEST_FIRST'}, 'oldest first'));
  const size = h('select', {name: 'pageSize'}, [20, 50, 100, 200].map(n =>
    h('option', {value: n, selected: String(n) === (params.get('pageSize') || '50')}, String(n))));
  const instant = '2026-12-01T00:00:00Z';
  const form = h('form', {id: 'search-form', class: 'card search-form', role: 'search', 'aria-label': 'Search instances',
    onsubmit: ev => {
      ev.preventDefault();
      const q = new URLSearchParams();
      const data = new FormData(form);
      for (const f of FILTERS) {
        if (f === 'status') continue;
        const v = String(data.get(f) || '').trim();
        if (v) q.set(f, v);
      }
      const st = data.getAll('status');
      if (st.length) q.set('status', st.join(','));
      if (data.get('order') !== 'NEWEST_FIRST') q.set('order', data.get('order'));
      if (data.get('pageSize') !== '50') q.set('pageSize', data.get('pageSize'));
      go('#/search?' + q);
    }},
  h('div', {class: 'grid'},
    field('f-fsm', 'FSM', input('fsm')),
    field('f-fsmVersion', 'FSM version', input('fsmVersion', {inputmode: 'numeric'})),
    field('f-queue', 'Queue', input('queue')),
    field('f-step', 'Step', input('step')),
    field('f-correlationKey', 'Correlation key', input('correlationKey')),
    field('f-correlationKeyPrefix', 'Correlation key prefix', input('correlationKeyPrefix')),
    field('f-concurrencyKey', 'Concurrency key', input('concurrencyKey')),
    field('f-parentId', 'Parent id', input('parentId', {inputmode: 'numeric'})),
    field('f-errorContains', 'Error contains', input('errorContains')),
    field('f-insertedFrom', 'Inserted from', input('insertedFrom', {placeholder: instant})),
    field('f-insertedTo', 'Inserted before', input('insertedTo', {placeholder: instant})),
    field('f-updatedFrom', 'Updated from', input('updatedFrom', {placeholder: instant})),
    field('f-updatedTo', 'Updated before', input('updatedTo', {placeholder: instant})),
    field('f-order', 'Order', order),
    field('f-pageSize', 'Page size', size)),
  statusBoxes,
  h('div', {class: 'form-buttons'},
    h('button', {type: 'submit', class: 'primary', id: 'search-submit'}, 'Search'),
    h('a', {href: '#/search', class: 'button ghost', id: 'search-clear'}, 'Clear'),
    h('span', {class: 'muted'}, 'The page\'s address holds the filters: share it.')));
  const results = h('div', {id: 'results'});
  append(main, h('div', {class: 'view-head'}, h('h1', {}, 'Search')), form, results);

  let sortKey = null, sortDir = 1, page = null;
  const cursorStack = (searchView.stack && searchView.stackFor === filterKey(params)) ? searchView.stack : [];
  searchView.stack = cursorStack;
  searchView.stackFor = filterKey(params);

  function render() {
    const items = page.items.slice();
    if (sortKey) {
      items.sort((a, b) => {
        const x = a[sortKey] ?? '', y = b[sortKey] ?? '';
        return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * sortDir;
      });
    }
    const newest = params.get('order') !== 'OLDEST_FIRST';
    const header = (key, label) => {
      if (key === 'id') {
        return h('th', {scope: 'col', 'aria-sort': sortKey ? 'none' : newest ? 'descending' : 'ascending'},
          h('button', {type: 'button', class: 'sort', 'aria-label': 'Sort by id, ' + (newest ? 'oldest' : 'newest') + ' first (all pages)',
            onclick: () => {
              const q = new URLSearchParams(params);
              q.delete('cursor');
              if (newest) q.set('order', 'OLDEST_FIRST'); else q.delete('order');
              go('#/search?' + q);
            }}, label, sortKey ? '' : newest ? ' ▾' : ' ▴'));
      }
      return h('th', {scope: 'col', 'aria-sort': sortKey === key ? (sortDir > 0 ? 'ascending' : 'descending') : 'none'},
        h('button', {type: 'button', class: 'sort', 'aria-label': 'Sort this page by ' + label,
          onclick: () => { sortDir = sortKey === key ? -sortDir : 1; sortKey = key; render(); }},
        label, sortKey === key ? (sortDir > 0 ? ' ▴' : ' ▾') : ''));
    };
    const table = h('table', {class: 'instances', id: 'results-table'},
      h('caption', {class: 'sr-only'}, 'Instances found'),
      h('thead', {}, h('tr', {}, header('id', 'Id'), header('fsm', 'FSM'), header('status', 'Status'),
        header('step', 'Step'), header('attempt', 'Attempt'), header('queue', 'Queue'),
        header('correlationKey', 'Correlation key'), header('updatedAt', 'Updated'))),
      h('tbody', {}, items.map(i => h('tr', {'data-id': i.id},
        h('td', {}, h('a', {href: '#/instance/' + i.id, class: 'instance-link'}, String(i.id))),
        h('td', {}, i.fsm, h('span', {class: 'muted'}, ' v' + i.fsmVersion)),
        h('td', {}, statusBadge(i.status)),
        h('td', {}, i.step), h('td', {class: 'num'}, String(i.attempt)), h('td', {}, i.queue),
        h('td', {class: 'key'}, i.correlationKey || ''),
        h('td', {title: fmtInstant(i.updatedAt)}, ago(i.updatedAt))))));
    const prev = h('button', {type: 'button', id: 'page-prev', disabled: !params.get('cursor'), onclick: () => {
      const q = new URLSearchParams(params);
      const back = cursorStack.pop();
      if (back) q.set('cursor', back); else q.delete('cursor');
      go('#/search?' + q);
    }}, '← Previous');
    const next = h('button', {type: 'button', id: 'page-next', disabled: !page.nextCursor, onclick: () => {
      const q = new URLSearchParams(params);
      cursorStack.push(params.get('cursor') || '');
      q.set('cursor', page.nextCursor);
      go('#/search?' + q);
    }}, 'Next →');
    replace(results, h('div', {class: 'card'},
      h('p', {class: 'muted', id: 'result-count'}, items.length ? `${items.length} on this page` + (page.nextCursor ? ', more on the next' : '') : 'No instance matches.'),
      items.length ? h('div', {class: 'table-wrap'}, table) : null,
      h('nav', {class: 'pager', 'aria-label': 'Pages'}, prev, next)));
  }

  return {
    async update() {
      const q = new URLSearchParams();
      for (const [k, v] of params) q.append(k, v);
      page = await api('instances' + (q.toString() ? '?' + q : ''));
      clearError();
      render();
    },
    busy() { return document.activeElement && form.contains(document.activeElement); }
  };
}

function filterKey(params) {
  const q = new URLSearchParams(params);
  q.delete('cursor');
  return q.toString();
}
