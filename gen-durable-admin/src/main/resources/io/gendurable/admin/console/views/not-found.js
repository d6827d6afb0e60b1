// The view of an unknown address.

import {append, h} from '../dom.js';

export function notFoundView(main) {
  append(main, h('h1', {}, 'No such view'), h('p', {}, h('a', {href: '#/queues'}, 'Back to the queues')));
  return {};
}
