// gen-durable web console: plain ES2020, no library. It calls only the admin REST API beside it
// (../summary, ../instances, ../nodes, ../me, …) and builds its DOM with createElement (no
// innerHTML), under the page's Content-Security-Policy (no inline script or style).
// This entry wires the page and the views together; see router.js, api.js, dom.js and views/.

import {$} from './dom.js';
import {api, setMe} from './api.js';
import {configure, pauseRefresh, refreshIsPaused, route} from './router.js';
import {signedIn, signedOut, signInForm, signOut} from './session.js';
import {queuesView} from './views/queues.js';
import {searchView} from './views/search.js';
import {instanceView} from './views/instance.js';
import {fsmsView} from './views/fsms.js';
import {notFoundView} from './views/not-found.js';

configure({
  views: {queues: queuesView, search: searchView, instance: instanceView, fsms: fsmsView},
  notFound: notFoundView,
  sessionEnded: signedOut
});

async function boot() {
  $('#refresh-toggle').addEventListener('click', () => {
    const refreshPaused = !refreshIsPaused();
    const b = $('#refresh-toggle');
    b.setAttribute('aria-pressed', String(refreshPaused));
    b.textContent = refreshPaused ? 'Resume refresh' : 'Pause refresh';
    b.setAttribute('aria-label', refreshPaused ? 'Resume auto-refresh' : 'Pause auto-refresh');
    b.classList.toggle('paused', refreshPaused);
    pauseRefresh(refreshPaused);
  });
  $('#sign-out').addEventListener('click', signOut);
  $('#dialog-cancel').addEventListener('click', () => $('#action-dialog').close());
  window.addEventListener('hashchange', route);
  try {
    setMe(await api('me'));
    signedIn();
  } catch (e) {
    if (e.status === 401) signInForm(null);
    else if (e.status === 403) signInForm(e.message);
    else signInForm('The console cannot reach the admin API: ' + e.message);
  }
}

boot();
