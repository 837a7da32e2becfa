// t2sbench viewer. Plain JavaScript, no dependencies, no network beyond
// its own server: a static copy's data arrives as scripts (data/index.js,
// data/q/N.js) that call T2S.index and T2S.question, so that it works
// from file://; the server serves the same data as JSON (data/index.json,
// data/q/N.json), which no other page can include or read.
// Every value from the data is inserted as text (textContent,
// createTextNode, setAttribute), never parsed as markup.
(function () {
  'use strict';
  var T2S = window.T2S = {};
  var IDX = null;
  // Loaded questions are kept for going back and forth, the last
  // QCACHE_MAX of them (a search item's file can be a few hundred KB).
  var QCACHE = {}, QORDER = [], WAITING = {};
  var QCACHE_MAX = 40;
  var PERF = /[?&]perf=1/.test(location.search);
  var perf = {};
  var main = document.getElementById('main');

  // ---------- DOM helpers (text only) ----------
  function h(tag, props) {
    var e = document.createElement(tag);
    if (props) {
      for (var k in props) {
        var v = props[k];
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = String(v);
        // Through the CSSOM: the policy allows no style attribute.
        else if (k === 'style') e.style.cssText = String(v);
        else if (typeof v === 'function') e.addEventListener(k.replace(/^on/, ''), v);
        else e.setAttribute(k, String(v));
      }
    }
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  // add appends each further argument to e: a node, a string or number
  // (as a text node), or an array of them; null and undefined are skipped.
  function add(e) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) { c.forEach(function (x) { add(e, x); }); continue; }
      if (typeof c === 'string' || typeof c === 'number') { e.appendChild(document.createTextNode(String(c))); continue; }
      e.appendChild(c);
    }
  }
  function svg(tag, attrs) {
    var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (typeof c === 'string') e.appendChild(document.createTextNode(c)); else if (c) e.appendChild(c);
    }
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function pct(x) { return (100 * x).toFixed(1) + '%'; }
  function fmt(n) { return (n === undefined || n === null) ? '-' : Number(n).toLocaleString('en-US'); }
  function ms(x) { return x === undefined || x === null ? '-' : (x >= 1000 ? (x / 1000).toFixed(2) + ' s' : x.toFixed(1) + ' ms'); }
  function usd(x) { return x === undefined || x === null ? '-' : '$' + (x < 0.01 ? x.toFixed(5) : x.toFixed(2)); }
  function num(x, d) { return typeof x === 'number' ? x.toFixed(d === undefined ? 3 : d).replace(/\.?0+$/, '') || '0' : String(x); }
  function pval(p) { return String(Number(p.toPrecision(3))); }
  function short(s, n) { s = String(s || ''); return s.length > n ? s.slice(0, n) + '…' : s; }
  function pre(text, cls) { return h('pre', { class: cls || '' }, String(text === undefined || text === null ? '' : text)); }
  function oc(code, title) { return h('span', { class: 'o o' + code, title: title || IDX.codes[code] || '' }, sym(code)); }
  function sym(code) { return { C: '✓', W: '✗', F: 'F', P: '…', X: '–', '.': '·' }[code] || code; }
  function details(summary, build, open) {
    var d = h('details', open ? { open: 'open' } : null, h('summary', null, summary));
    var built = false;
    function fill() { if (!built && d.open) { built = true; add(d, build()); } }
    d.addEventListener('toggle', fill);
    if (open) { built = true; add(d, build()); }
    return d;
  }
  function kv(pairs) {
    var dl = h('dl', { class: 'kv' });
    pairs.forEach(function (p) { if (p[1] !== undefined && p[1] !== null && p[1] !== '') { add(dl, h('dt', null, p[0])); add(dl, h('dd', null, p[1])); } });
    return dl;
  }
  function trialName(t) { return IDX.trials[t].label; }

  // ---------- data loading ----------
  // A static copy (index.html marked data-static) loads its data as
  // scripts that call T2S.index and T2S.question, which works from file://;
  // the server serves the data as JSON only, which the page fetches.
  var SCRIPTS = document.documentElement.hasAttribute('data-static');
  function loadScript(src, onerror) {
    var s = document.createElement('script');
    s.src = src;
    s.onerror = onerror || null;
    document.head.appendChild(s);
  }
  function dataFile(name) { return 'data/' + name + (SCRIPTS ? '.js' : '.json'); }
  // load fetches data file name (without extension): data/NAME.js as a
  // script in a static copy, data/NAME.json otherwise, handing its JSON
  // to ok.
  function load(name, ok, onerror) {
    if (SCRIPTS) { loadScript(dataFile(name), onerror); return; }
    fetch(dataFile(name), { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error(r.status + ' ' + r.statusText);
      return r.json();
    }).then(ok, function () { if (onerror) onerror(); });
  }
  T2S.index = function (d) {
    IDX = d;
    if (PERF) perf.index_ms = performance.now();
    document.title = d.title + ' - t2sbench viewer';
    document.getElementById('title').textContent = d.title;
    buildNav();
    route();
    if (PERF) runPerf();
  };
  T2S.question = function (n, d) {
    QCACHE[n] = d;
    QORDER.push(n);
    while (QORDER.length > QCACHE_MAX) delete QCACHE[QORDER.shift()];
    var w = WAITING[n] || [];
    delete WAITING[n];
    w.forEach(function (f) { f(d); });
  };
  function question(n, cb) {
    if (QCACHE[n]) { cb(QCACHE[n]); return; }
    if (WAITING[n]) { WAITING[n].push(cb); return; }
    WAITING[n] = [cb];
    load('q/' + n, function (d) { T2S.question(n, d); }, function () { var w = WAITING[n] || []; delete WAITING[n]; w.forEach(function (f) { f(null); }); });
  }

  // ---------- routing ----------
  function parseHash() {
    var hs = location.hash.replace(/^#\/?/, '');
    var q = {}, path = hs, i = hs.indexOf('?');
    if (i >= 0) {
      path = hs.slice(0, i);
      hs.slice(i + 1).split('&').forEach(function (kvs) {
        if (!kvs) return;
        var j = kvs.indexOf('=');
        q[decodeURIComponent(j < 0 ? kvs : kvs.slice(0, j))] = j < 0 ? '' : decodeURIComponent(kvs.slice(j + 1));
      });
    }
    return { parts: path.split('/').filter(Boolean), q: q };
  }
  function link(parts, q) {
    var s = '#/' + parts.join('/'), ks = Object.keys(q || {}).filter(function (k) { return q[k] !== '' && q[k] !== undefined; });
    if (ks.length) s += '?' + ks.map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(q[k]); }).join('&');
    return s;
  }
  function buildNav() {
    var nav = document.getElementById('nav');
    clear(nav);
    [['overview', 'Overview'], ['questions', 'Questions'], ['disagree', 'Disagreements'], ['calls', 'Model calls']].forEach(function (p) {
      add(nav, h('a', { href: '#/' + p[0], id: 'nav-' + p[0] }, p[1]));
    });
  }
  function route() {
    if (!IDX) return;
    var r = parseHash(), v = r.parts[0] || 'overview';
    Array.prototype.forEach.call(document.querySelectorAll('nav a'), function (a) {
      a.className = a.id === 'nav-' + (v === 'q' ? 'questions' : v) ? 'active' : '';
    });
    clear(main);
    main.setAttribute('data-view', v);
    if (v === 'questions') viewQuestions(r.q);
    else if (v === 'q') viewQuestion(parseInt(r.parts[1], 10), r.q);
    else if (v === 'disagree') viewDisagree(r.q);
    else if (v === 'calls') viewCalls();
    else viewOverview();
  }
  window.addEventListener('hashchange', route);

  // ---------- overview ----------
  function pairOf(a, b) {
    for (var i = 0; i < (IDX.pairs || []).length; i++) {
      var p = IDX.pairs[i];
      if (p.a === a && p.b === b) return p;
      if (p.a === b && p.b === a) return { a: a, b: b, n: p.n, only_a: p.only_b, only_b: p.only_a, p: p.p, test: p.test };
    }
    return null;
  }
  // cmpOf returns the comparison of trial i's system with its baseline,
  // or {base: true} when i is a baseline's trial, or null.
  function cmpOf(i) {
    var cs = IDX.comparisons || [], base = null;
    for (var k = 0; k < cs.length; k++) {
      if (cs[k].trials.indexOf(i) >= 0) return cs[k];
      if (cs[k].base_trials.indexOf(i) >= 0) base = { base: true };
    }
    return base;
  }
  function exBar(t) {
    return h('span', { class: 'bar', title: 'EX ' + pct(t.ex) + ', 95% CI [' + pct(t.ci_lo) + ', ' + pct(t.ci_hi) + ']' },
      h('span', { class: 'fill', style: 'width:' + (100 * t.ex).toFixed(2) + '%' }),
      h('span', { class: 'ci', style: 'left:' + (100 * t.ci_lo).toFixed(2) + '%;width:' + (100 * (t.ci_hi - t.ci_lo)).toFixed(2) + '%' }));
  }
  function viewOverview() {
    add(main, h('h2', null, 'Overview'));
    if (IDX.simulated) add(main, h('div', { class: 'banner' }, 'Simulated model: these numbers measure the harness and the simulator, not any LLM.'));
    (IDX.warnings || []).forEach(function (w) { add(main, h('div', { class: 'banner warn' }, w)); });
    var tb = h('tbody');
    IDX.trials.forEach(function (t, i) {
      var c = cmpOf(i), mc = '-';
      if (c && c.base) mc = '(baseline)';
      else if (c && c.error) mc = '- vs ' + c.baseline + ': ' + c.error;
      else if (c) mc = 'vs ' + c.baseline + ': ' + c.line;
      var cost = t.total.cost_usd;
      add(tb, h('tr', { class: 'click', onclick: function () { location.hash = link(['questions'], { trial: i }); } },
        h('td', null, t.label), h('td', null, t.runner), h('td', null, t.bench),
        h('td', { class: 'num' }, fmt(t.done)), h('td', { class: 'num' }, fmt(t.failed)), h('td', { class: 'num' }, fmt(t.pending)),
        h('td', { class: 'num' }, fmt(t.attempted)),
        h('td', { class: 'num ex' }, t.attempted ? pct(t.ex) + (t.partial ? ' (partial)' : '') : '-'),
        h('td', { class: 'num' }, t.attempted ? '[' + pct(t.ci_lo) + ', ' + pct(t.ci_hi) + ']' : '-'),
        h('td', null, t.attempted ? exBar(t) : ''),
        h('td', { class: 'num' }, fmt(t.total.calls)), h('td', { class: 'num' }, fmt(t.total.cached)),
        h('td', { class: 'num' }, fmt(t.total.prompt_tokens + t.total.completion_tokens)),
        h('td', { class: 'num' }, usd(cost)),
        h('td', null, mc)));
    });
    add(main, h('table', { id: 'trials' },
      h('thead', null, h('tr', null, ['trial', 'runner', 'benchmark', 'done', 'failed', 'pending', 'attempted', 'EX', '95% CI (Wilson)', '', 'calls', 'cached', 'tokens', 'cost', 'vs baseline: test, EX difference (CI), Holm p (seeds pooled)']
        .map(function (x) { return h('th', null, x); }))), tb));
    add(main, h('p', { class: 'muted' }, 'EX = correct / attempted: questions whose gold runs; failed items count as wrong. Click a trial to list its questions.'));
    add(main, h('p', { class: 'muted' }, 'A system is its trials that differ only in their seed. Each is compared with its baseline (the first system of its benchmark; a sweep\'s points with the runner\'s paper default point), every seed pooled: p from McNemar\'s test with one seed, the exact sign-flip test over questions with several; CI: paired bootstrap over questions; Holm within the baseline\'s comparisons. The numbers are those of t2sbench compare and report.'));
    var fails = IDX.trials.filter(function (t) { return t.failed_by; });
    if (fails.length) {
      add(main, h('h3', null, 'Failures by class'));
      var ul = h('ul');
      fails.forEach(function (t) {
        add(ul, h('li', null, t.label + ': ' + Object.keys(t.failed_by).sort().map(function (k) { return k + ' ' + t.failed_by[k]; }).join(', ')));
      });
      add(main, ul);
    }
    var excl = IDX.trials.filter(function (t) { return t.excluded; });
    if (excl.length) {
      add(main, h('p', { class: 'muted' }, 'Not attempted (gold does not run): ' + excl.map(function (t) {
        return t.label + ': ' + Object.keys(t.excluded).sort().map(function (k) { return k + ' ' + t.excluded[k]; }).join(', ');
      }).join('; ')));
    }
    add(main, h('h3', null, 'Runs'));
    IDX.runs.forEach(function (r) {
      add(main, h('div', { class: 'card' },
        h('div', null, h('b', null, r.name), ' ', h('span', { class: 'muted mono' }, r.dir)),
        h('div', { class: 'muted' }, 'call log: ' + fmt(r.calls) + ' calls (' + fmt(r.cached) + ' cached, ' + fmt(r.sent) + ' without answer, ' +
          fmt(r.loose) + ' of uncommitted items), ' + fmt(r.prompt_tokens) + ' prompt + ' + fmt(r.completion_tokens) + ' completion tokens'),
        details(r.spec_stored ? 'spec' : 'configuration (the spec file is not stored; trials as stored)', function () { return pre(r.spec, 'spec'); })));
    });
    if (PERF && perf.overview_ms === undefined) perf.overview_ms = performance.now();
  }

  // ---------- questions ----------
  // The questions table adds PAGE rows at a time, so that a filter over a
  // benchmark of thousands of questions redraws at once.
  var PAGE = 250;
  function distinct(f) {
    var s = {};
    IDX.questions.forEach(function (r) { [].concat(f(r) || []).forEach(function (x) { if (x !== '' && x !== undefined) s[x] = true; }); });
    return Object.keys(s).sort();
  }
  function select(name, label, options, value, onchange) {
    var s = h('select', { name: name, id: 'f-' + name });
    options.forEach(function (o) {
      var opt = h('option', { value: o[0] }, o[1]);
      if (String(o[0]) === String(value === undefined ? '' : value)) opt.selected = true;
      add(s, opt);
    });
    s.addEventListener('change', onchange);
    return h('label', null, label, s);
  }
  function filterRows(f) {
    var trial = f.trial === undefined || f.trial === '' ? -1 : parseInt(f.trial, 10);
    var text = (f.text || '').toLowerCase();
    return IDX.questions.filter(function (r) {
      if (f.bench && r.b !== f.bench) return false;
      if (trial >= 0 && r.o[trial] === '.') return false;
      if (f.db && r.db !== f.db) return false;
      if (f.difficulty && r.d !== f.difficulty) return false;
      if (f.type && (r.rt || []).indexOf(f.type) < 0) return false;
      if (text && r.id.toLowerCase().indexOf(text) < 0 && (r.q || '').toLowerCase().indexOf(text) < 0) return false;
      var trials = trial >= 0 ? [trial] : r.o.split('').map(function (_, i) { return i; }).filter(function (i) { return r.o[i] !== '.'; });
      if (f.outcome) {
        var want = f.outcome === 'wrong' ? 'WF' : { correct: 'C', failed: 'F', pending: 'P', excluded: 'X' }[f.outcome];
        if (!trials.some(function (i) { return want.indexOf(r.o[i]) >= 0; })) return false;
      }
      if (f.status && !trials.some(function (i) { return r.s[i] === f.status; })) return false;
      return true;
    });
  }
  function viewQuestions(f) {
    var t0 = performance.now();
    var set = function (k, v) { var g = Object.assign({}, f); g[k] = v; location.hash = link(['questions'], g); };
    add(main, h('h2', null, 'Questions'));
    var trialOpts = [['', 'any trial']].concat(IDX.trials.map(function (t, i) { return [i, t.label]; }));
    var statuses = distinct(function (r) { return r.s; });
    var types = distinct(function (r) { return r.rt; });
    var bar = h('div', { class: 'filters' },
      select('trial', 'trial', trialOpts, f.trial, function (e) { set('trial', e.target.value); }),
      select('outcome', 'outcome', [['', 'any'], ['correct', 'correct'], ['wrong', 'wrong (incl. failed)'], ['failed', 'failed'], ['pending', 'pending'], ['excluded', 'gold does not run']], f.outcome, function (e) { set('outcome', e.target.value); }),
      select('status', 'status', [['', 'any']].concat(statuses.map(function (s) { return [s, s]; })), f.status, function (e) { set('status', e.target.value); }),
      IDX.benches.length > 1 ? select('bench', 'benchmark', [['', 'any']].concat(IDX.benches.map(function (s) { return [s, s]; })), f.bench, function (e) { set('bench', e.target.value); }) : null,
      select('db', 'database', [['', 'any']].concat(distinct(function (r) { return r.db; }).map(function (s) { return [s, s]; })), f.db, function (e) { set('db', e.target.value); }),
      select('difficulty', 'difficulty', [['', 'any']].concat(distinct(function (r) { return r.d; }).map(function (s) { return [s, s]; })), f.difficulty, function (e) { set('difficulty', e.target.value); }),
      types.length ? select('type', 'reasoning type', [['', 'any']].concat(types.map(function (s) { return [s, s]; })), f.type, function (e) { set('type', e.target.value); }) : null);
    var search = h('input', { type: 'search', id: 'f-text', placeholder: 'id or question text', value: f.text || '' });
    search.addEventListener('change', function () { set('text', search.value); });
    add(bar, h('label', null, 'search', search));
    add(main, bar);
    var rows = filterRows(f);
    add(main, h('p', { id: 'count' }, rows.length + ' of ' + IDX.questions.length + ' questions' +
      (f.trial !== undefined && f.trial !== '' ? ' (outcome and status of ' + trialName(+f.trial) + ')' : (f.outcome || f.status ? ' (in at least one trial)' : ''))));
    var head = h('tr', null, h('th', null, '#'), h('th', null, 'id'), h('th', null, 'database'), h('th', null, 'difficulty'), types.length ? h('th', null, 'types') : null, h('th', null, 'question'));
    IDX.trials.forEach(function (t, i) { add(head, h('th', { title: t.label, class: 'num' }, short(t.label, 14))); });
    var tb = h('tbody');
    var table = h('table', { id: 'questions' }, h('thead', null, head), tb);
    add(main, table);
    var shown = 0;
    var more = h('button', { id: 'more' }, '');
    function page() {
      var frag = document.createDocumentFragment();
      var end = Math.min(rows.length, shown + PAGE);
      for (var k = shown; k < end; k++) {
        (function (r) {
          var tr = h('tr', { class: 'click', 'data-n': r.n, onclick: function () { location.hash = link(['q', r.n], f.trial !== undefined && f.trial !== '' ? { trial: f.trial } : {}); } },
            h('td', { class: 'num' }, r.n), h('td', { class: 'mono' }, r.id), h('td', null, r.db), h('td', null, r.d || ''),
            types.length ? h('td', null, (r.rt || []).join(', ')) : null, h('td', null, short(r.q, 110)));
          for (var i = 0; i < r.o.length; i++) add(tr, h('td', { class: 'num' }, oc(r.o[i], trialName(i) + ': ' + (r.s[i] || IDX.codes[r.o[i]]))));
          frag.appendChild(tr);
        })(rows[k]);
      }
      tb.appendChild(frag);
      shown = end;
      more.textContent = 'Show ' + Math.min(PAGE, rows.length - shown) + ' more (' + (rows.length - shown) + ' left)';
      more.style.display = shown < rows.length ? '' : 'none';
    }
    more.addEventListener('click', page);
    page();
    add(main, more);
    if (PERF) perf.last_questions_render_ms = performance.now() - t0;
  }

  // ---------- disagreements ----------
  function viewDisagree(f) {
    var t0 = performance.now();
    add(main, h('h2', null, 'Disagreements'));
    var n = IDX.trials.length;
    if (n < 2) { add(main, h('p', null, 'One trial only: nothing to compare.')); return; }
    var a = f.a === undefined ? 0 : parseInt(f.a, 10);
    var b = f.b;
    if (b === undefined) { b = -1; for (var i = 0; i < n; i++) if (i !== a && IDX.trials[i].bench === IDX.trials[a].bench) { b = i; break; } }
    else b = parseInt(b, 10);
    var opts = IDX.trials.map(function (t, i) { return [i, t.label + ' @' + t.bench]; });
    add(main, h('div', { class: 'filters' },
      select('a', 'trial A', opts, a, function (e) { location.hash = link(['disagree'], { a: e.target.value, b: f.b }); }),
      select('b', 'trial B', opts, b, function (e) { location.hash = link(['disagree'], { a: a, b: e.target.value }); })));
    if (b < 0 || a === b || IDX.trials[a].bench !== IDX.trials[b].bench) {
      add(main, h('p', null, 'Pick two different trials on the same benchmark.'));
      return;
    }
    var onlyA = [], onlyB = [], both = 0;
    IDX.questions.forEach(function (r) {
      var x = r.o[a], y = r.o[b];
      var attA = 'CWF'.indexOf(x) >= 0, attB = 'CWF'.indexOf(y) >= 0;
      if (!attA || !attB) return;
      both++;
      if (x === 'C' && y !== 'C') onlyA.push(r);
      if (y === 'C' && x !== 'C') onlyB.push(r);
    });
    var p = pairOf(a, b);
    add(main, h('p', { id: 'mcnemar' }, both + ' questions attempted by both; only ' + trialName(a) + ' right: ' + onlyA.length +
      ', only ' + trialName(b) + ' right: ' + onlyB.length + (p ? '; McNemar p = ' + pval(p.p) + ' (' + p.test + ', these two trials)' : '')));
    (IDX.comparisons || []).forEach(function (c) {
      var ab = c.trials.indexOf(a) >= 0 && c.base_trials.indexOf(b) >= 0, ba = c.trials.indexOf(b) >= 0 && c.base_trials.indexOf(a) >= 0;
      if ((ab || ba) && c.line) add(main, h('p', { id: 'systems-comparison' }, 'Systems, seeds pooled: ' + c.system + ' vs ' + c.baseline + ': ' + c.line));
    });
    function col(title, list, id) {
      var c = h('div', { id: id }, h('h3', null, title + ' (' + list.length + ')'));
      list.forEach(function (r) {
        var body = h('div');
        var entry = h('div', { class: 'disc-entry', 'data-n': r.n },
          h('div', null, h('a', { href: link(['q', r.n], { trial: a }) }, 'question ' + r.id), ' ', h('span', { class: 'muted' }, '#' + r.n + ' · ' + r.db + (r.d ? ' · ' + r.d : ''))),
          h('div', { class: 'q' }, r.q || ''), body);
        var shown = false;
        var btn = h('button', null, 'SQL side by side');
        btn.addEventListener('click', function () {
          if (shown) { clear(body); shown = false; btn.textContent = 'SQL side by side'; return; }
          shown = true;
          btn.textContent = 'hide SQL';
          body.appendChild(h('p', { class: 'muted' }, 'loading…'));
          question(r.n, function (q) { clear(body); if (q) add(body, sideBySide(q, a, b)); else add(body, h('p', { class: 'warn' }, 'could not load ' + dataFile('q/' + r.n))); });
        });
        add(entry, btn);
        add(c, entry);
        if (c.childNodes.length <= 6) btn.click();
      });
      return c;
    }
    add(main, h('div', { class: 'cols' }, col('Only ' + trialName(a) + ' right', onlyA, 'only-a'), col('Only ' + trialName(b) + ' right', onlyB, 'only-b')));
    if (PERF) perf.last_disagree_render_ms = performance.now() - t0;
  }
  function itemOf(q, t) {
    for (var i = 0; i < q.items.length; i++) if (q.items[i].t === t) return q.items[i];
    return null;
  }
  function sideBySide(q, a, b) {
    function one(t) {
      var it = itemOf(q, t);
      if (!it) return h('div', null, h('b', null, trialName(t)), h('p', null, 'no item'));
      return h('div', null, h('b', null, trialName(t)), ' ', verdictBadge(it), pre(it.sql || '(no SQL)', 'sql'), previewTable(it.preview));
    }
    return h('div', { class: 'cols3' },
      h('div', null, h('b', null, 'gold'), q.gold ? [pre(q.gold.sql, 'sql'), previewTable(q.gold.preview)] : h('p', { class: 'muted' }, 'gold not available')),
      one(a), one(b));
  }

  // ---------- model calls overview ----------
  function viewCalls() {
    add(main, h('h2', null, 'Model calls'));
    add(main, h('p', { class: 'muted' }, 'From the call log: every request the run sent, by trial and role. A question\u2019s own calls, with their messages, answers, reasoning and finish reasons from the model cache, are on its page.'));
    var tb = h('tbody');
    IDX.trials.forEach(function (t) {
      (t.usage || []).concat([t.total]).forEach(function (u) {
        add(tb, h('tr', { class: u.role === 'total' ? 'total' : '' }, h('td', null, t.label), h('td', null, u.role), h('td', null, u.model || ''),
          h('td', { class: 'num' }, fmt(u.calls)), h('td', { class: 'num' }, fmt(u.cached)),
          h('td', { class: 'num' }, u.calls ? pct(u.cached / u.calls) : '-'), h('td', { class: 'num' }, fmt(u.sent || 0)),
          h('td', { class: 'num' }, fmt(u.prompt_tokens)), h('td', { class: 'num' }, fmt(u.completion_tokens)),
          h('td', { class: 'num' }, ms(u.latency_ms)), h('td', { class: 'num' }, u.calls ? ms(u.latency_ms / u.calls) : '-'), h('td', { class: 'num' }, usd(u.cost_usd))));
      });
    });
    add(main, h('table', { id: 'calls' }, h('thead', null, h('tr', null, ['trial', 'role', 'model', 'calls', 'cached', 'cache hit', 'no answer', 'prompt tokens', 'completion tokens', 'latency', 'mean latency', 'cost']
      .map(function (x) { return h('th', null, x); }))), tb));
  }

  // ---------- one question ----------
  function previewTable(p) {
    if (!p) return h('p', { class: 'muted' }, 'no result preview');
    if (p.error) return h('p', { class: 'warn' }, 'execution: ' + p.error);
    var t = h('table', { class: 'preview' }, h('thead', null, h('tr', null, (p.columns || []).map(function (c) { return h('th', null, c); }))));
    var tb = h('tbody');
    (p.rows || []).forEach(function (r) { add(tb, h('tr', null, r.map(function (v) { return h('td', null, v === null ? 'NULL' : String(v)); }))); });
    add(t, tb);
    return h('div', null, t, h('div', { class: 'muted' }, (p.rows || []).length + ' row(s)' + (p.truncated ? ' shown, more not shown' : '')));
  }
  function verdictBadge(it) {
    var v = it.verdict, cls, text;
    if (it.status === 'failed') { cls = 'bad'; text = 'failed: ' + (it.error_class || ''); }
    else if (!v) { cls = ''; text = it.status; }
    else if (v.correct) { cls = 'ok'; text = 'correct'; }
    else { cls = 'bad'; text = v.status === 'ok' ? 'wrong' : v.status; }
    return h('span', { class: 'badge ' + cls }, text);
  }
  function viewQuestion(n, f) {
    var row = IDX.questions[n];
    if (!row) { add(main, h('p', null, 'No question ' + n + '.')); return; }
    var nav = h('div', null,
      n > 0 ? h('a', { href: link(['q', n - 1], f) }, '← previous') : null, ' ',
      h('a', { href: link(['questions'], {}) }, 'all questions'), ' ',
      n + 1 < IDX.questions.length ? h('a', { href: link(['q', n + 1], f) }, 'next →') : null);
    add(main, nav);
    add(main, h('h2', null, 'Question ' + row.id + ' ', h('span', { class: 'muted' }, '(' + row.b + ', ' + row.db + (row.d ? ', ' + row.d : '') + ((row.rt || []).length ? ', ' + row.rt.join(', ') : '') + ')')));
    var body = h('div', { id: 'qbody' }, h('p', { class: 'muted' }, 'loading ' + dataFile('q/' + n) + ' …'));
    add(main, body);
    var t0 = performance.now();
    question(n, function (q) {
      clear(body);
      if (!q) { add(body, h('p', { class: 'warn' }, 'could not load ' + dataFile('q/' + n))); return; }
      renderQuestion(body, q, f);
      if (PERF) perf.last_question_ms = performance.now() - t0;
      body.setAttribute('data-ready', '1');
    });
  }
  function renderQuestion(body, q, f) {
    add(body, h('div', { class: 'card' }, h('div', { class: 'qtext', id: 'qtext' }, q.question || '(question text not available)'),
      q.evidence ? h('div', { class: 'muted' }, 'evidence: ', q.evidence) : null));
    add(body, h('h3', null, 'Gold'));
    if (q.gold) add(body, pre(q.gold.sql, 'sql gold'), previewTable(q.gold.preview));
    else add(body, h('p', { class: 'muted' }, 'gold SQL not available (benchmark not opened)'));
    var sel = f.trial !== undefined && f.trial !== '' ? parseInt(f.trial, 10) : (q.items.length ? q.items[0].t : -1);
    add(body, h('h3', null, 'Trials'));
    var tb = h('tbody');
    q.items.forEach(function (it) {
      add(tb, h('tr', { class: 'click' + (it.t === sel ? ' sel' : ''), onclick: function () { var g = Object.assign({}, f); g.trial = it.t; location.hash = link(['q', q.n], g); } },
        h('td', null, trialName(it.t)), h('td', null, verdictBadge(it)), h('td', { class: 'mono' }, short(it.sql, 140)),
        h('td', { class: 'num' }, ms(it.wall_ms)), h('td', { class: 'num' }, (it.calls || []).length)));
    });
    add(body, h('table', { id: 'items' }, h('thead', null, h('tr', null, ['trial', 'verdict', 'final SQL', 'wall', 'calls'].map(function (x) { return h('th', null, x); }))), tb));
    var tabs = h('div', { class: 'tabs' });
    q.items.forEach(function (it) {
      var row = IDX.questions[q.n];
      add(tabs, h('button', { class: it.t === sel ? 'sel' : '', onclick: function () { var g = Object.assign({}, f); g.trial = it.t; location.hash = link(['q', q.n], g); } },
        trialName(it.t), oc(row.o[it.t])));
    });
    add(body, tabs);
    var it = itemOf(q, sel);
    if (it) add(body, renderItem(q, it, f));
  }
  function renderItem(q, it, f) {
    var box = h('div', { class: 'card', id: 'item' });
    var t = IDX.trials[it.t];
    add(box, h('h3', null, t.label + ' ', verdictBadge(it)));
    var v = it.verdict || {};
    add(box, kv([['runner', t.runner], ['status', it.status], ['verdict status', v.status], ['error', v.error || it.error], ['error class', it.error_class],
      ['note', it.note], ['gold flags', (v.gold_flags || []).join(', ')], ['prediction time', v.pred_ms !== undefined ? ms(v.pred_ms) : ''],
      ['wall time', ms(it.wall_ms)], ['attempts', it.attempts]]));
    add(box, h('h3', null, 'Final SQL'), pre(it.sql || '(no SQL)', 'sql final'), previewTable(it.preview));
    if ((it.candidates || []).length > 1 || ((it.candidates || [])[0] || {}).parts) add(box, details('candidates (' + it.candidates.length + ')', function () { return candidates(it.candidates, it.sql); }));
    var tr = it.trace || {};
    var d = tr.data || {};
    var steps = tr.steps || [];
    if (d.tree && d.tree.nodes) add(box, h('h3', null, 'MCTS tree'), mctsTree(d, it, steps));
    if (d.trajectories) add(box, h('h3', null, 'IESR discriminator and scores'), iesrTable(d, steps));
    if (d.scaffold || steps.some(function (s) { return s.action === 'navigate' || s.action === 'validate'; })) add(box, h('h3', null, 'SteinerSQL'), steiner(q, d, steps, tr.counters || {}));
    if (steps.some(function (s) { return s.action === 'turn'; })) add(box, h('h3', null, 'ReAct turns'), react(it, steps));
    add(box, h('h3', null, 'Model calls'), modelCalls(q, it, steps, f || {}));
    if (tr.counters) add(box, details('counters', function () {
      return kv(Object.keys(tr.counters).sort().map(function (k) { return [k, num(tr.counters[k])]; }));
    }));
    add(box, details('all trace steps (' + steps.length + ')', function () { return stepList(steps); }));
    add(box, details('raw trace JSON', function () { return pre(JSON.stringify(tr, null, 1)); }));
    return box;
  }
  function candidates(cs, finalSQL) {
    var keys = {};
    cs.forEach(function (c) { Object.keys(c.parts || {}).forEach(function (k) { keys[k] = true; }); });
    keys = Object.keys(keys).sort();
    var tb = h('tbody');
    cs.forEach(function (c) {
      add(tb, h('tr', { class: c.sql === finalSQL ? 'chosen' : '' }, h('td', { class: 'mono' }, c.sql), h('td', { class: 'num' }, num(c.score)),
        keys.map(function (k) { return h('td', { class: 'num' }, c.parts && k in c.parts ? num(c.parts[k]) : ''); }), h('td', { class: 'mono' }, c.group || '')));
    });
    return h('table', null, h('thead', null, h('tr', null, h('th', null, 'SQL'), h('th', null, 'score'), keys.map(function (k) { return h('th', null, k); }), h('th', null, 'group'))), tb);
  }

  // MCTS tree: nodes are rendered when their parent is opened; the chosen
  // path is open and highlighted.
  function mctsTree(d, it, steps) {
    var nodes = d.tree.nodes, byId = {};
    nodes.forEach(function (n) { byId[n.id] = n; });
    var chosen = {}, why = '';
    var sel = steps.filter(function (s) { return s.action === 'select'; })[0];
    var targets = [];
    if (sel && sel.info && typeof sel.info.chosen_node === 'number') { targets = [sel.info.chosen_node]; why = 'node ' + sel.info.chosen_node + ' (chosen by the selection)'; }
    else {
      nodes.forEach(function (n) { if (n.terminal && n.visits > 0 && n.info && n.info.sql === it.sql) targets.push(n.id); });
      why = targets.length + ' visited terminal(s) whose SQL is the final SQL';
    }
    targets.forEach(function (id) { var n = byId[id]; while (n) { chosen[n.id] = true; n = n.parent >= 0 ? byId[n.parent] : null; } });
    var s = d.tree_summary || {};
    var box = h('div', { class: 'tree', id: 'mcts' });
    add(box, h('p', { class: 'muted' }, nodes.length + ' nodes, ' + (d.tree.rollouts || 0) + ' rollouts, ' + (s.terminals || 0) + ' terminals reached, depth ' + (s.max_depth || 0) +
      '; highlighted: the path to ' + why + '. Q is the sum of rewards backed up, N the visits.'));
    if (d.tree.pruned && d.tree.pruned.length) add(box, h('p', { class: 'warn' }, 'pruned: ' + d.tree.pruned.map(function (p) { return 'node ' + p.node + ' ' + (p.action || 'reward') + ': ' + p.error; }).join('; ')));
    var expandAll = h('button', null, 'expand all');
    add(box, expandAll);
    function nodeLi(n) {
      var li = h('li');
      var kids = n.children || [];
      var open = !!chosen[n.id];
      var tog = h('span', { class: 'tog' }, kids.length ? (open ? '▾' : '▸') : '·');
      var line = h('div', { class: 'node' + (chosen[n.id] ? ' chosen' : '') + (n.dead ? ' dead' : ''), 'data-id': n.id },
        tog, h('span', { class: 'act' }, n.action),
        h('span', { class: 'qn' }, 'Q=' + num(n.value, 2) + ' N=' + n.visits + (n.visits ? ' Q/N=' + num(n.value / n.visits, 2) : '')),
        n.scored ? h('span', { class: 'badge' }, 'reward ' + num(n.reward, 2)) : null,
        n.terminal ? h('span', { class: 'badge ok' }, 'terminal') : null,
        n.dead ? h('span', { class: 'badge bad' }, 'dead') : null,
        h('span', { class: 'txt' }, short(String(n.action === 'ROOT' ? '' : (n.info && n.info.sql) || n.text || '').replace(/\s+/g, ' '), 150)));
      add(li, line);
      var ul = null;
      function openKids() {
        if (!ul) { ul = h('ul'); kids.forEach(function (c) { if (byId[c]) add(ul, nodeLi(byId[c])); }); add(li, ul); }
        ul.style.display = '';
        tog.textContent = '▾';
      }
      tog.addEventListener('click', function () {
        if (!kids.length) return;
        if (ul && ul.style.display !== 'none') { ul.style.display = 'none'; tog.textContent = '▸'; } else openKids();
      });
      var full = null;
      line.addEventListener('dblclick', function () {
        if (full) { li.removeChild(full); full = null; return; }
        full = pre(n.text || '');
        li.insertBefore(full, ul);
      });
      li.openAll = function () { if (kids.length) { openKids(); Array.prototype.forEach.call(ul.children, function (c) { c.openAll && c.openAll(); }); } };
      if (open && kids.length) openKids();
      return li;
    }
    var root = h('ul');
    var rli = nodeLi(nodes[0]);
    add(root, rli);
    expandAll.addEventListener('click', function () { rli.openAll(); });
    add(box, root);
    add(box, h('p', { class: 'muted' }, 'Click ▸ to open a node, double-click a node for its full text.'));
    return box;
  }

  function iesrTable(d, steps) {
    var w = (d.config && d.config.weights) || [0.4, 0.2, 0.4];
    var sel = steps.filter(function (s) { return s.action === 'select'; })[0];
    var chosenNode = sel && sel.info ? sel.info.chosen_node : undefined;
    var disc = {};
    steps.forEach(function (s) { if (s.action === 'discriminate' && s.info) (disc[s.info.trajectory] = disc[s.info.trajectory] || []).push(s); });
    var box = h('div', { id: 'iesr' });
    add(box, h('p', { class: 'muted' }, 'score = ' + w[0] + '·exec + ' + w[1] + '·disc_conf + ' + w[2] + '·cons_vote (IESR\u2019s selection score, weights of the trial); ',
      h('span', { class: 'badge', style: 'background:#2563eb;color:#fff' }, 'exec'), h('span', { class: 'badge', style: 'background:#f59e0b' }, 'disc_conf'),
      h('span', { class: 'badge', style: 'background:#10b981;color:#fff' }, 'cons_vote')));
    var tb = h('tbody');
    d.trajectories.forEach(function (t) {
      var parts = [w[0] * (t.exec || 0), w[1] * (t.disc_conf || 0), w[2] * (t.cons_vote || 0)];
      var stack = h('span', { class: 'stack', title: parts.map(function (x) { return num(x); }).join(' + ') },
        h('span', { class: 'part-exec', style: 'width:' + (100 * parts[0]).toFixed(1) + '%' }),
        h('span', { class: 'part-disc', style: 'width:' + (100 * parts[1]).toFixed(1) + '%' }),
        h('span', { class: 'part-cons', style: 'width:' + (100 * parts[2]).toFixed(1) + '%' }));
      var ds = disc[t.node] || [];
      add(tb, h('tr', { class: t.node === chosenNode ? 'chosen' : '' },
        h('td', { class: 'num' }, t.node), h('td', { class: 'mono' }, (t.actions || []).join(' → ')), h('td', { class: 'mono' }, short(t.sql, 120)),
        h('td', { class: 'num' }, num(t.reward, 2)), h('td', null, t.kept ? 'kept' : 'dropped'),
        h('td', { class: 'mono' }, (t.prefixes || []).join(' ')), h('td', { class: 'num' }, (t.agree || 0) + '/' + (t.completions || 0)),
        h('td', { class: 'num' }, num(t.exec, 2)), h('td', { class: 'num' }, num(t.disc_conf, 2)), h('td', { class: 'num' }, num(t.cons_vote, 2)),
        h('td', { class: 'num' }, num(t.score, 3)), h('td', null, stack),
        h('td', null, ds.length ? details(ds.length + ' prefixes', function () {
          return ds.map(function (s) {
            var i = s.info;
            return h('div', { class: 'turn' + (i.agree ? '' : ' err') }, h('div', null, 'cut ' + pct(i.cut) + ': ' + i.kept_steps + ' of ' + i.of_steps + ' steps kept; ' + (i.agree ? 'agrees' : 'disagrees') + ' with the trajectory'), pre(s.output));
          });
        }) : '')));
    });
    add(box, h('table', null, h('thead', null, h('tr', null, ['node', 'actions', 'SQL', 'reward', 'keep rule', 'prefixes (steps)', 'agree', 'exec', 'disc_conf', 'cons_vote', 'score', 'parts', 'discriminator'].map(function (x) { return h('th', null, x); }))), tb));
    if (d.semantic_state) add(box, details('semantic state (understanding stage)', function () { return pre(JSON.stringify(d.semantic_state, null, 1)); }));
    if (d.linking) add(box, details('schema linking', function () { return pre(JSON.stringify(d.linking, null, 1)); }));
    return box;
  }

  function steiner(q, d, steps, counters) {
    var box = h('div', { id: 'steiner' });
    // One scaffold per iteration (navigate steps); the final one is
    // drawn first.
    var scs = steps.filter(function (s) { return s.action === 'navigate' && s.info && s.info.scaffold; });
    var holder = h('div');
    var buttons = h('div', { class: 'tabs' });
    function show(k) {
      clear(holder);
      add(holder, steinerGraph(q, d, k < 0 ? d.scaffold : scs[k].info.scaffold));
      Array.prototype.forEach.call(buttons.children, function (b, j) { b.className = j === k ? 'sel' : ''; });
    }
    if (scs.length > 1) {
      scs.forEach(function (s, k) { add(buttons, h('button', { onclick: function () { show(k); } }, 'iteration ' + (s.info.iteration || k + 1))); });
      add(box, h('span', { class: 'muted' }, 'Steiner tree of '), buttons);
    }
    add(box, holder);
    show(d.scaffold ? (scs.length ? scs.length - 1 : -1) : scs.length - 1);
    return steinerValidation(box, d, steps, counters);
  }
  function steinerGraph(q, d, sc) {
    var box = h('div');
    var terms = {}, inTree = {}, treeEdges = {};
    ((sc && sc.terminals) || []).forEach(function (t) { terms[t.toLowerCase()] = true; });
    ((sc && sc.tables) || []).forEach(function (t) { inTree[t.toLowerCase()] = true; });
    ((sc && sc.edges) || []).forEach(function (e) { treeEdges[[e.a.toLowerCase(), e.b.toLowerCase()].sort().join('\u0000')] = e; });
    var tables = q.schema ? q.schema.tables.map(function (t) { return t.name; }) : Object.keys(inTree);
    var edges = [];
    var seen = {};
    (q.schema ? q.schema.fks : []).forEach(function (fk) {
      var k = [fk[0].toLowerCase(), fk[2].toLowerCase()].sort().join('\u0000');
      if (!seen[k]) { seen[k] = true; edges.push({ a: fk[0], b: fk[2], label: fk[1] + ' = ' + fk[3], k: k }); }
    });
    Object.keys(treeEdges).forEach(function (k) { if (!seen[k]) { var e = treeEdges[k]; seen[k] = true; edges.push({ a: e.a, b: e.b, label: e.col_a + ' = ' + e.col_b, k: k }); } });
    var W = 720, H = Math.max(340, Math.min(560, 120 + tables.length * 18)), cx = W / 2, cy = H / 2, R = Math.min(W, H) / 2 - 50;
    var pos = {};
    tables.forEach(function (t, i) {
      var ang = -Math.PI / 2 + 2 * Math.PI * i / Math.max(1, tables.length);
      pos[t.toLowerCase()] = [cx + R * Math.cos(ang), cy + R * Math.sin(ang)];
    });
    var g = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, id: 'steiner-svg', role: 'img' });
    add(g, svg('title', {}, 'schema graph: Steiner tree edges thick, terminals filled'));
    edges.forEach(function (e) {
      var p = pos[e.a.toLowerCase()], r = pos[e.b.toLowerCase()];
      if (!p || !r) return;
      var on = !!treeEdges[e.k];
      var line = svg('line', { x1: p[0], y1: p[1], x2: r[0], y2: r[1], stroke: on ? '#dc2626' : '#cbd5e1', 'stroke-width': on ? 4 : 1.5, class: on ? 'tree-edge' : 'fk-edge' },
        svg('title', {}, e.a + ' — ' + e.b + ': ' + e.label + (on && treeEdges[e.k].cost !== undefined ? ' (cost ' + num(treeEdges[e.k].cost) + ')' : '')));
      add(g, line);
    });
    tables.forEach(function (t) {
      var p = pos[t.toLowerCase()], isT = terms[t.toLowerCase()], inT = inTree[t.toLowerCase()];
      add(g, svg('circle', { cx: p[0], cy: p[1], r: isT ? 9 : 7, fill: isT ? '#dc2626' : (inT ? '#fca5a5' : '#fff'), stroke: inT ? '#991b1b' : '#64748b', 'stroke-width': 1.5, class: isT ? 'terminal' : (inT ? 'steiner-point' : 'table') }));
      var right = p[0] >= cx;
      add(g, svg('text', { x: p[0] + (right ? 12 : -12), y: p[1] + 4, 'text-anchor': right ? 'start' : 'end', 'font-weight': inT ? 700 : 400 }, t));
    });
    add(box, g);
    add(box, h('p', { class: 'muted' }, 'Red: terminals; pink: Steiner points; thick red: the Steiner tree' + (sc ? ' (cost ' + num(sc.cost) + ', ' + (sc.algorithm || '') + ')' : '') +
      '; grey: foreign keys of the schema. ' + (q.schema ? '' : 'The database schema was not available: only the tree is drawn. ') +
      'The graph\u2019s similarity edges are not stored in the trace' + (d.graph ? ' (it had ' + d.graph.tables + ' tables, ' + d.graph.edges + ' edges, semantic ' + d.graph.semantic + ')' : '') + '.'));
    return box;
  }
  function steinerValidation(box, d, steps, counters) {
    var vt = h('tbody');
    steps.forEach(function (s) {
      if (s.action !== 'validate' && s.action !== 'replan') return;
      var i = s.info || {};
      var levels = {};
      (i.reasons || []).forEach(function (r) { var m = /^L(\d)/.exec(r); if (m) levels['L' + m[1]] = true; });
      add(vt, h('tr', null, h('td', { class: 'num' }, i.iteration), h('td', null, s.action),
        h('td', null, s.action === 'validate' ? (i.pass ? h('span', { class: 'badge ok' }, 'pass') : h('span', { class: 'badge bad' }, 'fail')) : (i.change || '')),
        h('td', null, Object.keys(levels).sort().map(function (l) { return h('span', { class: 'badge lv' }, l); })),
        h('td', null, (i.reasons || []).join('\n') || (i.terminals ? 'terminals: ' + i.terminals.join(', ') : ''))));
    });
    add(box, h('h3', null, 'Validation'));
    add(box, h('table', { id: 'validation' }, h('thead', null, h('tr', null, ['iteration', 'step', 'result', 'levels fired', 'reasons'].map(function (x) { return h('th', null, x); }))), vt));
    var lv = Object.keys(counters).filter(function (k) { return /^validation\./.test(k); }).sort();
    if (lv.length) add(box, h('p', { class: 'muted' }, 'counters: ' + lv.map(function (k) { return k + '=' + num(counters[k]); }).join(', ')));
    if (d.decomposition) add(box, details('decomposition', function () { return pre(JSON.stringify(d.decomposition, null, 1)); }));
    return box;
  }

  function react(it, steps) {
    var box = h('div', { id: 'react' });
    add(box, h('div', null, 'compiled SQL of the answer:'), pre(it.sql || '(none)', 'sql'));
    steps.forEach(function (s) {
      var i = s.info || {};
      if (s.action === 'model_error') { add(box, h('div', { class: 'turn err' }, h('b', null, 'turn ' + i.turn + ': model error'), pre(i.error))); return; }
      if (s.action !== 'turn' && s.action !== 'generate') return;
      var obs = String(i.observation || '');
      var obsEl = h('pre', { class: 'obs' });
      obs.split('\n').forEach(function (line, k) {
        if (k) obsEl.appendChild(document.createTextNode('\n'));
        var err = /error|unknown|not found|ignored|cut at/i.test(line);
        obsEl.appendChild(err ? h('span', { class: 'obs-err' }, line) : document.createTextNode(line));
      });
      var hasErr = /error/i.test(obs);
      add(box, h('div', { class: 'turn' + (hasErr ? ' err' : ''), 'data-turn': i.turn },
        h('b', null, 'turn ' + (i.turn || '')), ' ',
        i.calls !== undefined ? h('span', { class: 'badge' }, i.calls + ' calls') : null,
        i.final ? h('span', { class: 'badge ok' }, 'answer ' + (i.final === true ? '' : i.final)) : null,
        i.finish_reason ? h('span', { class: 'badge' + (i.finish_reason === 'length' ? ' bad' : '') }, 'finish: ' + i.finish_reason) : null,
        hasErr ? h('span', { class: 'badge bad' }, 'errors') : null,
        h('div', { class: 'muted' }, 'model:'), pre(s.output),
        i.reasoning ? details('reasoning', function () { return pre(i.reasoning); }) : null,
        (i.compiled_sql || []).length ? [h('div', { class: 'muted' }, 'compiled SQL of the executed calls:'), i.compiled_sql.map(function (q) { return pre(q, 'sql compiled'); })] : null,
        obs ? [h('div', { class: 'muted' }, 'observation:'), obsEl] : null));
    });
    return box;
  }

  // Model calls of an item: the call log's rows with, from the run's
  // model cache, each call's messages and every sample's answer,
  // reasoning and finish reason (a sample cut at the token limit is
  // marked). Calls are rendered when opened.
  function bytes(n) { return n >= 1024 ? (n / 1024).toFixed(1) + ' KB' : n + ' B'; }
  function finishBadge(f) {
    if (!f) return null;
    var cut = f === 'length';
    return h('span', { class: 'badge finish' + (cut ? ' bad cut' : ''), title: cut ? 'the answer was cut at the token limit' : '' }, 'finish: ' + f + (cut ? ' (cut)' : ''));
  }
  // cutNote marks a text the question file holds cut (full: its length
  // in bytes, set only when cut).
  function cutNote(full) {
    return full ? h('div', { class: 'warn truncated' }, 'truncated: the start shown, ' + bytes(full) + ' in full') : null;
  }
  function message(q, m, open) {
    var text = (m.parts || []).map(function (i) { return (q.texts || [])[i] || ''; }).join('\n\n');
    var first = text.replace(/\s+/g, ' ');
    return details(h('span', null, h('span', { class: 'badge role role-' + m.role }, m.role), ' ', h('span', { class: 'muted' }, bytes(m.len) + (m.cut ? ' (truncated)' : '') + ': ' + short(first, 110))),
      function () { return h('div', { class: 'msg', 'data-role': m.role }, pre(text, 'msg-text'), cutNote(m.cut ? m.len : 0)); }, open);
  }
  function sample(s, k, n) {
    var box = h('div', { class: 'sample' + (s.finish === 'length' ? ' cut' : ''), 'data-sample': k });
    if (!s.found) { add(box, h('div', { class: 'muted' }, 'sample ' + (k + 1) + ': not in the model cache')); return box; }
    add(box, h('div', null, n > 1 ? h('b', null, 'sample ' + (k + 1) + ' ') : null, finishBadge(s.finish),
      h('span', { class: 'muted' }, ' ' + fmt(s.completion_tokens) + ' completion tokens, ' + ms(s.latency_ms))));
    add(box, pre(s.answer, 'answer'), cutNote(s.answer_len));
    if (s.reasoning) add(box, details('reasoning (' + bytes(s.reasoning_len || s.reasoning.length) + ')', function () { return [pre(s.reasoning, 'reasoning'), cutNote(s.reasoning_len)]; }));
    return box;
  }
  function callBox(q, c, k, open, openMsgs) {
    var cut = (c.samples || []).some(function (s) { return s.finish === 'length'; });
    var head = h('span', null, h('b', null, '#' + (k + 1) + ' '), h('span', { class: 'badge' }, c.role || '?'),
      c.n > 1 ? h('span', { class: 'badge' }, c.n + ' samples') : null,
      c.cached ? h('span', { class: 'badge ok cache-hit' }, 'cache hit') : h('span', { class: 'badge cache-miss' }, c.sent ? 'sent, no answer recorded' : 'model call'),
      cut ? h('span', { class: 'badge bad cut' }, 'cut') : null,
      c.error ? h('span', { class: 'badge bad' }, 'error') : null,
      h('span', { class: 'muted' }, ' ' + fmt(c.prompt_tokens) + ' + ' + fmt(c.completion_tokens) + ' tokens, ' + ms(c.latency_ms) +
        (c.model ? ', ' + c.model : '') + (c.temperature !== undefined ? ', T=' + c.temperature : '') + (c.max_tokens ? ', max_tokens ' + c.max_tokens : '')));
    var d = details(head, function () {
      var box = h('div', { class: 'call-body' });
      if (c.error) add(box, h('div', { class: 'warn' }, 'error: ' + c.error));
      if (c.missing) add(box, h('div', { class: 'muted missing' }, c.missing));
      if ((c.messages || []).length) add(box, h('div', { class: 'msgs' }, h('div', { class: 'muted' }, 'messages (' + c.messages.length + '):'), c.messages.map(function (m) { return message(q, m, openMsgs); })));
      var ss = c.samples || [];
      if (ss.length) add(box, h('div', { class: 'muted' }, ss.length > 1 ? 'answers:' : 'answer:'), ss.map(function (s, j) { return sample(s, j, ss.length); }));
      return box;
    }, open);
    d.className = 'call' + (cut ? ' cut' : '');
    d.setAttribute('data-call', k);
    return d;
  }
  // f.calls === 'all' (#/q/N?calls=all) opens every call and message.
  function modelCalls(q, it, steps, f) {
    var all = f.calls === 'all';
    var box = h('div', { id: 'modelcalls' });
    var calls = it.calls || [];
    var kept = calls.filter(function (c) { return (c.messages || []).length || (c.samples || []).length; }).length;
    add(box, h('p', { class: 'muted' }, calls.length + ' call(s) in the call log, ' + kept + ' with messages or answers from the model cache. ' +
      'Open a call for its messages and answers; long texts are cut at 64 KB of messages per call and 16 KB per answer.'));
    if (calls.length && !all) {
      add(box, h('a', { href: link(['q', q.n], Object.assign({}, f, { trial: it.t, calls: 'all' })), id: 'open-calls' }, 'open every call and message'));
    }
    var list = h('div', { class: 'calls' });
    var shown = 0, PAGEC = 100;
    var more = h('button', null, '');
    function page() {
      var end = Math.min(calls.length, shown + PAGEC);
      for (var k = shown; k < end; k++) add(list, callBox(q, calls[k], k, all || calls.length <= 3, all));
      shown = end;
      more.textContent = 'Show ' + Math.min(PAGEC, calls.length - shown) + ' more calls (' + (calls.length - shown) + ' left)';
      more.style.display = shown < calls.length ? '' : 'none';
    }
    more.addEventListener('click', page);
    page();
    add(box, list, more);
    var ex = steps.filter(function (s) { return s.role; });
    if (ex.length) add(box, details('model exchanges kept in the trace (' + ex.length + ')', function () {
      return ex.map(function (s) {
        var i = s.info || {};
        return h('div', { class: 'turn' }, h('b', null, s.action), ' ', h('span', { class: 'badge' }, s.role),
          finishBadge(i.finish_reason),
          s.input ? details('messages (prompt)', function () { return pre(s.input); }) : null,
          h('div', { class: 'muted' }, 'answer:'), pre(s.output),
          i.reasoning ? details('reasoning', function () { return pre(i.reasoning); }) : null);
      });
    }, false));
    return box;
  }

  function stepList(steps) {
    return steps.map(function (s, k) {
      var info = s.info ? JSON.stringify(s.info, null, 1) : '';
      return h('div', { class: 'turn' }, h('b', null, (k + 1) + '. ' + s.action), s.role ? ' ' : null, s.role ? h('span', { class: 'badge' }, s.role) : null,
        s.input ? details('input', function () { return pre(s.input); }) : null,
        s.output ? pre(s.output) : null, info && info !== '{}' ? details('info', function () { return pre(info); }) : null);
    });
  }

  // ---------- performance probe (?perf=1) ----------
  // Times each view with the browser's clock and writes the figures into
  // <pre id="perf">, for the tests to read with --dump-dom.
  function runPerf() {
    function time(f) { var t = performance.now(); f(); return performance.now() - t; }
    perf.open_ms = performance.now();
    var nav = performance.getEntriesByType && performance.getEntriesByType('navigation')[0];
    if (nav) perf.dom_content_loaded_ms = nav.domContentLoadedEventEnd || null;
    perf.questions_ms = time(function () { location.hash = '#/questions'; route(); });
    perf.filter_ms = time(function () { location.hash = link(['questions'], { trial: 0, outcome: 'wrong' }); route(); });
    perf.filter_rows = document.querySelectorAll('#questions tbody tr').length;
    perf.disagree_ms = time(function () { location.hash = link(['disagree'], { a: 0, b: IDX.trials.length > 1 ? 1 : 0 }); route(); });
    perf.overview_again_ms = time(function () { location.hash = '#/overview'; route(); });
    var t = performance.now();
    location.hash = '#/q/0';
    route();
    question(0, function () {
      perf.question_ms = performance.now() - t;
      perf.questions = IDX.questions.length;
      perf.trials = IDX.trials.length;
      add(document.body, h('pre', { id: 'perf' }, JSON.stringify(perf)));
    });
  }

  load('index', T2S.index, function () {
    var l = document.getElementById('loading');
    if (l) l.textContent = 'Could not load ' + dataFile('index') + ': open the viewer from its folder (t2sbench view RUN, or report/view/index.html).';
  });
})();
