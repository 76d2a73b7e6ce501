// Browser side of report.html (a classic script, inlined after the chart library and the data tag).
// Everything dynamic is written with textContent, never innerHTML. When all charts are drawn it sets
// document.body.dataset.status = 'ok' and data-points = the number of points drawn; any error, here or
// later (window.onerror, unhandled rejections), sets 'error: <message>' instead, for headless checks.
(function () {
  'use strict';
  var body = document.body;

  function fail(message) {
    body.dataset.status = 'error: ' + message;
    var box = document.getElementById('report-error');
    if (box) {
      box.textContent = 'This report could not be drawn: ' + message;
      box.hidden = false;
    }
  }

  window.onerror = function (message, _source, _line, _column, error) {
    fail(String((error && error.message) || message));
  };
  window.addEventListener('unhandledrejection', function (event) {
    fail(String(event.reason));
  });

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function pairs(series) {
    var out = new Array(series.t.length);
    for (var i = 0; i < series.t.length; i++) out[i] = { time: series.t[i], value: series.v[i] };
    return out;
  }

  function renderRun(data) {
    var list = document.getElementById('report-run');
    var run = data.run;
    var rows = [
      ['Data', run.data],
      ['From', run.firstTickIso],
      ['To', run.lastTickIso],
      ['Ticker snapshots', String(run.tickers)],
    ];
    run.strategies.forEach(function (s) {
      rows.push(['Strategy ' + s.id, s.file + ' ' + JSON.stringify(s.params)]);
    });
    rows.forEach(function (row) {
      list.appendChild(el('dt', '', row[0]));
      list.appendChild(el('dd', '', row[1]));
    });
  }

  function renderSummary(rows) {
    var table = document.getElementById('report-summary');
    rows.forEach(function (row) {
      var tr = el('tr');
      tr.appendChild(el('th', '', row[0]));
      tr.appendChild(el('td', '', row[1]));
      table.appendChild(tr);
    });
  }

  function section(title, note) {
    var box = el('section', 'chart-section');
    box.appendChild(el('h2', '', title));
    if (note) box.appendChild(el('p', 'note', note));
    var holder = el('div', 'chart');
    box.appendChild(holder);
    document.getElementById('report-charts').appendChild(box);
    return holder;
  }

  function chart(holder, first) {
    var LWC = window.LightweightCharts;
    return LWC.createChart(holder, {
      autoSize: true,
      layout: { attributionLogo: first, background: { color: '#ffffff' }, textColor: '#222222' },
      // Let fitContent show the whole run however many points a series has.
      timeScale: { timeVisible: true, secondsVisible: false, minBarSpacing: 0.01 },
      rightPriceScale: { borderVisible: false },
      grid: { vertLines: { color: '#eeeeee' }, horzLines: { color: '#eeeeee' } },
    });
  }

  function main() {
    var LWC = window.LightweightCharts;
    if (!LWC || typeof LWC.createChart !== 'function') throw new Error('the chart library did not load');
    var data = JSON.parse(document.getElementById('report-data').textContent);
    renderRun(data);
    renderSummary(data.summaryRows);

    var points = 0;
    var first = true;
    data.charts.symbols.forEach(function (s) {
      var note = s.fills + ' fills';
      if (s.markers.length < s.fills) note += ' (' + s.markers.length + ' marked)';
      note += '; green ▲ buys (open long, close short), red ▼ sells (open short, close long).';
      var c = chart(section(s.symbol + ' last price', note), first);
      first = false;
      var minMove = Math.pow(10, -s.precision);
      var line = c.addSeries(LWC.LineSeries, {
        color: '#2962ff',
        lineWidth: 1,
        priceFormat: { type: 'price', precision: s.precision, minMove: minMove },
      });
      line.setData(pairs(s.line));
      points += s.line.t.length;
      var markers = s.markers.map(function (m) {
        return {
          time: m.t,
          position: 'atPriceMiddle',
          price: m.price,
          shape: m.buy ? 'arrowUp' : 'arrowDown',
          color: m.buy ? '#26a69a' : '#ef5350',
          text: m.text,
        };
      });
      LWC.createSeriesMarkers(line, markers);
      points += markers.length;
      c.timeScale().fitContent();
    });

    var eq = chart(section('Equity', 'Account equity (quote currency).'), first);
    first = false;
    eq.addSeries(LWC.LineSeries, { color: '#2e7d32', lineWidth: 2 }).setData(pairs(data.charts.equity));
    points += data.charts.equity.t.length;
    eq.timeScale().fitContent();

    var dd = chart(section('Drawdown', 'Equity minus its running peak (quote currency).'), false);
    dd.addSeries(LWC.BaselineSeries, {
      baseValue: { type: 'price', price: 0 },
      topLineColor: '#c62828',
      topFillColor1: 'rgba(198, 40, 40, 0)',
      topFillColor2: 'rgba(198, 40, 40, 0)',
      bottomLineColor: '#c62828',
      bottomFillColor1: 'rgba(198, 40, 40, 0.05)',
      bottomFillColor2: 'rgba(198, 40, 40, 0.4)',
      lineWidth: 1,
    }).setData(pairs(data.charts.drawdown));
    points += data.charts.drawdown.t.length;
    dd.timeScale().fitContent();

    // The library paints on animation frames: report success only after a frame has been painted,
    // and never over an error reported in the meantime.
    window.requestAnimationFrame(function () {
      window.requestAnimationFrame(function () {
        if (body.dataset.status !== 'loading') return;
        body.dataset.points = String(points);
        body.dataset.canvases = String(document.querySelectorAll('canvas').length);
        body.dataset.status = 'ok';
      });
    });
  }

  try {
    main();
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
