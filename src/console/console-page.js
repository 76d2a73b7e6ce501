// The console page's script (plain browser JavaScript, served as /static/console.js). It reads the
// session (role, mode), then renders every `snapshot` of the /api/events stream. Every value from the
// server is put in the page as text (textContent), never as markup. Control actions go through an
// in-page confirmation, then POST /api/control with the CSRF header.
//
// For tests and monitors the body carries: data-status (loading | ok | error), data-fills (fill rows
// shown), data-orders, data-trading-state, data-link (open | reconnecting), data-role.
(function () {
  'use strict';

  var body = document.body;
  var role = 'read';
  var mode = 'paper';
  var pending = null;
  var equityChart = null;
  var equitySeries = null;
  var lastEquityLength = -1;

  function $(id) {
    return document.getElementById(id);
  }

  function fail(message) {
    body.dataset.status = 'error';
    var box = $('c-error');
    box.textContent = message;
    box.hidden = false;
  }

  window.addEventListener('error', function (e) {
    fail(String(e.message || e));
  });
  window.addEventListener('unhandledrejection', function (e) {
    fail(String(e.reason));
  });

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function pad(n) {
    return (n < 10 ? '0' : '') + n;
  }

  function time(ms) {
    if (ms === null || ms === undefined) return '—';
    var d = new Date(ms);
    return (
      d.getUTCFullYear() +
      '-' +
      pad(d.getUTCMonth() + 1) +
      '-' +
      pad(d.getUTCDate()) +
      ' ' +
      pad(d.getUTCHours()) +
      ':' +
      pad(d.getUTCMinutes()) +
      ':' +
      pad(d.getUTCSeconds())
    );
  }

  function signClass(s) {
    return typeof s === 'string' && s.charAt(0) === '-' ? 'neg' : s === '0' ? '' : 'pos';
  }

  function table(id, columns, rows, rowClass) {
    var t = $(id);
    t.textContent = '';
    var head = el('tr');
    columns.forEach(function (c) {
      head.appendChild(el('th', c.num ? 'num' : '', c.title));
    });
    t.appendChild(head);
    rows.forEach(function (r) {
      var tr = el('tr', rowClass || '');
      if (r && r.tradeId) tr.dataset.tradeId = r.tradeId;
      columns.forEach(function (c) {
        var cell = c.cell ? c.cell(r) : r[c.key];
        if (cell instanceof Node) {
          var td = el('td', c.num ? 'num' : '');
          td.appendChild(cell);
          tr.appendChild(td);
        } else
          tr.appendChild(
            el('td', c.num ? 'num ' + (c.signed ? signClass(cell) : '') : '', cell === null ? '—' : cell),
          );
      });
      t.appendChild(tr);
    });
    if (rows.length === 0) {
      var empty = el('tr');
      var td = el('td', 'note', 'none');
      td.colSpan = columns.length;
      empty.appendChild(td);
      t.appendChild(empty);
    }
  }

  function kpi(label, value, signed) {
    var box = el('div', 'kpi');
    box.appendChild(el('div', 'label', label));
    box.appendChild(el('div', 'value ' + (signed ? signClass(value) : ''), value));
    return box;
  }

  function ask(text, action, withReason) {
    pending = action;
    $('c-confirm-text').textContent = text;
    $('c-reason-box').hidden = !withReason;
    $('c-confirm').hidden = false;
  }

  function actionButton(label, text, action) {
    var b = el('button', action.action === 'kill' ? 'danger' : '', label);
    b.type = 'button';
    b.dataset.action = action.action;
    if (action.strategy) b.dataset.strategy = action.strategy;
    b.addEventListener('click', function () {
      ask(text, action, false);
    });
    return b;
  }

  function send(action) {
    return fetch('/api/control', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Capibot-Console': '1' },
      body: JSON.stringify(action),
    }).then(function (res) {
      return res.json().then(function (answer) {
        if (!res.ok) throw new Error('refused (' + res.status + '): ' + (answer.error || ''));
        body.dataset.lastAction = action.action;
      });
    });
  }

  $('c-confirm-yes').addEventListener('click', function () {
    var action = pending;
    pending = null;
    $('c-confirm').hidden = true;
    if (!action) return;
    if (action.action === 'kill') action.reason = $('c-reason').value.slice(0, 200);
    send(action).catch(function (e) {
      var box = $('c-error');
      box.textContent = String(e.message || e);
      box.hidden = false;
    });
  });
  $('c-confirm-no').addEventListener('click', function () {
    pending = null;
    $('c-confirm').hidden = true;
  });
  $('c-kill').addEventListener('click', function () {
    ask(
      'Engage the kill switch? Trading becomes HALTED (only cancels pass) and every open order is canceled. ' +
        'It stays HALTED across restarts until `capibot kill --reset` with the runner stopped.',
      { action: 'kill', confirm: 'KILL' },
      true,
    );
  });

  function drawEquity(s) {
    var LWC = window.LightweightCharts;
    if (!LWC || typeof LWC.createChart !== 'function') throw new Error('the chart library did not load');
    $('c-equity-title').textContent = s.equityLabel;
    if (equityChart === null) {
      equityChart = LWC.createChart($('c-equity'), {
        autoSize: true,
        layout: { background: { color: '#ffffff' }, textColor: '#222222' },
        timeScale: { timeVisible: true, secondsVisible: true },
        rightPriceScale: { borderVisible: false },
        grid: { vertLines: { color: '#eeeeee' }, horzLines: { color: '#eeeeee' } },
      });
      equitySeries = equityChart.addSeries(LWC.LineSeries, { color: '#1565c0', lineWidth: 2 });
    }
    if (s.equity.length === lastEquityLength && s.mode !== 'backtest') return;
    lastEquityLength = s.equity.length;
    // One point per second, strictly increasing (the chart's rule); the last sample of a second wins.
    var points = [];
    s.equity.forEach(function (p) {
      var t = Math.floor(p.t / 1000);
      var last = points[points.length - 1];
      if (last && last.time === t) last.value = p.v;
      else if (!last || last.time < t) points.push({ time: t, value: p.v });
    });
    equitySeries.setData(points);
    equityChart.timeScale().fitContent();
  }

  function render(s) {
    $('c-title').textContent = s.title;
    $('c-mode').textContent = s.mode === 'backtest' ? 'finished backtest (read-only)' : s.mode;
    var st = $('c-state');
    st.textContent = s.tradingState;
    st.className = 'badge state-' + s.tradingState;
    body.dataset.tradingState = s.tradingState;
    var canAct = role === 'control' && s.mode !== 'backtest';
    $('c-controls').hidden = !canAct;

    var k = $('c-kpis');
    k.textContent = '';
    k.appendChild(kpi('Net PnL', s.pnl.net, true));
    k.appendChild(kpi('Realized', s.pnl.realized, true));
    k.appendChild(kpi('Unrealized', s.pnl.unrealized, true));
    k.appendChild(kpi('Fees', s.pnl.fees, false));
    k.appendChild(kpi('Open orders', String(s.openOrders.length), false));
    k.appendChild(kpi('As of', time(s.at), false));

    table(
      'c-strategies',
      [
        { title: 'Strategy', key: 'id' },
        {
          title: 'Kind',
          cell: function (r) {
            return r.name + ' ' + r.version;
          },
        },
        {
          title: 'State',
          cell: function (r) {
            if (r.state === 'paused' && r.droppedWhilePaused > 0)
              return 'paused (' + r.droppedWhilePaused + ' placement(s) dropped)';
            return r.state + (r.disabledReason ? ': ' + r.disabledReason : '');
          },
        },
        {
          title: 'Position',
          cell: function (r) {
            return r.positions.length === 0
              ? 'flat'
              : r.positions
                  .map(function (p) {
                    return p.symbol + ' ' + p.leg + ' ' + p.qty + ' @ ' + (p.avgEntry || '—');
                  })
                  .join('; ');
          },
        },
        { title: 'Realized', key: 'realizedPnl', num: true, signed: true },
        { title: 'Fees', key: 'fees', num: true },
        {
          title: '',
          cell: function (r) {
            if (!canAct || r.state === 'disabled') return '';
            return r.state === 'paused'
              ? actionButton('Resume', 'Resume strategy ' + r.id + '? Its opening placements pass again.', {
                  action: 'resume',
                  strategy: r.id,
                })
              : actionButton(
                  'Pause',
                  'Pause strategy ' +
                    r.id +
                    '? Its new entries (opening placements) are dropped until resumed; its exits, stops and cancels still pass.',
                  { action: 'pause', strategy: r.id },
                );
          },
        },
      ],
      s.strategies,
    );

    table(
      'c-orders',
      [
        { title: 'Strategy', key: 'strategy' },
        { title: 'Symbol', key: 'symbol' },
        { title: 'Side', key: 'side' },
        {
          title: 'Price',
          cell: function (r) {
            return r.price === null ? 'market' : r.price;
          },
          num: true,
        },
        { title: 'Trigger', key: 'triggerPrice', num: true },
        { title: 'Size', key: 'size', num: true },
        { title: 'Filled', key: 'filledQty', num: true },
        { title: 'Status', key: 'status' },
      ],
      s.openOrders,
    );
    body.dataset.orders = String(s.openOrders.length);

    table(
      'c-fills',
      [
        {
          title: 'Time',
          cell: function (r) {
            return time(r.at);
          },
        },
        { title: 'Strategy', key: 'strategy' },
        { title: 'Symbol', key: 'symbol' },
        { title: 'Side', key: 'side' },
        { title: 'Size', key: 'size', num: true },
        { title: 'Price', key: 'price', num: true },
        { title: 'Fee', key: 'fee', num: true },
        { title: 'PnL', key: 'realizedPnl', num: true, signed: true },
      ],
      s.fills,
      'fill',
    );
    body.dataset.fills = String(s.fills.length);

    var b = s.budget;
    var rows = [];
    if (b) {
      rows.push(['IP weight', b.ip.used + ' / ' + b.ip.limit]);
      rows.push(['UID weight', b.uid.used + ' / ' + b.uid.limit]);
      rows.push(['Orders / window', b.orderRate.used + ' / ' + b.orderRate.limit]);
      rows.push(['Back-off', b.backoffMs + ' ms']);
    }
    rows.push(['Last reconciliation (venue time)', time(s.reconcile.lastReconciledAt)]);
    rows.push(['Last full round (this run)', time(s.reconcile.lastRoundAt)]);
    rows.push(['Corrections / warnings', s.reconcile.corrections + ' / ' + s.reconcile.warnings]);
    table(
      'c-budget',
      [
        { title: 'What', key: 0 },
        { title: 'Value', key: 1 },
      ],
      rows,
    );

    var log = $('c-events');
    log.textContent = '';
    s.events.forEach(function (e) {
      var li = el('li', 'level-' + e.level);
      li.appendChild(el('span', 'when', time(e.at)));
      li.appendChild(el('span', 'what', e.text));
      log.appendChild(li);
    });

    drawEquity(s);
    body.dataset.status = 'ok';
  }

  function connect() {
    var source = new EventSource('/api/events');
    source.addEventListener('snapshot', function (e) {
      body.dataset.link = 'open';
      $('c-link').textContent = mode === 'backtest' ? 'loaded' : 'live';
      render(JSON.parse(e.data));
    });
    source.addEventListener('error', function () {
      body.dataset.link = 'reconnecting';
      $('c-link').textContent = 'reconnecting…';
      // A finished backtest does not change: one snapshot is enough.
      if (mode === 'backtest' && body.dataset.status === 'ok') source.close();
    });
  }

  fetch('/api/session')
    .then(function (res) {
      if (!res.ok) throw new Error('session refused (' + res.status + ')');
      return res.json();
    })
    .then(function (session) {
      role = session.role;
      mode = session.mode;
      body.dataset.role = role;
      $('c-role').textContent = role === 'control' ? 'control token' : 'read-only token';
      connect();
    })
    .catch(function (e) {
      fail(String(e.message || e));
    });
})();
